#!/usr/bin/env bash
# Drives dp-workbench through its menus as a user would, under xvfb with a
# window manager (openbox), and grabs what a user sees at each step (menus
# and dialogs included, which the workbench's own --screenshot cannot show):
# the Run menu, Run ▸ Sweep…'s dialog, the sweep's study window as it runs
# and when it is done, each beside the whole screen (*-window.png). Each screen size starts from fresh settings and
# an empty history in a temporary folder. Needs a Release build, xvfb-run,
# openbox, xdotool and xwd (scripts/setup).
#
#   tests/ui/drive-menus.sh [OUTPUT_DIR]     (default build/screenshots/menus)
#     SIZES  screen sizes (default "1024x768 1280x720 1366x768 1920x1080")
#     DP_WORKBENCH  the binary (default build/release/app/dp-workbench)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/workbench_binary.sh" drive-menus
output_dir="${1:-$repo_root/build/screenshots/menus}"
for tool in xvfb-run openbox xdotool xwd; do
  command -v "$tool" >/dev/null || { echo "drive-menus: $tool is missing; run scripts/setup" >&2; exit 1; }
done
mkdir -p "$output_dir"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# One screen size's session, run inside xvfb-run (a script of its own:
# xvfb-run's sh drops exported bash functions): session.sh SIZE OUT BINARY.
cat >"$scratch/session.sh" <<'SESSION'
size="$1" out="$2" binary="$3"
# grab NAME [WINDOW]: the whole screen, or one window. Under Xvfb a root
# grab shows Qt's popup menus, dialogs and second windows black where a grab
# of the window itself shows them drawn, so those are grabbed by their id.
grab() {
  local source=(-root)
  [[ -n "${2:-}" ]] && source=(-id "$2")
  xwd "${source[@]}" -silent | /usr/bin/python3 "$XWD_TO_PNG" "$out-$1.png"
}
# The open popup menu: the override-redirect window of the workbench's.
popup() {
  local w
  for w in $(xdotool search --onlyvisible --name "^DP Workbench$"); do
    xwininfo -id "$w" | grep -q "Override Redirect State: yes" && { echo "$w"; return; }
  done
}
openbox & sleep 1
# LeNet on 2,048 images, 2 epochs: a sweep of 4 runs takes seconds.
"$binary" --maximized --model lenet --limit-train 2048 --limit-test 512 --epochs 2 --devices cpu:0,cpu:1 &
for _ in $(seq 40); do
  wid=$(xdotool search --name "^DP Workbench" 2>/dev/null | head -1) && [[ -n "$wid" ]] && break
  sleep 0.5
done
xdotool windowactivate --sync "$wid"; sleep 1
xdotool key alt+r; sleep 1; grab 1-run-menu "$(popup)"
xdotool key w
dialog=$(xdotool search --sync --onlyvisible --name "^Sweep$" | head -1); sleep 2; grab 2-sweep-dialog "$dialog"
xdotool key Return; sleep 4
grab 3-sweep-running-window; grab 3-sweep-running "$(xdotool search --onlyvisible --name "^Study" | head -1)"
# Done once the study window is named after its file.
for _ in $(seq 120); do
  xdotool search --name "^Study study-" >/dev/null 2>&1 && break
  sleep 1
done
sleep 2
grab 4-sweep-done-window; grab 4-sweep-done "$(xdotool search --onlyvisible --name "^Study study-" | head -1)"
kill %2 2>/dev/null || true
SESSION

for size in ${SIZES:-1024x768 1280x720 1366x768 1920x1080}; do
  home="$scratch/$size"
  mkdir -p "$home"
  DP_WORKBENCH_DATA_DIR="$home/data" XDG_CONFIG_HOME="$home/config" XDG_RUNTIME_DIR="$home" \
    XWD_TO_PNG="$repo_root/tests/ui/xwd_to_png.py" \
    xvfb-run -a -s "-screen 0 ${size}x24" bash "$scratch/session.sh" "$size" "$output_dir/$size" "$binary" \
    2>"$home/err.txt" || { echo "drive-menus: $size failed:" >&2; cat "$home/err.txt" >&2; exit 1; }
  echo "drive-menus: $size: $(ls "$output_dir/$size"-*.png | wc -l) screens"
done
echo "drive-menus: $output_dir"
