#!/usr/bin/env bash
# Saves screenshots of dp-workbench in each state a user meets, under xvfb
# (a real X server, so fonts and styles render as on a desktop), for docs and
# UI review: idle, mid-run, a finished 1 vs 2 comparison, the classroom views
# and presenter mode (also on a 1280x720 projector); idle and a comparison on
# a 1024x768 screen, idle on 1920x1080. Each state starts from
# fresh settings and an empty history in a temporary folder. Needs a Release
# build and xvfb-run.
#
#   tests/ui/screenshots.sh [OUTPUT_DIR]     (default build/screenshots)
#     DP_WORKBENCH  the binary (default build/release/app/dp-workbench)
#     LIMIT_TRAIN / LIMIT_TEST  images per epoch / per evaluation (default 10000 / 2000)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
binary="${DP_WORKBENCH:-$repo_root/build/release/app/dp-workbench}"
output_dir="${1:-$repo_root/build/screenshots}"
if [[ ! -x "$binary" ]]; then
  echo "screenshots: $binary not found; build with scripts/build" >&2
  exit 1
fi
mkdir -p "$output_dir"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# LeNet on 10,000 images in batches of 64: enough steps for the accuracy
# curve to leave its plateau within the first epochs.
data=(--model lenet --lr 0.2 --batch-size 64
      --limit-train "${LIMIT_TRAIN:-10000}" --limit-test "${LIMIT_TEST:-2000}")

# shot NAME [dp-workbench options...]: one state, one PNG, on a screen of
# $SCREEN (default 1400x900; the window fits within it).
shot() {
  local name="$1"
  shift
  local state="$scratch/$name"
  mkdir -p "$state"
  XDG_CONFIG_HOME="$state/config" DP_WORKBENCH_DATA_DIR="$state/data" QT_QPA_PLATFORM=xcb \
    timeout 600 xvfb-run -a -s "-screen 0 ${SCREEN:-1400x900}x24" \
    "$binary" --screenshot "$output_dir/$name.png" "$@"
  echo "screenshots: wrote $output_dir/$name.png"
}

shot idle
shot mid-run "${data[@]}" --epochs 10 --start --screenshot-after-epochs 3
shot comparison "${data[@]}" --epochs 3 --devices cpu:0,cpu:1 --compare
# Four devices (sharing the cores) show a four-way split of each batch.
DP_CPU_DEVICES=4 shot classroom "${data[@]}" --epochs 10 --start --show-tab classroom \
  --screenshot-after-epochs 2
shot presenter "${data[@]}" --epochs 10 --start --presenter --screenshot-after-epochs 2
# A projector's 1280 x 720 with eight devices: every device row keeps its label and time.
SCREEN=1280x720 DP_CPU_DEVICES=8 shot presenter-classroom-8-devices "${data[@]}" --epochs 10 \
  --start --presenter --show-tab classroom --screenshot-after-epochs 1
SCREEN=1280x720 shot presenter-720p "${data[@]}" --epochs 10 --start --presenter \
  --screenshot-after-epochs 2
# A finished 1 vs 2 comparison projected at 1280 x 720: card, charts and any settings hint.
SCREEN=1280x720 shot presenter-comparison-720p "${data[@]}" --epochs 3 --devices cpu:0,cpu:1 \
  --compare --presenter
# The smallest screen the window fits: the charts two a row beside the settings.
SCREEN=1024x768 shot idle-1024x768
SCREEN=1024x768 shot comparison-1024x768 "${data[@]}" --epochs 3 --devices cpu:0,cpu:1 --compare
# A full-HD desktop: the window takes 80% of it, centred.
SCREEN=1920x1080 shot idle-1920x1080
