#!/usr/bin/env python3
"""speed_table.py DIR: the one speed table of scripts/gpu-check's `speed` stage, from the runs'
files in DIR:
  ours-MODEL-PRECISION.json         dp-train --record (every epoch's seconds and test accuracy)
  ab-MODEL-PRECISION-VAR=VALUE.json  the same run with one switch set (an A/B row)
  torch-MODEL-PRECISION[-cl].jsonl  torch_gpu_ref.py's lines, one JSON object per epoch
                                    (-cl: channels_last)
s/epoch is training time only (as d2l's), over the steady epochs: every epoch after the first
(cuDNN's algorithm search and the kernel cache's measuring fall in the first), as a median and
its range. A row whose test accuracies differ by more than 0.02 is marked `!` (the acceptance's
bar for 3 epochs). Prints a Markdown table; exits 1 when DIR holds no run at all."""
import json
import os
import re
import statistics
import sys

ACCURACY_BAR = 0.02


def epochs_of_record(path):
    """(seconds, test_acc) of each epoch of a dp-train run record, or None if unreadable."""
    try:
        with open(path) as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None
    return [(e["seconds"], e["test_acc"]) for e in record.get("epochs", [])]


def epochs_of_torch(path):
    """(train_sec, test_acc) of each epoch torch_gpu_ref.py printed (other lines skipped)."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    epochs = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "train_sec" in entry:
            epochs.append((entry["train_sec"], entry["test_acc"]))
    return epochs


def steady(epochs):
    """(median, min, max) of the epochs after the first (the only one when there is one)."""
    times = [t for t, _ in (epochs[1:] if len(epochs) > 1 else epochs)]
    return statistics.median(times), min(times), max(times)


def seconds_text(epochs, with_range):
    if not epochs:
        return "-"
    median, low, high = steady(epochs)
    if with_range and len(epochs) > 2:
        return f"{median:.2f} ({low:.2f}-{high:.2f})"
    return f"{median:.2f}"


def rows_of(folder):
    """The table's rows: the default runs first (model, then precision order), each followed by
    its peer variants and A/B rows."""
    names = sorted(os.listdir(folder))
    ours, ab, torch = {}, {}, {}
    for name in names:
        path = os.path.join(folder, name)
        if m := re.fullmatch(r"ours-([a-z0-9]+)-([a-z0-9-]+)\.json", name):
            ours[(m[1], m[2])] = epochs_of_record(path)
        elif m := re.fullmatch(r"ab-([a-z0-9]+)-([a-z0-9]+)-([A-Z0-9_]+=[^/]+)\.json", name):
            ab.setdefault((m[1], m[2]), []).append((m[3], epochs_of_record(path)))
        elif m := re.fullmatch(r"torch-([a-z0-9]+)-([a-z0-9]+)(-cl)?\.jsonl", name):
            torch[(m[1], m[2], bool(m[3]))] = epochs_of_torch(path)
    order = {"fp32": 0, "fp32-fast": 1, "tf32": 2, "bf16": 3}
    keys = sorted(set(ours) | set(ab) | {(m, p) for m, p, _ in torch},
                  key=lambda k: (k[0] != "resnet18", k[0], order.get(k[1], 9), k[1]))
    rows = []
    for model, precision in keys:
        peer = torch.get((model, precision, False))
        mine = ours.get((model, precision))
        rows.append((model, precision, mine, peer))
        if (model, precision, True) in torch:
            rows.append((model, precision + " vs channels_last", mine,
                         torch[(model, precision, True)]))
        for switch, runs in ab.get((model, precision), []):
            rows.append((model, precision + " " + switch, runs, peer))
    return rows, bool(torch)


def table(folder):
    rows, any_torch = rows_of(folder)
    header = ["model", "precision", "ours s/epoch (median, range)", "PyTorch s/epoch",
              "ours/PyTorch", "test acc ours", "test acc PyTorch"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for model, precision, mine, peer in rows:
        ratio = "-"
        if mine and peer:
            ratio = f"{steady(mine)[0] / steady(peer)[0]:.2f}x"
        # An empty record: the run failed before its first epoch ended.
        acc_mine = f"{mine[-1][1]:.3f}" if mine else ("no epoch" if mine == [] else "-")
        acc_peer = f"{peer[-1][1]:.3f}" if peer else "-"
        if mine and peer and abs(mine[-1][1] - peer[-1][1]) > ACCURACY_BAR + 1e-9:  # 0.02 itself passes
            acc_mine += " !"
        cells = [model, precision, seconds_text(mine, True), seconds_text(peer, True), ratio,
                 acc_mine, acc_peer]
        lines.append("| " + " | ".join(cells) + " |")
    notes = ["s/epoch: training time of the steady epochs (all after the first); "
             f"! marks test accuracies more than {ACCURACY_BAR} apart."]
    if not any_torch:
        notes.append("PyTorch: no torch-*.jsonl here (python3 could not import torch with CUDA).")
    return "\n".join(lines + [""] + notes), bool(rows)


def main(argv):
    if len(argv) != 2:
        print("usage: speed_table.py DIR (the folder of a gpu-check speed stage)", file=sys.stderr)
        return 2
    if not os.path.isdir(argv[1]):
        print(f"speed_table.py: {argv[1]} is not a folder: give the OUT folder of "
              "scripts/gpu-check run", file=sys.stderr)
        return 2
    text, any_rows = table(argv[1])
    if not any_rows:
        print(f"speed_table.py: no ours-*.json, ab-*.json or torch-*.jsonl in {argv[1]}: "
              "did the speed stage run?", file=sys.stderr)
        return 1
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
