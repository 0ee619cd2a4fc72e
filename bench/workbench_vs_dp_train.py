#!/usr/bin/env python3
"""The workbench's training speed against dp-train's, same settings, same machine.

The workbench must measure what dp-train measures: its device threads once ran
at SCHED_BATCH and nice 10 and, beside one busy process, trained 5-9x slower
than dp-train at batch 4 (../shared/MEASURING.md). This runs both programs on
the same settings, alternating which goes first in each repeat so that drifting
load hits both alike, at each batch size, on an idle machine and with one busy
process beside them (a spin loop at the same nice level), and prints one JSON
object: each program's steady-epoch median s/epoch with its range over the
repeats, and the workbench's time over dp-train's (the goal: within 10%).

  bench/workbench_vs_dp_train.py [--batch-sizes 4,64] [--loads idle,busy]
      [--repeats 3] [--model lenet] [--devices cpu:0,cpu:1] [--limit-train 5000]
      [--epochs 3] [--build build/release]

The workbench runs offscreen (--start, and --screenshot-after-epochs 0 to quit
once its run ends), its settings and history in a scratch folder; its s/epoch
comes from its history (runs.sqlite), dp-train's from --record. A run's
figure is the median of its steady epochs (those after the first), as every
comparison of the project quotes it.
"""
import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_description  # noqa: E402


def steady_median(seconds):
    steady = seconds[1:] if len(seconds) > 1 else seconds
    return statistics.median(steady)


def common_args(args, batch):
    return ["--model", args.model, "--devices", args.devices, "--batch-size", str(batch),
            "--lr", "0.05", "--epochs", str(args.epochs), "--limit-train", str(args.limit_train),
            "--limit-test", "500"]


def scratch_env(folder):
    env = dict(os.environ, HOME=folder, XDG_CONFIG_HOME=os.path.join(folder, "config"),
               DP_WORKBENCH_DATA_DIR=os.path.join(folder, "data"), QT_QPA_PLATFORM="offscreen")
    return env


def run_dp_train(args, batch):
    with tempfile.TemporaryDirectory() as folder:
        record = os.path.join(folder, "run.json")
        subprocess.run([os.path.join(args.build, "app", "dp-train"), *common_args(args, batch),
                        "--no-history", "--record", record],
                       env=scratch_env(folder), check=True, stdout=subprocess.DEVNULL)
        with open(record) as f:
            return [e["seconds"] for e in json.load(f)["epochs"]]


def run_workbench(args, batch):
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([os.path.join(args.build, "app", "dp-workbench"), *common_args(args, batch),
                        "--start", "--screenshot", os.path.join(folder, "end.png"),
                        "--screenshot-after-epochs", "0"],
                       env=scratch_env(folder), check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        history = sqlite3.connect(os.path.join(folder, "data", "runs.sqlite"))
        return [row[0] for row in history.execute("SELECT seconds FROM epochs ORDER BY position")]


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "repeats": values}


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-sizes", default="4,64")
    parser.add_argument("--loads", default="idle,busy")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--model", default="lenet")
    parser.add_argument("--devices", default="cpu:0,cpu:1")
    parser.add_argument("--limit-train", type=int, default=5000)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build", "release"))
    args = parser.parse_args()

    rows = []
    for load in args.loads.split(","):
        spinner = None
        if load == "busy":
            spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            time.sleep(1)
        try:
            for batch in (int(b) for b in args.batch_sizes.split(",")):
                times = {"dp_train": [], "workbench": []}
                loads = []
                for repeat in range(args.repeats):
                    # Alternate which program goes first: drifting load hits both alike.
                    order = [("dp_train", run_dp_train), ("workbench", run_workbench)]
                    for name, run in order if repeat % 2 == 0 else reversed(order):
                        print(f"{load} batch {batch} repeat {repeat + 1}: {name}", file=sys.stderr)
                        times[name].append(steady_median(run(args, batch)))
                    loads.append(load_average())
                dp, wb = summary(times["dp_train"]), summary(times["workbench"])
                rows.append({"load": load, "batch_size": batch, "dp_train_sec_per_epoch": dp,
                             "workbench_sec_per_epoch": wb,
                             "workbench_over_dp_train": wb["median"] / dp["median"],
                             "within_10_percent": wb["median"] <= 1.1 * dp["median"],
                             "load_average_1min": loads})
        finally:
            if spinner:
                spinner.kill()
                spinner.wait()
    print(json.dumps({"machine": cpu_description(), "model": args.model, "devices": args.devices,
                      "limit_train": args.limit_train, "epochs": args.epochs,
                      "statistic": "median of each run's steady epochs (after the first), "
                                   "then median and range over the repeats",
                      "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
