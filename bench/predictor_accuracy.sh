#!/usr/bin/env bash
# The what-if predictor's accuracy on this machine (issue 13's acceptance):
# LeNet on 1, 2, 3 and 4 CPU devices (DP_CPU_DEVICES=4, dp-train --compare
# 1,2,3,4: devices beyond the cores share them), each run's measured sec/epoch
# beside the prediction for this machine's threads made from the 1-device
# run, and the error. Prints the load before and after (a busy machine makes
# both the runs and the probes noisy), then a table, then dp-train's own
# report (model inputs, the link fit, every preset, the assumptions).
#
#   bench/predictor_accuracy.sh [extra dp-train options]
#
# Environment: BUILD (build/release), LIMIT_TRAIN (8192), EPOCHS (2),
# ALLREDUCE (ring). Kernels are chosen by the fixed rule (DP_KERNEL_TUNING=fixed)
# so that no run's first epoch includes kernel timing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build/release}
dp_train="$build/app/dp-train"
[[ -x $dp_train ]] || { echo "predictor_accuracy: no $dp_train; build first (bash scripts/build)" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "load before: $(uptime)"
DP_CPU_DEVICES=4 DP_KERNEL_TUNING=fixed DP_WORKBENCH_DATA_DIR="$scratch" XDG_CONFIG_HOME="$scratch" \
    "$dp_train" --model lenet --limit-train "${LIMIT_TRAIN:-8192}" --limit-test 1000 \
    --epochs "${EPOCHS:-2}" --allreduce "${ALLREDUCE:-ring}" --compare 1,2,3,4 --predict \
    --no-history "$@" > "$scratch/out.txt"
echo "load after:  $(uptime)"
echo
# The measured rows of the table for this machine's threads (strong scaling:
# --compare keeps the global batch).
awk '
    /all-reduce over this machine.s threads/ { inside = 1; next }
    inside && /^$/ { inside = 0 }
    inside && /^ +[0-9]+ \|/ {
        split($0, part, "|"); n = split(part[2], cell, " ")
        if (n == 4) printf "%7s  %17s  %18s  %6s\n", $1, cell[3], cell[1], cell[4]
    }
    BEGIN { printf "%7s  %17s  %18s  %6s\n", "devices", "measured s/epoch", "predicted s/epoch", "error" }
' "$scratch/out.txt"
echo
sed -n '/^what if:/,$p' "$scratch/out.txt"
