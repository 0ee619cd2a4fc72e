#!/usr/bin/python3
"""Checkpoints cross both ways between dp-train and the seeds' PyTorch models.

1. dp-train trains MODEL for one epoch and saves a checkpoint;
   PyTorch loads it with load_state_dict(strict=True) and evaluates it on the
   10,000 test images: the accuracy must be the one dp-train printed.
2. PyTorch takes one SGD step and saves its state_dict as safetensors;
   dp-train loads it (--epochs 0) and evaluates it: same accuracy as PyTorch's.

Needs Debian's python3-torch (scripts/setup --bench). Usage:
  tests/io/torch_checkpoint_roundtrip.py [--model lenet] [--dp-train build/release/app/dp-train]
"""
import argparse
import gzip
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "golden"))
import make_golden as golden  # noqa: E402  (the seeds' models, named as their state_dicts)

BUILDERS = {
    "lenet": golden.LeNet,
    "mnistnet": lambda: golden.MnistNet(dropout=False),  # evaluation: dropout is identity anyway
    "resnet18-narrow": lambda: golden.resnet18(10, 1, widths=(8, 8, 16, 32, 64)),
    "resnet18": lambda: golden.resnet18(10, 1),
}
NP_DTYPES = {"F32": "<f4", "I64": "<i8"}


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + length])
    header.pop("__metadata__", None)
    data = blob[8 + length:]
    return {name: torch.from_numpy(np.frombuffer(data[begin:end], NP_DTYPES[entry["dtype"]])
                                   .reshape(entry["shape"]).copy())
            for name, entry in header.items()
            for begin, end in [entry["data_offsets"]]}


def test_set():
    folder = "/usr/share/datasets/fashion-mnist"
    with gzip.open(os.path.join(folder, "t10k-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).astype(np.float32) / np.float32(255)
    with gzip.open(os.path.join(folder, "t10k-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
    return torch.from_numpy(images.reshape(-1, 1, 28, 28)), torch.from_numpy(labels)


def accuracy(model, images, labels):
    model.eval()
    with torch.no_grad():
        predicted = torch.cat([model(images[i:i + 1000]).argmax(1) for i in range(0, len(images), 1000)])
    return (predicted == labels).float().mean().item()


def dp_train(binary, *args):
    result = subprocess.run([binary, *args], capture_output=True, text=True, check=True)
    return result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="lenet", choices=sorted(BUILDERS))
    parser.add_argument("--dp-train", default=os.path.join(ROOT, "build/release/app/dp-train"))
    args = parser.parse_args()
    torch.set_num_threads(2)
    images, labels = test_set()
    with tempfile.TemporaryDirectory() as tmp:
        ours = os.path.join(tmp, "dp-train.safetensors")
        out = dp_train(args.dp_train, "--model", args.model, "--epochs", "1", "--limit-train", "16384",
                       "--batch-size", "32", "--lr", "0.2", "--save", ours)
        dp_acc = float(re.findall(r"test acc ([0-9.]+)", out)[-1])
        model = BUILDERS[args.model]()
        model.load_state_dict(read_safetensors(ours), strict=True)
        torch_acc = accuracy(model, images, labels)
        print(f"dp-train -> PyTorch: dp-train test acc {dp_acc:.3f}, PyTorch on its checkpoint {torch_acc:.4f}")

        model.train()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        loss = torch.nn.functional.cross_entropy(model(images[:64]), labels[:64])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        theirs = os.path.join(tmp, "pytorch.safetensors")
        golden.save_safetensors(theirs, model.state_dict(), {})
        torch_acc2 = accuracy(model, images, labels)
        out = dp_train(args.dp_train, "--model", args.model, "--load", theirs, "--epochs", "0")
        dp_acc2 = float(re.findall(r"test acc: ([0-9.]+) \(evaluation only\)", out)[-1])
        print(f"PyTorch -> dp-train: PyTorch test acc {torch_acc2:.4f}, dp-train on its checkpoint {dp_acc2:.4f}")
    ok = abs(dp_acc - torch_acc) <= 0.0015 and abs(dp_acc2 - torch_acc2) <= 0.0015
    print("round trip", "OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
