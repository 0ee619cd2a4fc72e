#!/usr/bin/python3
"""What dp-train --trace costs a long run of short epochs.

A trace once rewrote its whole file after every epoch: 600 epochs took 464 s with --trace and 92 s
without. Each round runs the same 600-epoch LeNet run (64 training images in batches of 4: 16
steps an epoch) without and with --trace, one after the other, alternating which goes first so
that load drifting during a round hits both alike; the acceptance is "with --trace within 10% of
without". Prints one JSON object to stdout; progress goes to stderr. See bench/README.md.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import machine  # bench/machine.py

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(message):
    print(message, file=sys.stderr, flush=True)


def load_avg_1min():
    return os.getloadavg()[0]


def timed_run(args, data_dir, trace_path):
    """Seconds dp-train took from start to exit (the whole run, evaluation included)."""
    command = [args.dp_train, "--model", "lenet", "--devices", "cpu:0", "--batch-size", "4",
               "--lr", "0.1", "--epochs", str(args.epochs), "--limit-train", "64",
               "--limit-test", "64", "--no-history"]
    if trace_path:
        command += ["--trace", trace_path]
    env = dict(os.environ, DP_WORKBENCH_DATA_DIR=data_dir)
    start = time.monotonic()
    result = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    seconds = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"dp-train failed ({result.returncode}): {result.stderr.strip()}")
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    if trace_path and any("step trace" in line for line in warnings):
        sys.exit(f"the trace failed: {warnings}")
    return seconds


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dp-train", default=os.path.join(REPO_ROOT, "build/release/app/dp-train"))
    parser.add_argument("--epochs", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="trace-overhead-") as scratch:
        data_dir = os.path.join(scratch, "data")
        os.makedirs(data_dir)
        trace_path = os.path.join(scratch, "trace.json")
        log("warm-up: a 2-epoch run fills the kernel cache")
        subprocess.run([args.dp_train, "--model", "lenet", "--devices", "cpu:0", "--batch-size", "4",
                        "--epochs", "2", "--limit-train", "64", "--limit-test", "64", "--no-history"],
                       env=dict(os.environ, DP_WORKBENCH_DATA_DIR=data_dir),
                       stdout=subprocess.DEVNULL, check=True)
        load_start = load_avg_1min()
        rounds = []
        for number in range(args.rounds):
            order = ("without", "with") if number % 2 == 0 else ("with", "without")
            times = {}
            for which in order:
                log(f"round {number + 1}: {which} --trace, {args.epochs} epochs")
                times[which] = timed_run(args, data_dir, trace_path if which == "with" else None)
            trace_bytes = os.path.getsize(trace_path)
            rounds.append({"order": list(order), "without_trace_s": times["without"],
                           "with_trace_s": times["with"], "trace_bytes": trace_bytes,
                           "ratio": times["with"] / times["without"]})
            log(f"  without {times['without']:.1f} s, with {times['with']:.1f} s "
                f"({trace_bytes / 1e6:.1f} MB trace)")
        load_end = load_avg_1min()

    ratios = [r["ratio"] for r in rounds]
    print(json.dumps({
        "machine": machine.cpu_description(),
        "load_avg_1min_start": load_start, "load_avg_1min_end": load_end,
        "dp_train": args.dp_train,
        "run": {"model": "lenet", "devices": "cpu:0", "batch_size": 4, "limit_train": 64,
                "limit_test": 64, "epochs": args.epochs},
        "rounds": rounds,
        "without_trace_s": summary([r["without_trace_s"] for r in rounds]),
        "with_trace_s": summary([r["with_trace_s"] for r in rounds]),
        "ratio": summary(ratios),
        "within_10_percent": statistics.median(ratios) <= 1.10,
    }, indent=2))


if __name__ == "__main__":
    main()
