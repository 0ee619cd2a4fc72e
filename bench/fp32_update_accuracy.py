#!/usr/bin/python3
"""How far dp-train's fp32 update lands from float64, next to PyTorch's own fp32 (issue 40, item 2).

ResNet-18 (d2l, 28x28 Fashion-MNIST) is trained in PyTorch float32 for --warmup-steps steps at
batch --batch from make_golden's init (a start that is no longer chaotic: MEASURING.md); from that
checkpoint, two plain SGD steps (lr 0.1) on training images 0 .. 2*batch-1 in file order run
  - in PyTorch float64 (the reference) and float32,
  - in dp-train on one CPU device with a cold kernel cache (the kernel cache's own choices,
    measured in this run) and with DP_KERNEL_TUNING=fixed (direct kernels, never measured),
and each run's error is ||end - end64|| / ||end64 - start|| over every parameter, its median over
--starts starts (the checkpoint and copies nudged by an ulp: single runs are chaotic).
Acceptance: dp-train's median error with the cache's choices is at most 2x PyTorch float32's.

Needs Debian's python3-torch (scripts/setup --bench). Takes 15-20 minutes on 2 cores, most of it
the PyTorch warm-up and float64 steps, which are kept in --work and reused by later runs. Usage:
  /usr/bin/python3 bench/fp32_update_accuracy.py [--dp-train build/release/app/dp-train]
Prints one JSON object on stdout; exits 1 when the acceptance bar is missed.
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

import torch
from torch import nn

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "golden"))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "io"))
import make_golden as golden  # noqa: E402  (d2l's ResNet-18 with the seed's names, its init, safetensors)
import torch_checkpoint_roundtrip  # noqa: E402
from torch_checkpoint_roundtrip import read_safetensors  # noqa: E402

# PyTorch's float64 run is kept too: the safetensors writer and reader learn F64.
golden.DTYPES[torch.float64] = ("F64", "<f8")
torch_checkpoint_roundtrip.NP_DTYPES["F64"] = "<f8"

LR = 0.1
COMPARED_STEPS = 2
ACCEPTABLE_RATIO = 2.0  # dp-train's error at most 2x PyTorch float32's


def log(message):
    print(message, file=sys.stderr, flush=True)


def steps(model, images, labels, batch, count, dtype):
    """`count` plain SGD steps, step s on images s*batch .. (s+1)*batch-1, training mode."""
    model = model.to(dtype)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.0, weight_decay=0.0)
    for s in range(count):
        x, y = images[s * batch:(s + 1) * batch].to(dtype), labels[s * batch:(s + 1) * batch]
        optimizer.zero_grad(set_to_none=False)
        nn.CrossEntropyLoss()(model(x), y).backward()
        optimizer.step()
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def warm_start(path, warmup_steps, batch):
    """The checkpoint after `warmup_steps` float32 steps on images 2*batch.. (not the compared
    ones), from make_golden's init (seed 42); made once and kept at `path`."""
    settings = {"warmup_steps": warmup_steps, "batch": batch, "lr": LR, "init": "make_golden seed 42"}
    if os.path.exists(path) and os.path.exists(path + ".json"):
        with open(path + ".json") as f:
            if json.load(f) == settings:
                log(f"reusing the warm start {path}")
                return read_safetensors(path)
    first = COMPARED_STEPS * batch
    images, labels = golden.load_fashion_mnist(first + warmup_steps * batch)
    torch.manual_seed(golden.SEED)
    model = golden.resnet18(10, 1)
    golden.init_weights(model)
    log(f"PyTorch float32: {warmup_steps} warm-up steps at batch {batch} ...")
    started = time.perf_counter()
    state = steps(model, images[first:], labels[first:], batch, warmup_steps, torch.float32)
    log(f"  {time.perf_counter() - started:.0f} s")
    golden.save_safetensors(path, state, {"warm_start": json.dumps(settings)})
    with open(path + ".json", "w") as f:
        json.dump(settings, f)
    return state


def update_error(end, reference, start, names):
    num = den = 0.0
    for k in names:
        a, b, c = end[k].double(), reference[k].double(), start[k].double()
        num += ((a - b) ** 2).sum().item()
        den += ((b - c) ** 2).sum().item()
    return (num / den) ** 0.5


def run_dp_train(dp_train, start_path, batch, tuning, precision, data_dir):
    """Two steps in dp-train from the start with the kernel cache in `data_dir`; its end state and
    the kernel lines --verbose printed."""
    end_path = os.path.join(data_dir, "end.safetensors")
    command = [dp_train, "--model", "resnet18", "--load", start_path, "--save", end_path,
               "--epochs", "1", "--limit-train", str(COMPARED_STEPS * batch), "--limit-test", "100",
               "--batch-size", str(batch), "--lr", str(LR), "--no-shuffle", "--devices", "cpu:0",
               "--precision", precision, "--no-history", "--verbose"]
    env = dict(os.environ, DP_WORKBENCH_DATA_DIR=data_dir)
    env.pop("DP_KERNEL_TUNING", None)
    if tuning == "fixed":
        env["DP_KERNEL_TUNING"] = "fixed"
    log(f"running ({tuning}): " + " ".join(command))
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"dp-train failed ({tuning}): {result.stderr.strip()}")
    kernels = [line.strip() for line in result.stdout.splitlines() if re.match(r"\s+kernel ", line)]
    for line in kernels:
        log("  " + line)
    return read_safetensors(end_path), kernels, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dp-train", default=os.path.join(REPO_ROOT, "build/release/app/dp-train"))
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "dp-fp32-update-accuracy"),
                        help="folder for the warm start (reused) and the runs' kernel caches")
    parser.add_argument("--warmup-steps", type=int, default=60)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--precision", default="fp32", help="dp-train's --precision (fp32 or fp32-fast)")
    parser.add_argument("--starts", type=int, default=3,
                        help="the checkpoint and STARTS-1 copies with every parameter moved by -1, 0 or +1 ulp "
                             "at random: one ReLU input within rounding of zero can move a run's error 10x, "
                             "so each run's error is the median over the starts")
    args = parser.parse_args()
    if not os.access(args.dp_train, os.X_OK):
        sys.exit(f"{args.dp_train} not found: build it first (cmake --build --preset release)")
    os.makedirs(args.work, exist_ok=True)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)

    start_path = os.path.join(args.work, f"start-{args.warmup_steps}x{args.batch}.safetensors")
    start = warm_start(start_path, args.warmup_steps, args.batch)
    images, labels = golden.load_fashion_mnist(COMPARED_STEPS * args.batch)
    params = [k for k, _ in golden.resnet18(10, 1).named_parameters()]

    def pytorch(dtype):
        """PyTorch's two steps in `dtype`, kept beside the warm start (float64 takes minutes)."""
        path = start_path.replace(".safetensors", f"-end-{str(dtype).split('.')[-1]}.safetensors")
        if os.path.exists(path) and os.path.getmtime(path) > os.path.getmtime(start_path):
            log(f"reusing PyTorch's {dtype} steps {path}")
            return read_safetensors(path)
        model = golden.resnet18(10, 1)
        model.load_state_dict(start)
        log(f"PyTorch {dtype}: {COMPARED_STEPS} steps ...")
        end = steps(model, images, labels, args.batch, COMPARED_STEPS, dtype)
        golden.save_safetensors(path, end, {})
        return end

    end64 = pytorch(torch.float64)  # the reference for every start: a nudge is 1e-6 of the update
    runs = {"pytorch_fp32": [update_error(pytorch(torch.float32), end64, start, params)],
            "dp_train_cached": [], "dp_train_fixed": []}
    # One kernel cache for every start, cold at the first: the cache's own choices, as later runs get them.
    caches = {tuning: tempfile.mkdtemp(prefix=f"kernels-{tuning}-", dir=args.work) for tuning in ("cached", "fixed")}
    kernels, seconds = {}, {}
    generator = torch.Generator().manual_seed(golden.SEED)
    for index in range(args.starts):
        path = start_path
        if index > 0:
            nudged = golden.nudge_ulps(start, params, generator)
            path = os.path.join(args.work, f"nudged-{index}.safetensors")
            golden.save_safetensors(path, nudged, {})
            model = golden.resnet18(10, 1)
            model.load_state_dict(nudged)
            log(f"PyTorch float32 from nudged start {index} ...")
            runs["pytorch_fp32"].append(update_error(steps(model, images, labels, args.batch, COMPARED_STEPS,
                                                           torch.float32), end64, start, params))
        for tuning, data_dir in caches.items():
            end, lines, took = run_dp_train(args.dp_train, path, args.batch, tuning, args.precision, data_dir)
            kernels.setdefault(tuning, lines)
            seconds.setdefault(tuning, []).append(took)
            runs["dp_train_" + tuning].append(update_error(end, end64, start, params))
        log("errors so far: " + ", ".join(f"{k} {' '.join(f'{e:.2e}' for e in v)}" for k, v in runs.items()))
    errors = {name: statistics.median(values) for name, values in runs.items()}
    ratio = errors["dp_train_cached"] / errors["pytorch_fp32"]
    passed = ratio <= ACCEPTABLE_RATIO
    for name, error in errors.items():
        log(f"{name:>16}: median update error {error:.3e} vs float64 "
            f"({error / errors['pytorch_fp32']:.2f}x PyTorch fp32's)")
    print(json.dumps({
        "model": "resnet18 28x28", "warmup_steps": args.warmup_steps, "batch": args.batch,
        "compared_steps": COMPARED_STEPS, "precision": args.precision, "starts": args.starts,
        "errors_median": errors, "errors_per_start": runs,
        "cached_over_pytorch": ratio, "acceptable_ratio": ACCEPTABLE_RATIO, "passed": passed,
        "dp_train_seconds": seconds, "kernels_cached": kernels["cached"],
        "load_avg_1min": os.getloadavg()[0]}, indent=1))
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
