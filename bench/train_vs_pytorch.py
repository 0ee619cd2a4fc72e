#!/usr/bin/python3
"""Benchmark dp-train's LeNet (d2l 12.5) or ResNet-18 (d2l 12.6) against the same training in
PyTorch on CPU, next to the machine's measured convolution ceiling.

Prints one JSON object to stdout; progress goes to stderr. See bench/README.md.
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.utils.mkldnn
from torch import nn

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "golden"))
import machine  # noqa: E402  (bench/machine.py)
from make_golden import resnet18  # noqa: E402  (d2l's ResNet-18, the seed's nn.Sequential names)

DATA_DIR = "/usr/share/datasets/fashion-mnist"
BATCH_SIZE = 256
THREADS = 2
LIMITED_TEST_IMAGES = 1000  # test images evaluated when --limit-train is given
CEILING_INPUT = (64, 64, 28, 28)  # [N, C, H, W] of the ceiling's 64->64 3x3 convolution
CEILING_WARMUP, CEILING_ROUNDS, CEILING_ITERATIONS = 3, 5, 5  # best round of 5 x 5 iterations

COUNT_LINE = re.compile(r"(\d+) training and \d+ test images")
EPOCH_LINE = re.compile(r"epoch \d+/\d+: train loss \S+, train acc \S+, (?:test loss \S+, )?test acc ([\d.]+), ([\d.]+) sec")
SUMMARY_LINE = re.compile(r"sec/epoch on \[(.*)\]")


def log(message):
    print(message, file=sys.stderr, flush=True)


def machine_info():
    return dict(machine.cpu_description(), load_avg_1min=os.getloadavg()[0])


def loaded_blas():
    """The BLAS libraries this process (PyTorch) has mapped: OpenBLAS as its users have it, or
    the reference BLAS that makes it several times slower (MEASURING.md)."""
    torch.ones(64, 64) @ torch.ones(64, 64)  # make sure the BLAS is loaded
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "blas" in line.rsplit("/", 1)[-1]}
    return sorted(os.path.realpath(p) for p in paths)


def lenet():
    """d2l 12.5's LeNet."""
    return nn.Sequential(
        nn.Conv2d(1, 20, kernel_size=3), nn.ReLU(), nn.AvgPool2d(2),
        nn.Conv2d(20, 50, kernel_size=5), nn.ReLU(), nn.AvgPool2d(2),
        nn.Flatten(),
        nn.Linear(800, 128), nn.ReLU(),
        nn.Linear(128, 10))


# name -> (constructor, SGD learning rate): lr 0.2 is d2l 12.5's, 0.1 seed 000's 1-GPU ResNet run.
MODELS = {
    "lenet": (lenet, 0.2),
    "resnet18": (lambda: resnet18(10, 1), 0.1),
}


def build_model(name):
    """The model initialised as the seed (and dp-train): conv/linear weights N(0, 0.01), biases 0,
    BatchNorm scale 1 and shift 0 (PyTorch's defaults)."""
    net = MODELS[name][0]()
    for layer in net.modules():
        if isinstance(layer, (nn.Conv2d, nn.Linear)):
            nn.init.normal_(layer.weight, 0, 0.01)
            nn.init.zeros_(layer.bias)
    return net


def forward_macs_per_image(net, image_shape=(1, 28, 28)):
    """Multiply-adds of the conv and linear layers for one image, from the shapes seen by forward
    hooks."""
    macs = 0

    def count(layer, inputs, output):
        nonlocal macs
        if isinstance(layer, nn.Conv2d):
            macs += output.numel() * layer.weight[0].numel()  # (C_in / groups) x kH x kW each
        else:
            macs += layer.in_features * layer.out_features

    hooks = [m.register_forward_hook(count) for m in net.modules()
             if isinstance(m, (nn.Conv2d, nn.Linear))]
    net.eval()
    with torch.no_grad():
        net(torch.zeros(1, *image_shape))
    for hook in hooks:
        hook.remove()
    return macs


def conv_ceiling():
    """GFLOP/s of a large float32 3x3 convolution (64->64 channels, padding 1) on oneDNN's blocked
    layout (PyTorch's mkldnn tensors: the jit kernel alone, no reorders), forward only, on THREADS
    threads: what the achieved GFLOP/s compare with. The fastest of CEILING_ROUNDS timed rounds
    counts, so that other load on the machine lowers it less."""
    torch.set_num_threads(THREADS)
    n, c, h, w = CEILING_INPUT
    conv = torch.utils.mkldnn.to_mkldnn(nn.Conv2d(c, c, kernel_size=3, padding=1))
    x = torch.randn(*CEILING_INPUT).to_mkldnn()
    flop_per_round = 2 * n * c * h * w * c * 3 * 3 * CEILING_ITERATIONS
    round_gflop_s = []
    with torch.no_grad():
        for _ in range(CEILING_WARMUP):
            conv(x)
        for _ in range(CEILING_ROUNDS):
            start = time.perf_counter()
            for _ in range(CEILING_ITERATIONS):
                conv(x)
            round_gflop_s.append(flop_per_round / (time.perf_counter() - start) / 1e9)
    log("ceiling rounds (GFLOP/s): " + ", ".join(f"{g:.1f}" for g in round_gflop_s))
    return {"op": f"conv2d {c}->{c} 3x3 pad 1 on {list(CEILING_INPUT)}, forward, blocked layout",
            "threads": THREADS, "rounds": CEILING_ROUNDS, "iterations_per_round": CEILING_ITERATIONS,
            "gflop_s": max(round_gflop_s)}


def load_split(prefix, limit):
    """The first `limit` images (all if None) as float32 NCHW in [0, 1] and labels as int64, from
    the gzipped IDX files."""
    with gzip.open(os.path.join(DATA_DIR, f"{prefix}-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16)
    with gzip.open(os.path.join(DATA_DIR, f"{prefix}-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    images = images.reshape(-1, 1, 28, 28)[:limit].astype(np.float32) / 255
    return torch.from_numpy(images), torch.from_numpy(labels[:limit].astype(np.int64))


def evaluate(net, images, labels, precision):
    """Test accuracy, in the precision the model trained in (dp-train evaluates so too)."""
    net.eval()
    correct = 0
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
        for i in range(0, len(labels), BATCH_SIZE):
            predicted = net(images[i:i + BATCH_SIZE]).argmax(1)
            correct += (predicted == labels[i:i + BATCH_SIZE]).sum().item()
    return correct / len(labels)


def train_pytorch(model, epochs, limit_train, limit_test, precision):
    """Train as d2l's train_ch6 does; returns per-epoch seconds, the final test accuracy and
    training images per epoch. bf16: forward and loss under torch.autocast("cpu", bfloat16),
    PyTorch's mixed precision (float32 weights, gradients and SGD), as dp-train's bf16 is."""
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    train_x, train_y = load_split("train", limit_train)
    test_x, test_y = load_split("t10k", limit_test)
    net = build_model(model)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=MODELS[model][1])
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
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
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
    return seconds, evaluate(net, test_x, test_y, precision), len(train_y)


def train_dp(dp_train, model, epochs, limit_train, limit_test, data_dir, precision):
    """Run the dp-train CLI with its kernel cache and history in `data_dir`; returns per-epoch
    seconds (exact, from its run record), final test accuracy, training images per epoch and
    devices."""
    if not os.access(dp_train, os.X_OK):
        sys.exit(f"{dp_train} not found: build it first (see bench/README.md)")
    record = os.path.join(data_dir, "run.json")
    command = [dp_train, "--model", model, "--batch-size", str(BATCH_SIZE),
               "--lr", str(MODELS[model][1]), "--epochs", str(epochs), "--no-history",
               "--precision", precision, "--record", record]
    if limit_train is not None:
        command += ["--limit-train", str(limit_train), "--limit-test", str(limit_test)]
    log("running " + " ".join(command))
    env = dict(os.environ, DP_WORKBENCH_DATA_DIR=data_dir)
    env.pop("DP_KERNEL_TUNING", None)  # kernels chosen as users get them: measured, then cached
    test_acc, samples, devices = None, None, None
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) as process:
        for line in process.stdout:
            log("dp-train: " + line.rstrip())
            if match := COUNT_LINE.search(line):
                samples = int(match[1])
            elif match := EPOCH_LINE.search(line):
                test_acc = float(match[1])
            elif match := SUMMARY_LINE.search(line):
                devices = match[1]
    with open(record) as f:
        seconds = [epoch["seconds"] for epoch in json.load(f)["epochs"]]
    if process.returncode != 0 or len(seconds) != epochs:
        sys.exit(f"dp-train failed (exit {process.returncode}, {len(seconds)}/{epochs} epochs)")
    return seconds, test_acc, samples, devices


def summarize(seconds, test_acc, samples_per_epoch, flop_per_sample, ceiling_gflop_s):
    total = sum(seconds)
    samples = samples_per_epoch * len(seconds)
    return {
        "sec_per_epoch": total / len(seconds),
        "flop_floor_sec_per_epoch": samples_per_epoch * flop_per_sample / ceiling_gflop_s / 1e9,
        "epoch_seconds": seconds,
        "samples_per_s": samples / total,
        "achieved_gflop_s": samples * flop_per_sample / total / 1e9,
        "test_acc": test_acc,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", choices=sorted(MODELS), default="lenet",
                        help="model to train (default lenet)")
    parser.add_argument("--epochs", type=int, default=2, help="epochs for both (default 2)")
    parser.add_argument("--limit-train", type=int, metavar="N",
                        help="train both on the first N training images only (default all 60000) "
                             f"and test on the first {LIMITED_TEST_IMAGES} test images")
    parser.add_argument("--dp-train", default=os.path.join(REPO_ROOT, "build/release/app/dp-train"),
                        help="dp-train binary (default build/release/app/dp-train in the repo)")
    parser.add_argument("--skip-pytorch", action="store_true", help="run dp-train only")
    parser.add_argument("--precision", choices=["fp32", "fp32-fast", "bf16"], default="fp32",
                        help="fp32 (default); fp32-fast: dp-train's kernels chosen by speed alone "
                             "against PyTorch's fp32 (what the accuracy rule costs); or bf16: "
                             "dp-train --precision bf16 against PyTorch under "
                             "torch.autocast('cpu', dtype=torch.bfloat16)")
    args = parser.parse_args()
    limit_test = LIMITED_TEST_IMAGES if args.limit_train is not None else None

    macs = forward_macs_per_image(build_model(args.model))
    flop_per_sample = 3 * 2 * macs  # forward + backward (~2x forward), 2 FLOP per multiply-add
    ceiling = conv_ceiling()
    result = {
        "machine": machine_info(),
        "ceiling": ceiling,
        "model": {"name": args.model, "forward_macs_per_image": macs,
                  "train_flop_per_image": flop_per_sample},
        "epochs": args.epochs,
        "batch_size": BATCH_SIZE,
        "lr": MODELS[args.model][1],
        "precision": args.precision,
        "limit_train": args.limit_train,
        "limit_test": limit_test,
    }

    # One epoch on a cold kernel cache (every convolution's layouts timed on first use), then
    # the measured run in a second process that reads the cache, as users' later runs do.
    with tempfile.TemporaryDirectory() as data_dir:
        cold = train_dp(args.dp_train, args.model, 1, args.limit_train, limit_test, data_dir,
                        args.precision)[0]
        seconds, test_acc, samples, devices = train_dp(args.dp_train, args.model, args.epochs,
                                                       args.limit_train, limit_test, data_dir,
                                                       args.precision)
    result["kernel_tuning"] = {"cold_cache_first_epoch_s": cold[0],
                               "warm_cache_first_epoch_s": seconds[0],
                               "cost_s": cold[0] - seconds[0]}
    result["dp_train"] = summarize(seconds, test_acc, samples, flop_per_sample, ceiling["gflop_s"])
    result["dp_train"]["devices"] = devices

    if not args.skip_pytorch:
        seconds, test_acc, samples = train_pytorch(args.model, args.epochs, args.limit_train,
                                                   limit_test, args.precision)
        result["pytorch"] = summarize(seconds, test_acc, samples, flop_per_sample, ceiling["gflop_s"])
        result["pytorch"].update(threads=torch.get_num_threads(), version=torch.__version__,
                                 blas=loaded_blas())
        result["speedup"] = result["pytorch"]["sec_per_epoch"] / result["dp_train"]["sec_per_epoch"]

    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
