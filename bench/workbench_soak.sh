#!/usr/bin/env bash
# Memory over a long workbench run: starts dp-workbench training LeNet on the
# full Fashion-MNIST (1000 epochs: it never finishes first), samples the
# process's resident memory every SAMPLE_SECONDS from /proc, stops it after
# MINUTES and prints JSON with the samples and the growth. Settings and run
# history go to a temporary folder, never the user's.
#
#   bench/workbench_soak.sh [MINUTES]      (default 30)
#     SAMPLE_SECONDS  seconds between samples (default 30)
#     DP_WORKBENCH    the binary (default build/release/app/dp-workbench)
#     PLATFORM        offscreen (default) or xvfb (a real X server; needs xvfb-run)
set -euo pipefail

minutes="${1:-30}"
interval="${SAMPLE_SECONDS:-30}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="${DP_WORKBENCH:-$repo_root/build/release/app/dp-workbench}"
if [[ ! -x "$binary" ]]; then
  echo "workbench_soak: $binary not found; build with scripts/build" >&2
  exit 1
fi

scratch="$(mktemp -d)"
pid=""
cleanup() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

export XDG_CONFIG_HOME="$scratch/config" DP_WORKBENCH_DATA_DIR="$scratch/data"
args=(--model lenet --batch-size 256 --lr 0.2 --epochs 1000 --limit-train 0 --limit-test 0 --start)
case "${PLATFORM:-offscreen}" in
  offscreen) QT_QPA_PLATFORM=offscreen "$binary" "${args[@]}" >"$scratch/out.log" 2>&1 &
             pid=$! ;;
  # exec: the sampled pid is dp-workbench itself, not a wrapper shell.
  xvfb) QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1400x900x24" \
          bash -c 'exec "$0" "$@"' "$binary" "${args[@]}" >"$scratch/out.log" 2>&1 &
        sleep 3
        pid="$(pgrep -n -f "^$binary")" ;;
  *) echo "workbench_soak: PLATFORM is offscreen or xvfb" >&2; exit 2 ;;
esac

rss_mb() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

samples=""
start=$(date +%s)
end=$((start + minutes * 60))
# The first sample comes after one interval: launch and data loading are not growth.
sleep "$interval"
while :; do
  now=$(date +%s)
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "workbench_soak: dp-workbench exited early; its output:" >&2
    cat "$scratch/out.log" >&2
    exit 1
  fi
  samples+="${samples:+ }$((now - start)):$(rss_mb "$pid")"
  ((now >= end)) && break
  sleep $((interval < end - now ? interval : end - now))
done
epochs=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM epochs").fetchone()[0])' \
  "$DP_WORKBENCH_DATA_DIR/runs.sqlite" 2>/dev/null || echo null)

python3 - "$minutes" "$interval" "$epochs" $samples <<'PY'
import json, sys
minutes, interval, epochs = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
samples = [{"t_s": int(t), "rss_mb": float(m)} for t, m in (s.split(":") for s in sys.argv[4:])]
rss = [s["rss_mb"] for s in samples]
# The first minute loads the data and warms up; growth after it is the leak signal.
settled = [s["rss_mb"] for s in samples if s["t_s"] >= 60] or rss
print(json.dumps({
    "model": "lenet", "dataset": "fashion-mnist (60,000 / 10,000)", "minutes": minutes,
    "sample_interval_s": interval, "epochs_completed": None if epochs == "null" else int(epochs),
    "samples": samples,
    "first_mb": rss[0], "last_mb": rss[-1], "max_mb": max(rss),
    "growth_mb": round(rss[-1] - rss[0], 1),
    "growth_after_first_minute_mb": round(settled[-1] - settled[0], 1),
}, indent=2))
PY
