#!/usr/bin/python3
"""Benchmark dp-train's LeNet (d2l 12.5) against the same training in PyTorch on CPU.

Prints one JSON object to stdout; progress goes to stderr. See bench/README.md.
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch
from torch import nn

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = "/usr/share/datasets/fashion-mnist"
BATCH_SIZE = 256
LR = 0.2
THREADS = 2

COUNT_LINE = re.compile(r"(\d+) training and \d+ test images")
EPOCH_LINE = re.compile(r"epoch \d+/\d+: train loss \S+, train acc \S+, test acc ([\d.]+), ([\d.]+) sec")
SUMMARY_LINE = re.compile(r"sec/epoch on \[(.*)\]")


def log(message):
    print(message, file=sys.stderr, flush=True)


def machine_info():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"nproc": os.cpu_count(), "cpu_model": model, "load_avg_1min": os.getloadavg()[0]}


def lenet():
    """d2l 12.5's LeNet, initialised as the seed: weights N(0, 0.01), biases 0."""
    net = nn.Sequential(
        nn.Conv2d(1, 20, kernel_size=3), nn.ReLU(), nn.AvgPool2d(2),
        nn.Conv2d(20, 50, kernel_size=5), nn.ReLU(), nn.AvgPool2d(2),
        nn.Flatten(),
        nn.Linear(800, 128), nn.ReLU(),
        nn.Linear(128, 10))
    for layer in net:
        if isinstance(layer, (nn.Conv2d, nn.Linear)):
            nn.init.normal_(layer.weight, 0, 0.01)
            nn.init.zeros_(layer.bias)
    return net


def forward_macs_per_image(net, image_shape=(1, 28, 28)):
    """Multiply-adds of the conv and linear layers for one image, from the layer shapes."""
    macs = 0
    x = torch.zeros(1, *image_shape)
    with torch.no_grad():
        for layer in net:
            y = layer(x)
            if isinstance(layer, nn.Conv2d):
                macs += y.numel() * layer.in_channels * layer.weight[0, 0].numel()
            elif isinstance(layer, nn.Linear):
                macs += layer.in_features * layer.out_features
            x = y
    return macs


def load_split(prefix):
    """Images as float32 NCHW in [0, 1] and labels as int64, from the gzipped IDX files."""
    with gzip.open(os.path.join(DATA_DIR, f"{prefix}-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16)
    with gzip.open(os.path.join(DATA_DIR, f"{prefix}-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    images = images.reshape(-1, 1, 28, 28).astype(np.float32) / 255
    return torch.from_numpy(images), torch.from_numpy(labels.astype(np.int64))


def evaluate(net, images, labels):
    net.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(labels), BATCH_SIZE):
            predicted = net(images[i:i + BATCH_SIZE]).argmax(1)
            correct += (predicted == labels[i:i + BATCH_SIZE]).sum().item()
    return correct / len(labels)


def train_pytorch(epochs):
    """Train as d2l's train_ch6 does; returns per-epoch seconds, the final test accuracy and
    training images per epoch."""
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    train_x, train_y = load_split("train")
    test_x, test_y = load_split("t10k")
    net = lenet()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=LR)
    seconds = []
    for epoch in range(1, epochs + 1):
        net.train()
        loss_sum, correct = 0.0, 0
        start = time.perf_counter()
        order = torch.randperm(len(train_y))
        for i in range(0, len(train_y), BATCH_SIZE):
            batch = order[i:i + BATCH_SIZE]
            x, y = train_x[batch], train_y[batch]
            optimizer.zero_grad()
            logits = net(x)
            loss = loss_fn(logits, y)
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                loss_sum += loss.item() * len(y)
                correct += (logits.argmax(1) == y).sum().item()
        seconds.append(time.perf_counter() - start)
        log(f"pytorch epoch {epoch}/{epochs}: train loss {loss_sum / len(train_y):.4f}, "
            f"train acc {correct / len(train_y):.3f}, {seconds[-1]:.1f} sec")
    return seconds, evaluate(net, test_x, test_y), len(train_y)


def train_dp(dp_train, epochs):
    """Run the dp-train CLI; returns per-epoch seconds, final test accuracy, training images
    per epoch and devices."""
    if not os.access(dp_train, os.X_OK):
        sys.exit(f"{dp_train} not found: build it first (see bench/README.md)")
    command = [dp_train, "--model", "lenet", "--batch-size", str(BATCH_SIZE),
               "--lr", str(LR), "--epochs", str(epochs)]
    log("running " + " ".join(command))
    seconds, test_acc, samples, devices = [], None, None, None
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        for line in process.stdout:
            log("dp-train: " + line.rstrip())
            if match := COUNT_LINE.search(line):
                samples = int(match[1])
            elif match := EPOCH_LINE.search(line):
                test_acc = float(match[1])
                seconds.append(float(match[2]))
            elif match := SUMMARY_LINE.search(line):
                devices = match[1]
    if process.returncode != 0 or len(seconds) != epochs:
        sys.exit(f"dp-train failed (exit {process.returncode}, {len(seconds)}/{epochs} epochs)")
    return seconds, test_acc, samples, devices


def summarize(seconds, test_acc, samples_per_epoch, flop_per_sample):
    total = sum(seconds)
    samples = samples_per_epoch * len(seconds)
    return {
        "sec_per_epoch": total / len(seconds),
        "epoch_seconds": seconds,
        "samples_per_s": samples / total,
        "achieved_gflop_s": samples * flop_per_sample / total / 1e9,
        "test_acc": test_acc,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=2, help="epochs for both (default 2)")
    parser.add_argument("--dp-train", default=os.path.join(REPO_ROOT, "build/release/app/dp-train"),
                        help="dp-train binary (default build/release/app/dp-train in the repo)")
    parser.add_argument("--skip-pytorch", action="store_true", help="run dp-train only")
    args = parser.parse_args()

    macs = forward_macs_per_image(lenet())
    flop_per_sample = 3 * 2 * macs  # forward + backward (~2x forward), 2 FLOP per multiply-add
    result = {
        "machine": machine_info(),
        "model": {"forward_macs_per_image": macs, "train_flop_per_image": flop_per_sample},
        "epochs": args.epochs,
        "batch_size": BATCH_SIZE,
        "lr": LR,
    }

    seconds, test_acc, samples, devices = train_dp(args.dp_train, args.epochs)
    result["dp_train"] = summarize(seconds, test_acc, samples, flop_per_sample)
    result["dp_train"]["devices"] = devices

    if not args.skip_pytorch:
        seconds, test_acc, samples = train_pytorch(args.epochs)
        result["pytorch"] = summarize(seconds, test_acc, samples, flop_per_sample)
        result["pytorch"].update(threads=torch.get_num_threads(), version=torch.__version__)
        result["speedup"] = result["pytorch"]["sec_per_epoch"] / result["dp_train"]["sec_per_epoch"]

    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
