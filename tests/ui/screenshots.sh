#!/usr/bin/env bash
# Saves screenshots of dp-workbench in each state a user meets, under xvfb
# (a real X server, so fonts and styles render as on a desktop), for docs and
# UI review: idle, mid-run, a finished 1 vs 2 comparison, the classroom views
# and presenter mode (also on a 1280x720 projector, after a comparison: the
# focus view); idle and a comparison on a 1024x768 screen, idle on 1920x1080;
# a comparison maximized under openbox at 1024x768, 1280x720, 1366x768, 1920x1080 and 3840x2160;
# presenter mode's Scaling tab and ring all-reduce on the smallest and largest screens
# (1024x768, 3840x2160: every text at least 16 px, none cut short);
# 30 imported runs in the table at 1280x720 and 1920x1080. Each state starts from
# fresh settings and an empty history in a temporary folder. Needs a Release
# build and xvfb-run.
#
#   tests/ui/screenshots.sh [OUTPUT_DIR]     (default build/screenshots)
#     DP_WORKBENCH  the binary (default build/release/app/dp-workbench)
#     LIMIT_TRAIN / LIMIT_TEST  images per epoch / per evaluation (default 10000 / 2000)
#     ONLY  the states to take, as an extended regex of their names (default all),
#           e.g. ONLY='runs-30-.*|presenter-comparison-720p'
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/workbench_binary.sh" screenshots
output_dir="${1:-$repo_root/build/screenshots}"
mkdir -p "$output_dir"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# LeNet on 10,000 images in batches of 64: enough steps for the accuracy
# curve to leave its plateau within the first epochs.
data=(--model lenet --lr 0.2 --batch-size 64
      --limit-train "${LIMIT_TRAIN:-10000}" --limit-test "${LIMIT_TEST:-2000}")

# write_run_records FOLDER COUNT: COUNT finished 5-epoch run records (LeNet
# and MNISTNet, batches 32 to 512, 1, 2 or 4 devices, three learning rates),
# their curves made up, as FOLDER/run-N.json; prints an --import option for each.
write_run_records() {
  local folder="$1" count="$2" i
  mkdir -p "$folder"
  for ((i = 0; i < count; ++i)); do
    local model=lenet batch=$((32 << (i % 5))) devices=$((1 << (i % 3))) lrs=(0.05 0.1 0.2)
    ((i % 3 == 2)) && model=mnistnet
    local lr=${lrs[$((i * 3 / count))]} list="" d
    for ((d = 0; d < devices; ++d)); do list+="${list:+, }\"cpu:$d\""; done
    local started
    started=$(printf '2026-11-%02dT%02d:%02d:00Z' $((10 + i / 8)) $((9 + i % 8)) $((i * 7 % 60)))
    local epochs
    epochs=$(awk -v lr="$lr" -v b="$batch" -v dev="$devices" 'BEGIN {
      k = 0.5 + 4 * lr * 64 / b; top = 0.9 - 0.02 * log(b / 32)
      for (e = 1; e <= 5; ++e) {
        acc = top - (top - 0.1) * exp(-e * k / 2); loss = 2.3 * exp(-e * k / 1.5) + 0.3
        sec = 6.0 / (1 + 0.8 * (dev - 1)) * (e == 1 ? 1.15 : 1) * (1 + 0.03 * sin(e + b))
        printf "%s{\"epoch\": %d, \"train_loss\": %.4f, \"train_acc\": %.4f, \"test_loss\": %.4f, \"test_acc\": %.4f, \"seconds\": %.3f, \"parameter_drift\": null}", (e > 1 ? ", " : ""), e, loss, acc + 0.01 * e, loss * 1.05, acc, sec
      } }')
    cat > "$folder/run-$i.json" <<JSON
{"format": "dp-workbench run record", "version": 1, "id": "$started-$i", "started_at": "$started",
 "source": "dp-train", "status": "finished", "error": "", "processes": 1, "comparison_group": "",
 "deterministic": true, "name": "",
 "config": {"model": "$model", "batch_size": $batch, "lr": $lr, "epochs": 5, "warmup_epochs": 0,
   "seed": $((i % 2)), "dataset": "fashion-mnist", "data_dir": "", "input_size": 5, "samples": 100,
   "limit_train": 10000, "limit_test": 2000, "shuffle": true, "load_path": "", "devices": [$list],
   "allreduce": "ring", "bucket_mb": 25, "accumulate": 1, "sync_bn": false, "collective_timeout_s": 600,
   "save_path": "", "record_path": "", "trace_path": "", "preview_samples": 0, "retune": false,
   "snapshot_dir": "", "drift_from": ""},
 "epochs": [$epochs], "steps": 0, "step_totals": []}
JSON
    printf -- '--import\n%s\n' "$folder/run-$i.json"
  done
}

# shot NAME [dp-workbench options...]: one state, one PNG, on a screen of
# $SCREEN (default 1400x900; the window fits within it). With MAXIMIZED=1 the
# window opens maximized under a window manager (openbox), as a user's does.
shot() {
  local name="$1"
  shift
  [[ -z "${ONLY:-}" || "$name" =~ ^(${ONLY})$ ]] || return 0
  local state="$scratch/$name" wm=()
  mkdir -p "$state"
  if [[ -n "${MAXIMIZED:-}" ]]; then
    wm=(bash -c 'openbox & sleep 1; exec "$@"' openbox-then)
    set -- --maximized "$@"
  fi
  XDG_CONFIG_HOME="$state/config" DP_WORKBENCH_DATA_DIR="$state/data" QT_QPA_PLATFORM=xcb \
    timeout 600 xvfb-run -a -s "-screen 0 ${SCREEN:-1400x900}x24" \
    "${wm[@]}" "$binary" --screenshot "$output_dir/$name.png" "$@"
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
# A finished 1 vs 2 comparison projected at 1280 x 720: the focus view (one chart
# large, a button for each), the card collapsed to its verdict, any settings hint.
SCREEN=1280x720 shot presenter-comparison-720p "${data[@]}" --epochs 3 --devices cpu:0,cpu:1 \
  --compare --presenter
# The smallest screen the window fits: the charts two a row beside the settings.
SCREEN=1024x768 shot idle-1024x768
SCREEN=1024x768 shot comparison-1024x768 "${data[@]}" --epochs 3 --devices cpu:0,cpu:1 --compare
# After a comparison, maximized under a window manager at the four sizes a
# user has: the charts own the screen (plots at least 200 px, nothing scrolling).
for size in 1024x768 1280x720 1366x768 1920x1080 3840x2160; do
  MAXIMIZED=1 SCREEN=$size shot "comparison-maximized-$size" "${data[@]}" --epochs 3 \
    --devices cpu:0,cpu:1 --compare
done
# Presenter mode on the smallest and the largest screen, maximized: the Scaling tab after
# a comparison (its controls wrap onto a second line where the row is too
# short, its notes in the presenter's font), and the ring all-reduce after a
# step (its link named whole, its traffic table scrolling beside the ring).
for size in 1024x768 3840x2160; do
  MAXIMIZED=1 SCREEN=$size shot "presenter-scaling-$size" "${data[@]}" --epochs 3 \
    --devices cpu:0,cpu:1 --compare --presenter --show-tab scaling
  MAXIMIZED=1 SCREEN=$size shot "presenter-ring-$size" --presenter --show-tab classroom --ring-step 1
done
# A full-HD desktop: the window takes 80% of it, centred.
SCREEN=1920x1080 shot idle-1920x1080
# Thirty runs imported from dp-train records, all drawn: the table, the legend and the charts.
mapfile -t many_runs < <(write_run_records "$scratch/records" 30)
SCREEN=1280x720 shot runs-30-720p "${many_runs[@]}"
SCREEN=1920x1080 shot runs-30-1920x1080 "${many_runs[@]}"
