#!/usr/bin/env bash
# scripts/check-floors on small trees of its own: a clean one passes; a ui/
# file that reaches backend/ or devices/ second-hand, through a header of the
# engine's face or a ui/ header, fails with the chain named; platform/
# including a floor above it fails; a cycle of includes ends; app/ driving
# a run's life cycle itself fails.
#
#   test_check_floors.sh PATH/TO/check-floors
set -euo pipefail
check_floors=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}

# put FILE LINE...: writes the lines into $tree/FILE.
put() {
    local file=$tree/$1
    shift
    mkdir -p "$(dirname "$file")"
    printf '%s\n' "$@" >"$file"
}

# A tree in which ui/ reaches the engine through its face only.
clean_tree() {
    tree=$scratch/$1
    put engine/backend/backend.h '#pragma once'
    put engine/devices/device.h '#pragma once' '#include "config/device_choice.h"'
    put engine/config/device_choice.h '#pragma once' '#include <string>'
    put engine/config/train_config.h '#pragma once' '#include "config/device_choice.h"' '#include <vector>'
    put engine/train/trainer.h '#pragma once' '#include "config/train_config.h"'
    put engine/platform/cuda/cuda_check.h '#pragma once' '#include "core/error.h"'
    put engine/core/error.h '#pragma once'
    put ui/run_panel.cpp '#include "run_panel.h"' '#include "config/train_config.h"'
    put ui/run_panel.h '#pragma once' '#include <QWidget>'
    put engine/study/study_runner.h '#pragma once' '#include "train/trainer.h"'
    put ui/runs/training_worker.h '#pragma once' '#include "study/study_runner.h"'
    put ui/main_window.cpp '#include "training_worker.h"'
}

# run_check NAME: check-floors on $tree, its output in $scratch/NAME.out; its exit status.
run_check() {
    local status=0
    bash "$check_floors" "$tree" >"$scratch/$1.out" 2>&1 || status=$?
    return $status
}

# expect_line NAME TEXT: the output of check NAME has a line holding TEXT.
expect_line() {
    grep -qF -- "$2" "$scratch/$1.out" || fail "$1: no line with '$2' in: $(cat "$scratch/$1.out")"
}

clean_tree clean
run_check clean || fail "a clean tree fails: $(cat "$scratch/clean.out")"
expect_line clean "check-floors: ok"

# config/ pulling in backend/ (as train_config.h once did through nn/layer.h):
# the ui/ file that includes config/ is reported with the chain.
clean_tree second-hand
put engine/config/train_config.h '#pragma once' '#include "config/device_choice.h"' '#include "nn/layer.h"'
put engine/nn/layer.h '#pragma once' '#include "backend/backend.h"'
if run_check second-hand; then fail "a second-hand include of backend/ from ui/ passes"; fi
expect_line second-hand "ui/run_panel.cpp:2: reaches ui/run_panel.cpp -> config/train_config.h -> nn/layer.h -> backend/backend.h"
# ...and through the ui/ header: reported once, where it leaves ui/.
expect_line second-hand "ui/runs/training_worker.h:2: reaches ui/runs/training_worker.h -> study/study_runner.h -> train/trainer.h -> config/train_config.h -> nn/layer.h -> backend/backend.h"
grep -q '^ui/main_window.cpp' "$scratch/second-hand.out" &&
    fail "second-hand: a ui/ file is reported for a ui/ header's include: $(cat "$scratch/second-hand.out")"

# A face header re-exporting devices/ (as config/device_choice.h did).
clean_tree re-export
put engine/config/device_choice.h '#pragma once' '#include "devices/device.h"'
put engine/devices/device.h '#pragma once'
if run_check re-export; then fail "config/ re-exporting devices/ to ui/ passes"; fi
expect_line re-export "ui/run_panel.cpp:2: reaches ui/run_panel.cpp -> config/train_config.h -> config/device_choice.h -> devices/device.h"

# A direct include is the shortest chain.
clean_tree direct
put ui/run_panel.cpp '#include "data/dataset.h"'
put engine/data/dataset.h '#pragma once'
if run_check direct; then fail "ui/ including data/ passes"; fi
expect_line direct "ui/run_panel.cpp:1: reaches ui/run_panel.cpp -> data/dataset.h"

# Headers that include each other end the walk; one leading to backend/ is still found.
clean_tree cycle
put engine/config/a.h '#pragma once' '#include "config/b.h"'
put engine/config/b.h '#pragma once' '#include "config/a.h"' '#include "backend/backend.h"'
put ui/cycle.cpp '#include "config/a.h"'
if run_check cycle; then fail "a cycle hiding backend/ passes"; fi
expect_line cycle "ui/cycle.cpp:1: reaches ui/cycle.cpp -> config/a.h -> config/b.h -> backend/backend.h"

# A header on a cycle is not taken as clean for having been met while the
# cycle was walked: b.h reaches backend/ through a.h, found first from x.cpp.
clean_tree late-cycle
put engine/config/a.h '#pragma once' '#include "config/b.h"' '#include "backend/backend.h"'
put engine/config/b.h '#pragma once' '#include "config/a.h"'
put ui/a_first.cpp '#include "config/a.h"'
put ui/then_b.cpp '#include "config/b.h"'
if run_check late-cycle; then fail "a cycle hiding backend/ passes"; fi
expect_line late-cycle "ui/then_b.cpp:1: reaches ui/then_b.cpp -> config/b.h -> config/a.h -> backend/backend.h"

# platform/ is the CUDA ground floor: a loader naming the backend's types is not.
clean_tree platform
put engine/platform/cuda_module.h '#pragma once' '#include "backend/backend.h"'
if run_check platform; then fail "platform/ including backend/ passes"; fi
expect_line platform 'engine/platform/cuda_module.h:2: includes "backend/backend.h"'

# An MPI rank's run driven from app/ (issue 41): the life cycle is the engine's.
clean_tree rank-in-app
put app/cli/distributed_run.cpp '#include "cli/distributed_run.h"' '#include "parallel/mpi_session.h"'
put app/cli/distributed_run.h '#pragma once'
if run_check rank-in-app; then fail "app/ joining the MPI job itself passes"; fi
expect_line rank-in-app 'app/cli/distributed_run.cpp:2: includes "parallel/mpi_session.h" (a run'"'"'s life cycle is the engine'"'"'s'

# A run the workbench would live itself (issue 41): its Trainer is the engine's runner's.
clean_tree run-in-ui
put ui/runs/run_manager.cpp '#include "run_manager.h"' '#include "train/trainer.h"'
if run_check run-in-ui; then fail "ui/ starting a Trainer of its own passes"; fi
expect_line run-in-ui 'ui/runs/run_manager.cpp:2: includes "train/trainer.h" (a run'"'"'s life cycle is the engine'"'"'s'

if [ "$failures" -gt 0 ]; then
    echo "test_check_floors: $failures failure(s)"
    exit 1
fi
echo "test_check_floors: ok"
