#!/usr/bin/env python3
"""Peer reference on a GPU: the seeds' LeNet and ResNet-18 trained by PyTorch on one GPU,
the data preloaded on the device (no loader in the way), as a user who wants speed would.

Usage: torch_gpu_ref.py MODEL --data DIR [--epochs E] [--batch-size S] [--lr LR]
                        [--precision fp32|tf32|bf16] [--channels-last]
fp32: TF32 off for convolutions and matmuls (the same maths as dp-train's default);
tf32: PyTorch's own default for convolutions, and matmuls too; bf16: torch.autocast.
Prints one JSON line per epoch.
"""
import argparse, gzip, json, os, sys, time
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

def idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    ndim = int.from_bytes(data[0:4], "big") & 0xFF
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(dims)

def find(d, stem):
    for name in (stem + ".gz", stem):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    raise SystemExit("missing " + stem)

class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 20, 3); self.c2 = nn.Conv2d(20, 50, 5)
        self.f1 = nn.Linear(800, 128); self.f2 = nn.Linear(128, 10)
    def forward(self, x):
        x = F.avg_pool2d(F.relu(self.c1(x)), 2)
        x = F.avg_pool2d(F.relu(self.c2(x)), 2)
        return self.f2(F.relu(self.f1(x.flatten(1))))

class Residual(nn.Module):
    def __init__(self, i, o, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.Conv2d(i, o, 3, padding=1, stride=strides)
        self.conv2 = nn.Conv2d(o, o, 3, padding=1)
        self.conv3 = nn.Conv2d(i, o, 1, stride=strides) if use_1x1conv else None
        self.bn1 = nn.BatchNorm2d(o); self.bn2 = nn.BatchNorm2d(o)
    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3 is not None: X = self.conv3(X)
        return F.relu(Y + X)

def resnet18():
    def block(i, o, n, first=False):
        return nn.Sequential(*[Residual(i, o, True, 2) if k == 0 and not first else Residual(o, o) for k in range(n)])
    net = nn.Sequential(nn.Conv2d(1, 64, 3, 1, 1), nn.BatchNorm2d(64), nn.ReLU())
    net.add_module("b1", block(64, 64, 2, True)); net.add_module("b2", block(64, 128, 2))
    net.add_module("b3", block(128, 256, 2)); net.add_module("b4", block(256, 512, 2))
    net.add_module("pool", nn.AdaptiveAvgPool2d((1, 1)))
    net.add_module("fc", nn.Sequential(nn.Flatten(), nn.Linear(512, 10)))
    return net

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model"); ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int, default=2); ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--lr", type=float, default=0.1); ap.add_argument("--precision", default="fp32")
    ap.add_argument("--channels-last", action="store_true")
    ap.add_argument("--limit-train", type=int, default=0)
    a = ap.parse_args()
    dev = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    tf32 = a.precision == "tf32"
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.manual_seed(0)
    Xtr = torch.from_numpy(idx(find(a.data, "train-images-idx3-ubyte")).astype(np.float32) / 255.0).unsqueeze(1).to(dev)
    ytr = torch.from_numpy(idx(find(a.data, "train-labels-idx1-ubyte")).astype(np.int64)).to(dev)
    Xte = torch.from_numpy(idx(find(a.data, "t10k-images-idx3-ubyte")).astype(np.float32) / 255.0).unsqueeze(1).to(dev)
    yte = torch.from_numpy(idx(find(a.data, "t10k-labels-idx1-ubyte")).astype(np.int64)).to(dev)
    net = (LeNet() if a.model == "lenet" else resnet18()).to(dev)
    fmt = torch.channels_last if a.channels_last else torch.contiguous_format
    net = net.to(memory_format=fmt)
    opt = torch.optim.SGD(net.parameters(), lr=a.lr)
    loss_fn = nn.CrossEntropyLoss()
    use_bf16 = a.precision == "bf16"
    if a.limit_train: Xtr, ytr = Xtr[:a.limit_train], ytr[:a.limit_train]
    n = Xtr.shape[0]
    for epoch in range(1, a.epochs + 1):
        net.train()
        torch.cuda.synchronize(); t0 = time.perf_counter()
        perm = torch.randperm(n, device=dev)
        total_loss = torch.zeros((), device=dev)
        for s in range(0, n, a.batch_size):
            ids = perm[s:s + a.batch_size]
            X = Xtr[ids].contiguous(memory_format=fmt); y = ytr[ids]
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_bf16):
                l = loss_fn(net(X), y)
            opt.zero_grad(set_to_none=True)
            l.backward(); opt.step()
            total_loss += l.detach() * len(ids)
        torch.cuda.synchronize(); train_sec = time.perf_counter() - t0
        net.eval(); correct = 0
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_bf16):
            for s in range(0, Xte.shape[0], 1024):
                correct += (net(Xte[s:s + 1024].contiguous(memory_format=fmt)).argmax(1) == yte[s:s + 1024]).sum().item()
        torch.cuda.synchronize(); sec = time.perf_counter() - t0
        print(json.dumps({"peer": "pytorch " + torch.__version__, "model": a.model, "precision": a.precision,
                          "channels_last": a.channels_last, "epoch": epoch, "train_sec": round(train_sec, 3),
                          "sec": round(sec, 3), "img_per_s": round(n / train_sec),
                          "train_loss": round((total_loss / n).item(), 4), "test_acc": correct / Xte.shape[0]}), flush=True)

if __name__ == "__main__":
    main()
