#!/usr/bin/python3
"""Data parallelism on 2 CPU devices against its ceiling, measured in the same run.

Two CPU devices are not always two cores' worth of compute (shared caches, memory bandwidth,
SMT siblings, other load): the ceiling for 2-device data parallelism is what two independent
1-device trainings reach when they run at once, one pinned to each core. Each round runs, one
after the other:
  (a) dp-train on 1 device (pinned with taskset to the first core),
  (b) two independent 1-device dp-train processes at once, pinned to the first and second core,
  (c) dp-train on those 2 cores as 2 devices (data-parallel, one global batch split in two),
and reports ceiling = (b)'s combined throughput / (a)'s, speedup = (c)'s throughput / (a)'s, and
speedup / ceiling. Prints one JSON object to stdout; progress goes to stderr. See bench/README.md.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import machine  # bench/machine.py

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH_SIZE = 256
LEARNING_RATES = {"lenet": 0.2, "resnet18": 0.1}  # as bench/train_vs_pytorch.py
TEST_IMAGES = 256  # evaluation is not timed; keep it short
IMAGES_LINE = re.compile(r"(\d+) training and \d+ test images")
# dp-train --verbose, after each epoch: one device's mean step phases.
PHASES_LINE = re.compile(r"device (\d+): shard ([\d.]+), data ([\d.]+) ms, forward ([\d.]+) ms, "
                         r"backward ([\d.]+) ms, all-reduce ([\d.]+) ms, update ([\d.]+) ms")
PHASES = ("data", "forward", "backward", "allreduce_wait", "update")


def log(message):
    print(message, file=sys.stderr, flush=True)


def cpu_description(cores):
    return dict(machine.cpu_description(), cores_used=cores)


class Training:
    """One dp-train process, started at once; finish() waits for it and reads its results."""

    def __init__(self, args, cores, devices, data_dir, name, epochs=None, limit_train=None):
        self.name = name
        self.record = os.path.join(data_dir, name + ".json")
        command = ["taskset", "-c", ",".join(map(str, cores)), args.dp_train,
                   "--model", args.model, "--batch-size", str(BATCH_SIZE),
                   "--lr", str(LEARNING_RATES[args.model]),
                   "--epochs", str(epochs or args.epochs), "--no-history", "--verbose",
                   "--record", self.record, "--limit-test", str(TEST_IMAGES),
                   "--devices", ",".join(f"cpu:{d}" for d in range(devices))]
        if limit_train or args.limit_train:
            command += ["--limit-train", str(limit_train or args.limit_train)]
        env = dict(os.environ, DP_WORKBENCH_DATA_DIR=data_dir)
        env.pop("DP_CPU_DEVICES", None)  # one device per core, as taskset leaves them
        env.pop("DP_KERNEL_TUNING", None)  # kernels as users get them: measured once, cached
        log(f"{name}: " + " ".join(command))
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)

    def finish(self):
        images, phases = None, {}
        for line in self.process.stdout:
            if match := IMAGES_LINE.search(line):
                images = int(match[1])
            elif match := PHASES_LINE.search(line):
                # The last epoch's line per device wins.
                phases[int(match[1])] = dict(zip(PHASES, map(float, match.groups()[2:])))
        if self.process.wait() != 0:
            sys.exit(f"{self.name}: dp-train failed (exit {self.process.returncode})")
        with open(self.record) as f:
            seconds = [epoch["seconds"] for epoch in json.load(f)["epochs"]]
        return {"epoch_seconds": seconds, "samples_per_s": images * len(seconds) / sum(seconds),
                "step_ms": [phases[d] for d in sorted(phases)]}


def run_round(args, cores, data_dir, index):
    one = Training(args, cores[:1], 1, data_dir, f"round{index}-one-device").finish()
    pair = [Training(args, [core], 1, data_dir, f"round{index}-process-on-core{core}")
            for core in cores]
    pair = [training.finish() for training in pair]
    two = Training(args, cores, 2, data_dir, f"round{index}-two-devices").finish()
    ceiling = sum(p["samples_per_s"] for p in pair) / one["samples_per_s"]
    speedup = two["samples_per_s"] / one["samples_per_s"]
    log(f"round {index}: ceiling {ceiling:.3f}, speedup {speedup:.3f}, "
        f"speedup/ceiling {speedup / ceiling:.3f}")
    return {"one_device": one, "two_processes": pair, "two_devices": two,
            "ceiling": ceiling, "speedup": speedup, "speedup_over_ceiling": speedup / ceiling}


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=sorted(LEARNING_RATES), default="lenet")
    parser.add_argument("--epochs", type=int, default=1, help="epochs per training (default 1)")
    parser.add_argument("--limit-train", type=int, metavar="N",
                        help="train on the first N training images (default all 60000)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of (a), (b), (c); medians and ranges over them (default 3)")
    parser.add_argument("--dp-train", default=os.path.join(REPO_ROOT, "build/release/app/dp-train"),
                        help="dp-train binary (default build/release/app/dp-train in the repo)")
    args = parser.parse_args()
    if not os.access(args.dp_train, os.X_OK):
        sys.exit(f"{args.dp_train} not found: build it first (see bench/README.md)")
    cores = sorted(os.sched_getaffinity(0))[:2]
    if len(cores) < 2:
        sys.exit("needs 2 usable cores")

    result = {"machine": cpu_description(cores), "load_avg_1min_start": os.getloadavg()[0],
              "model": args.model, "batch_size": BATCH_SIZE, "lr": LEARNING_RATES[args.model],
              "epochs": args.epochs, "limit_train": args.limit_train}
    with tempfile.TemporaryDirectory() as data_dir:
        # Kernel choices measured before the rounds, for both shard shapes (the full batch on
        # 1 device, half of it on 2) and a last partial batch, so no timed epoch pays for them.
        train_images = args.limit_train or 60000
        warm_up_images = BATCH_SIZE + train_images % BATCH_SIZE
        for devices, name in ((1, "warm-up-one-device"), (2, "warm-up-two-devices")):
            Training(args, cores[:devices], devices, data_dir, name, epochs=1,
                     limit_train=warm_up_images).finish()
        rounds = [run_round(args, cores, data_dir, i + 1) for i in range(args.rounds)]
    result["load_avg_1min_end"] = os.getloadavg()[0]
    result["rounds"] = rounds
    for key in ("ceiling", "speedup", "speedup_over_ceiling"):
        result[key] = spread([r[key] for r in rounds])
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
