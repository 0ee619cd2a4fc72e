#!/usr/bin/python3
"""Write the golden reference files tests/golden/<model>.safetensors from PyTorch.

Run from anywhere:  /usr/bin/python3 tests/golden/make_golden.py
(Debian's python3-torch; the pyenv `python3` on PATH has no torch.)

For each model (lenet, mnistnet, resnet18-narrow) the file holds, all float32 unless noted:
  init.<name>    every parameter and buffer of the initial state_dict (num_batches_tracked as I64)
  input          [16,1,28,28]  Fashion-MNIST training images 0..15, pixels/255, NCHW
  labels         [16] I64      their labels
  logits         [16,10]       model output of the first forward (training mode) from the initial
                               state; raw logits for lenet/resnet, log-probabilities for mnistnet
  loss           []            mean loss of that forward (CrossEntropyLoss / nll_loss)
  grad.<param>   gradient of `loss` w.r.t. every parameter (not buffers)
  trajectory     [10]          loss before each of 10 plain SGD steps (lr 0.1, no momentum, no
                               weight decay) on the same batch; trajectory[0] == loss
  final.<name>   every parameter and buffer after the 10 steps (BN running stats included)
  step1.<name>   resnet18-narrow only: every parameter and buffer after exactly one SGD step
                 (its 10-step run is chaotic in float32; see README.md and the f64_* metadata)

resnet18 (the full 11,175,818-parameter model) is different: two SGD steps from a trained start
(see make_resnet18 and README.md, "resnet18.safetensors"), stored compactly:
  start.<name>, start_q8.<name>, start_exp.<name>   the start (8-bit codes for conv/linear weights)
  input, labels                                     as above (images 0..15)
  trajectory     [2]           loss before each of the two steps (float64 run)
  update.<param> the float64 run's update (after two steps minus start), every element of a
                 tensor up to 4096 elements, else every 31st (flat index 0, 31, 62, ...)
  final.<buffer> BN buffers after the two steps (float64 run)
The safetensors container is written by hand (no safetensors package on Debian 12).
"""
import copy
import gzip
import json
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 42
LR = 0.1
STEPS = 10
BATCH = 16
DATA_DIR = "/usr/share/datasets/fashion-mnist"

# Full ResNet-18 (make_resnet18): pretraining to a well-conditioned start, then two compared steps.
PRE_STEPS = 30          # SGD steps from the init to the start
PRE_BATCH = 32          # on images BATCH.., BATCH + PRE_STEPS * PRE_BATCH (not the compared batch)
COMPARED_STEPS = 2
SAMPLE_STRIDE = 31      # update.<param>: every element up to SAMPLE_ALL elements, else every 31st
SAMPLE_ALL = 4096
ULP_RUNS = 6            # float32 runs from the start with every parameter nudged by -1, 0 or +1 ulp
OUT_DIR = os.path.dirname(os.path.abspath(__file__))

INIT_DESC = (
    "torch.manual_seed(SEED) then the model is constructed (PyTorch default init, all overwritten); "
    "then, iterating model.modules() in order and within a module in the order weight, bias: "
    "Conv2d/Linear weight ~ normal(0, 0.01), Conv2d/Linear bias ~ normal(0, 0.01); "
    "BatchNorm2d weight = 1 + normal(0, 0.1), BatchNorm2d bias ~ normal(0, 0.1); "
    "BN running_mean=0, running_var=1, num_batches_tracked=0 (PyTorch defaults)"
)


# --------------------------------------------------------------------------- data
def load_fashion_mnist(n):
    with gzip.open(os.path.join(DATA_DIR, "train-images-idx3-ubyte.gz"), "rb") as f:
        buf = f.read()
    magic, count, rows, cols = struct.unpack(">IIII", buf[:16])
    assert magic == 2051 and rows == 28 and cols == 28 and count >= n
    images = np.frombuffer(buf, dtype=np.uint8, count=n * rows * cols, offset=16)
    images = (images.astype(np.float32) / np.float32(255.0)).reshape(n, 1, rows, cols)
    with gzip.open(os.path.join(DATA_DIR, "train-labels-idx1-ubyte.gz"), "rb") as f:
        buf = f.read()
    magic, count = struct.unpack(">II", buf[:8])
    assert magic == 2049 and count >= n
    labels = np.frombuffer(buf, dtype=np.uint8, count=n, offset=8).astype(np.int64)
    return torch.from_numpy(images.copy()), torch.from_numpy(labels.copy())


# --------------------------------------------------------------------------- models
class LeNet(nn.Module):
    """d2l 12.5 LeNet (the data-parallel chapter's variant)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 20, kernel_size=3)
        self.conv2 = nn.Conv2d(20, 50, kernel_size=5)
        self.fc1 = nn.Linear(800, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.avg_pool2d(F.relu(self.conv1(x)), 2)   # 28 -> 26 -> 13
        x = F.avg_pool2d(F.relu(self.conv2(x)), 2)   # 13 -> 9 -> 4
        x = torch.flatten(x, 1)                      # 50*4*4 = 800
        x = F.relu(self.fc1(x))
        return self.fc2(x)


class MnistNet(nn.Module):
    """CNN of PyTorch's MNIST example; dropout=False makes both dropouts identity."""

    def __init__(self, dropout=True):
        super().__init__()
        self.use_dropout = dropout
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))   # 28 -> 24 -> 12
        y = self.conv2(x)                            # 12 -> 8
        if self.use_dropout:
            y = self.conv2_drop(y)
        x = F.relu(F.max_pool2d(y, 2))               # 8 -> 4
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        if self.use_dropout:
            x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


class Residual(nn.Module):  # d2l.Residual
    def __init__(self, input_channels, num_channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.Conv2d(input_channels, num_channels, kernel_size=3, padding=1, stride=strides)
        self.conv2 = nn.Conv2d(num_channels, num_channels, kernel_size=3, padding=1)
        self.conv3 = (nn.Conv2d(input_channels, num_channels, kernel_size=1, stride=strides)
                      if use_1x1conv else None)
        self.bn1 = nn.BatchNorm2d(num_channels)
        self.bn2 = nn.BatchNorm2d(num_channels)

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        Y += X
        return F.relu(Y)


def resnet18(num_classes, in_channels=1, widths=(64, 64, 128, 256, 512)):
    """d2l ResNet-18 (seed 000); widths = (stem, stage1, stage2, stage3, stage4)."""
    def resnet_block(in_channels, out_channels, num_residuals, first_block=False):
        blk = []
        for i in range(num_residuals):
            if i == 0 and not first_block:
                blk.append(Residual(in_channels, out_channels, use_1x1conv=True, strides=2))
            else:
                blk.append(Residual(out_channels, out_channels))
        return nn.Sequential(*blk)

    stem, w1, w2, w3, w4 = widths
    assert stem == w1, "first_block keeps the channel count"
    net = nn.Sequential(nn.Conv2d(in_channels, stem, kernel_size=3, stride=1, padding=1),
                        nn.BatchNorm2d(stem), nn.ReLU())
    net.add_module("resnet_block1", resnet_block(stem, w1, 2, first_block=True))
    net.add_module("resnet_block2", resnet_block(w1, w2, 2))
    net.add_module("resnet_block3", resnet_block(w2, w3, 2))
    net.add_module("resnet_block4", resnet_block(w3, w4, 2))
    net.add_module("global_avg_pool", nn.AdaptiveAvgPool2d((1, 1)))
    net.add_module("fc", nn.Sequential(nn.Flatten(), nn.Linear(w4, num_classes)))
    return net


def init_weights(model):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                m.weight.normal_(0.0, 0.01)
                if m.bias is not None:
                    m.bias.normal_(0.0, 0.01)
            elif isinstance(m, nn.BatchNorm2d):
                m.weight.copy_(1.0 + torch.randn_like(m.weight) * 0.1)
                m.bias.normal_(0.0, 0.1)
                m.reset_running_stats()


def nll_loss(out, y):
    return F.nll_loss(out, y)


MODELS = {
    "lenet": dict(build=LeNet, loss=nn.CrossEntropyLoss(), loss_name="CrossEntropyLoss(mean) on logits",
                  output="raw logits"),
    "mnistnet": dict(build=lambda: MnistNet(dropout=False), loss=nll_loss,
                     loss_name="F.nll_loss(mean) on log_softmax output",
                     output="log-probabilities (log_softmax dim=1); dropouts are identity"),
    "resnet18-narrow": dict(build=lambda: resnet18(10, 1, widths=(8, 8, 16, 32, 64)),
                            loss=nn.CrossEntropyLoss(), loss_name="CrossEntropyLoss(mean) on logits",
                            output="raw logits; training mode (BN batch statistics, momentum 0.1, eps 1e-5)"),
}


# The models also recorded under bf16 autocast (make_bf16): <model>-bf16.safetensors.
BF16_MODELS = ["lenet", "mnistnet"]


# --------------------------------------------------------------------------- safetensors
DTYPES = {torch.float32: ("F32", "<f4"), torch.int64: ("I64", "<i8")}


def save_safetensors(path, tensors, metadata):
    header = {}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        dt, npdt = DTYPES[t.dtype]
        raw = t.numpy().astype(npdt, copy=False).tobytes(order="C")
        header[name] = {"dtype": dt, "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    hjson = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("utf-8")
    hjson += b" " * ((-len(hjson)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hjson)))
        f.write(hjson)
        for b in blobs:
            f.write(b)


# --------------------------------------------------------------------------- run
def train(model, loss_fn, x, y, keep_step1=False, bf16=False):
    """10 plain SGD steps on (x, y) in training mode; returns what the file records. bf16: the
    forward and loss under torch.autocast("cpu", dtype=torch.bfloat16), as make_bf16 records."""
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.0, weight_decay=0.0)
    rec = {"traj": []}
    for step in range(STEPS):
        opt.zero_grad(set_to_none=False)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            out = model(x)
            loss = loss_fn(out, y)
        if bf16:   # autocast's bf16 logits as float32 (and the float64 replay left as it is)
            out, loss = out.float(), loss.float()
        loss.backward()
        rec["traj"].append(loss.detach().clone())
        if step == 0:
            rec["logits"] = out.detach().clone()
            rec["loss"] = loss.detach().clone().reshape([])
            rec["grad"] = {k: p.grad.detach().clone() for k, p in model.named_parameters()}
        opt.step()
        if step == 0 and keep_step1:
            rec["step1"] = {k: v.clone() for k, v in model.state_dict().items()}
    rec["final"] = {k: v.clone() for k, v in model.state_dict().items()}
    return rec


def run_tensors(start, x, y, rec):
    """What a file of make() or make_bf16() holds: the initial state `start` (copies taken before
    training), the batch and what train() recorded; checked to be float32 or int64, and finite."""
    tensors = {"init." + k: v for k, v in start.items()}
    tensors["input"] = x.clone()
    tensors["labels"] = y.clone()
    tensors["logits"] = rec["logits"]
    tensors["loss"] = rec["loss"]
    for k, g in rec["grad"].items():
        tensors["grad." + k] = g
    tensors["trajectory"] = torch.stack(rec["traj"]).to(torch.float32)
    for k, v in rec["final"].items():
        tensors["final." + k] = v
    for k, v in rec.get("step1", {}).items():
        tensors["step1." + k] = v
    for k, v in tensors.items():
        assert v.dtype in (torch.float32, torch.int64), (k, v.dtype)
        if v.dtype == torch.float32:
            assert torch.isfinite(v).all(), k
    return tensors


def run_metadata(name, spec):
    """The metadata every file of make() and make_bf16() starts with: the model and the run."""
    return {
        "model": name,
        "torch_version": torch.__version__,
        "seed": SEED,
        "lr": LR,
        "steps": STEPS,
        "batch_size": BATCH,
        "optimizer": "torch.optim.SGD(lr=0.1, momentum=0, weight_decay=0, dampening=0, nesterov=False)",
        "loss": spec["loss_name"],
        "output": spec["output"],
    }


def pre_bn_biases(model):
    """Conv biases directly followed by a training-mode BatchNorm: their gradient is exactly 0 in
    exact arithmetic (BN subtracts the batch mean), so the float32 value is only rounding noise."""
    names = []
    if isinstance(model, nn.Sequential) and isinstance(model[1], nn.BatchNorm2d):
        names.append("0.bias")
    for n, m in model.named_modules():
        if isinstance(m, Residual):
            names += [n + ".conv1.bias", n + ".conv2.bias"]
    return names


def max_rel(a, b):
    """max |a-b| / max |b| (b the float64 reference)."""
    scale = b.abs().max().item()
    return (a.double() - b).abs().max().item() / scale if scale > 0 else 0.0


def make(name, spec, x, y):
    torch.manual_seed(SEED)
    model = spec["build"]()
    init_weights(model)
    model.train()
    loss_fn = spec["loss"]
    is_resnet = name.startswith("resnet")

    model64 = copy.deepcopy(model).double()   # float64 replay of the same run, for the metadata only
    start = {k: v.clone() for k, v in model.state_dict().items()}   # SGD updates in place
    rec = train(model, loss_fn, x, y, keep_step1=is_resnet)
    rec64 = train(model64, loss_fn, x.double(), y)
    tensors = run_tensors(start, x, y, rec)
    assert tensors["trajectory"][0].item() == tensors["loss"].item()

    # How well-conditioned is this run? float32 (the file) against float64 (same init, same data).
    zero_grads = pre_bn_biases(model)
    traj32 = torch.stack(rec["traj"]).double()
    traj64 = torch.stack(rec64["traj"])
    traj_rel = ((traj32 - traj64).abs() / traj64.abs()).tolist()
    reliable = 0
    while reliable < STEPS and traj_rel[reliable] < 1e-5:
        reliable += 1
    grad_rel = max(max_rel(rec["grad"][k], rec64["grad"][k]) for k in rec["grad"] if k not in zero_grads)
    final_rel = max(max_rel(rec["final"][k], rec64["final"][k])
                    for k in rec["final"] if rec["final"][k].is_floating_point() and k not in zero_grads)

    n_params = sum(p.numel() for p in model.parameters())
    meta = {
        **run_metadata(name, spec),
        "init": INIT_DESC,
        "num_parameters": n_params,
        "input": "Fashion-MNIST train-images-idx3-ubyte.gz images 0..15, float32 pixels/255, NCHW [16,1,28,28], no mean/std normalization",
        "labels": "Fashion-MNIST train-labels-idx1-ubyte.gz labels 0..15, int64",
        "mode": "model.train() throughout; deterministic algorithms; 1 thread; float32 CPU",
        "naming": "init.<state_dict name>, input, labels, logits, loss, grad.<parameter name>, trajectory, final.<state_dict name>"
                  + (", step1.<state_dict name>" if is_resnet else ""),
        "trajectory": "loss computed in the forward before each of the 10 SGD steps; trajectory[0]==loss; logits/loss/grad are from step 1",
        "zero_grad_params": ",".join(zero_grads),
        "f64_trajectory": ",".join("%.9g" % v for v in traj64.tolist()),
        "f64_trajectory_rel_diff": ",".join("%.2e" % v for v in traj_rel),
        "trajectory_reliable_steps": reliable,
        "f64_grad_max_rel_diff": "%.2e" % grad_rel,
        "f64_final_max_rel_diff": "%.2e" % final_rel,
        "conditioning": "f64_* are the same run replayed in float64 by the script; *_rel_diff = max|f32-f64|/max|f64| "
                        "per tensor (worst tensor), zero_grad_params excluded; trajectory_reliable_steps = leading "
                        "trajectory entries whose float32 value is within 1e-5 relative of float64",
    }
    if is_resnet:
        meta["step1"] = ("step1.<name>: every parameter and buffer after exactly one SGD step (running stats after one "
                         "forward); the 10-step trajectory/final of this model are chaotic (see f64_*), step1 is not")
    path = os.path.join(OUT_DIR, name + ".safetensors")
    save_safetensors(path, tensors, meta)
    print(f"{name}: trajectory rel diff f32 vs f64: {meta['f64_trajectory_rel_diff']}")
    print(f"{name}: reliable steps {reliable}, grad {meta['f64_grad_max_rel_diff']}, final {meta['f64_final_max_rel_diff']}")
    return path


# --------------------------------------------------------------------------- bf16 autocast
def make_bf16(name, spec, x, y):
    """<model>-bf16.safetensors: the run of make() (same init, batch, 10 SGD steps) with the
    forward and loss under torch.autocast("cpu", dtype=torch.bfloat16): convolutions and linear
    layers take bfloat16 copies of their inputs and float32 master weights, the loss is float32,
    parameters, gradients and SGD stay float32. The metadata holds how far this run is from the
    float32 one (bf16_vs_f32_*), the scale of what bf16 changes."""
    torch.manual_seed(SEED)
    model = spec["build"]()
    init_weights(model)
    model.train()
    loss_fn = spec["loss"]
    model32 = copy.deepcopy(model)
    start = {k: v.clone() for k, v in model.state_dict().items()}   # SGD updates in place
    rec = train(model, loss_fn, x, y, bf16=True)
    rec32 = train(model32, loss_fn, x, y)
    tensors = run_tensors(start, x, y, rec)

    traj, traj32 = torch.stack(rec["traj"]).double(), torch.stack(rec32["traj"]).double()
    meta = {
        **run_metadata(name, spec),
        "precision": "bf16: torch.autocast('cpu', dtype=torch.bfloat16) around forward and loss; "
                     "float32 parameters, gradients and SGD",
        "output": spec["output"] + "; the bf16 autocast output converted to float32",
        "init": INIT_DESC,
        "mode": "model.train() throughout; deterministic algorithms; 1 thread; CPU autocast bf16",
        "naming": "as <model>.safetensors: init., input, labels, logits, loss, grad., trajectory, final.",
        "bf16_vs_f32_logits": "%.2e" % max_rel(rec["logits"], rec32["logits"].double()),
        "bf16_vs_f32_grad": "%.2e" % max(max_rel(rec["grad"][k], rec32["grad"][k].double())
                                          for k in rec["grad"]),
        "bf16_vs_f32_trajectory": ",".join("%.2e" % v for v in ((traj - traj32).abs() / traj32.abs()).tolist()),
        "bf16_vs_f32_final": "%.2e" % max(max_rel(rec["final"][k], rec32["final"][k].double())
                                           for k in rec["final"] if rec["final"][k].is_floating_point()),
    }
    path = os.path.join(OUT_DIR, name + "-bf16.safetensors")
    save_safetensors(path, tensors, meta)
    for key in ("bf16_vs_f32_logits", "bf16_vs_f32_grad", "bf16_vs_f32_trajectory", "bf16_vs_f32_final"):
        print(f"{name}-bf16: {key} {meta[key]}")
    return path


# --------------------------------------------------------------------------- full ResNet-18
def quantize_q8(t):
    """Codes in [-127, 127] and the exponent e of one power-of-two scale per tensor (the smallest
    with max|t| <= 127 * 2^e): code * 2^e is exact in float32 and is the start's value."""
    e = int(np.ceil(np.log2(t.abs().max().item() / 127.0)))
    codes = torch.clamp(torch.round(t.double() / 2.0 ** e), -127, 127).to(torch.int64)
    value = (codes.double() * 2.0 ** e).to(torch.float32)
    assert torch.equal(value.double(), codes.double() * 2.0 ** e)
    return codes, e, value


def pack_q8(codes):
    """int8 codes (two's complement bytes, in the tensor's flat order) packed 8 to an int64,
    little-endian, zero-padded: the container's reader knows only F32 and I64."""
    raw = codes.flatten().numpy().astype(np.int8).tobytes()
    raw += b"\0" * ((-len(raw)) % 8)
    return torch.from_numpy(np.frombuffer(raw, dtype="<i8").copy())


def sample_indices(n):
    return torch.arange(n) if n <= SAMPLE_ALL else torch.arange(0, n, SAMPLE_STRIDE)


def update_error(run, ref, start, names, sampled):
    """||run - ref|| / ||ref - start|| over the tensors `names` (float64). Sampled: over the
    elements update.<param> holds, each weighted by n / (elements kept) so the sums estimate the
    full ones."""
    num = den = 0.0
    for k in names:
        a, b, c = run[k].double().flatten(), ref[k].double().flatten(), start[k].double().flatten()
        weight = 1.0
        if sampled:
            i = sample_indices(a.numel())
            weight = a.numel() / i.numel()
            a, b, c = a[i], b[i], c[i]
        num += weight * ((a - b) ** 2).sum().item()
        den += weight * ((b - c) ** 2).sum().item()
    return (num / den) ** 0.5


def steps_from(start, dtype, x, y, steps=COMPARED_STEPS):
    """`steps` plain SGD steps (lr 0.1) from the state dict `start` in `dtype`, training mode."""
    model = resnet18(10, 1)
    model.load_state_dict(start)
    model = model.to(dtype)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.0, weight_decay=0.0)
    losses = []
    for _ in range(steps):
        opt.zero_grad(set_to_none=False)
        loss = nn.CrossEntropyLoss()(model(x.to(dtype)), y)
        loss.backward()
        losses.append(loss.item())
        opt.step()
    return {k: v.detach().clone() for k, v in model.state_dict().items()}, losses


def nudge_ulps(state, names, generator):
    """Every tensor in `names` with each element moved by -1, 0 or +1 ulp at random."""
    out = dict(state)
    for k in names:
        v = state[k]
        d = torch.randint(-1, 2, v.shape, generator=generator)
        up = torch.nextafter(v, torch.full_like(v, float("inf")))
        down = torch.nextafter(v, torch.full_like(v, float("-inf")))
        out[k] = torch.where(d > 0, up, torch.where(d < 0, down, v))
    return out


def make_resnet18():
    """Full ResNet-18: two SGD steps from a trained start, float32 against float64.

    From the init all files use, SGD on the first forward's BatchNorm statistics is chaotic in
    float32 (README.md). So: PRE_STEPS steps of plain SGD (lr 0.1, batch PRE_BATCH, images BATCH..)
    first; then conv and linear weights rounded to 8 bits (one power-of-two scale per tensor) so
    the start takes 11 MB instead of 45, everything else kept in float32. From that start, two
    steps on images 0..15 in float32 and float64."""
    name = "resnet18"
    torch.manual_seed(SEED)
    model = resnet18(10, 1)
    init_weights(model)
    model.train()
    n_params = sum(p.numel() for p in model.parameters())
    assert n_params == 11_175_818, n_params
    xs, ys = load_fashion_mnist(BATCH + PRE_STEPS * PRE_BATCH)
    x, y = xs[:BATCH], ys[:BATCH]
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.0, weight_decay=0.0)
    pre_losses = []
    for step in range(PRE_STEPS):
        first = BATCH + step * PRE_BATCH
        opt.zero_grad(set_to_none=False)
        loss = nn.CrossEntropyLoss()(model(xs[first:first + PRE_BATCH]), ys[first:first + PRE_BATCH])
        loss.backward()
        pre_losses.append(loss.item())
        opt.step()

    tensors = {"input": x.clone(), "labels": y.clone()}
    start = {}
    quantized = []
    for k, v in model.state_dict().items():
        v = v.detach().clone()
        if v.is_floating_point() and v.dim() >= 2:   # conv and linear weights
            codes, e, v = quantize_q8(v)
            tensors["start_q8." + k] = pack_q8(codes)
            tensors["start_exp." + k] = torch.tensor(e, dtype=torch.int64)
            quantized.append(k)
        else:
            tensors["start." + k] = v
        start[k] = v

    params = [k for k, _ in model.named_parameters()]
    buffers = [k for k in start if k not in params]
    float_buffers = [k for k in buffers if start[k].is_floating_point()]
    end64, losses64 = steps_from(start, torch.float64, x, y)
    end32, losses32 = steps_from(start, torch.float32, x, y)
    for k in params:
        update = (end64[k] - start[k].double()).flatten()
        tensors["update." + k] = update[sample_indices(update.numel())].to(torch.float32)
    for k in buffers:
        tensors["final." + k] = end64[k].to(torch.float32) if end64[k].is_floating_point() else end64[k]
    tensors["trajectory"] = torch.tensor(losses64, dtype=torch.float32)

    f32_error = update_error(end32, end64, start, params, sampled=False)
    f32_error_sampled = update_error(end32, end64, start, params, sampled=True)
    f32_buffer_error = update_error(end32, end64, start, float_buffers, sampled=False)
    # Is the start well-conditioned? Float32 runs from ulp-nudged starts: rounding of the start's
    # size, and other ReLU decisions on pre-activations within float32 rounding of zero. One such
    # decision can move the update by 1e-3 (README.md); these runs show whether that is likely here.
    generator = torch.Generator().manual_seed(SEED)
    ulp_errors = [update_error(steps_from(nudge_ulps(start, params, generator), torch.float32, x, y)[0],
                               end64, start, params, sampled=False) for _ in range(ULP_RUNS)]
    if max(ulp_errors) > 5 * f32_error:
        print(f"WARNING {name}: a float32 run from a start nudged by one ulp is {max(ulp_errors):.2e} "
              f"from float64, over 5x the float32 run's {f32_error:.2e}: the start is not well-conditioned")

    for k, v in tensors.items():
        assert v.dtype in (torch.float32, torch.int64), (k, v.dtype)
        if v.dtype == torch.float32:
            assert torch.isfinite(v).all(), k
    meta = {
        "model": name,
        "torch_version": torch.__version__,
        "seed": SEED,
        "num_parameters": n_params,
        "lr": LR,
        "steps": COMPARED_STEPS,
        "batch_size": BATCH,
        "optimizer": "torch.optim.SGD(lr=0.1, momentum=0, weight_decay=0, dampening=0, nesterov=False)",
        "loss": "CrossEntropyLoss(mean) on logits",
        "mode": "model.train() throughout (BN batch statistics, momentum 0.1, eps 1e-5); deterministic algorithms; 1 thread; CPU",
        "input": "Fashion-MNIST train-images-idx3-ubyte.gz images 0..15, float32 pixels/255, NCHW [16,1,28,28], no mean/std normalization",
        "labels": "Fashion-MNIST train-labels-idx1-ubyte.gz labels 0..15, int64",
        "init": INIT_DESC,
        "pretraining": f"from the init, {PRE_STEPS} plain SGD steps (lr {LR}) in float32, training mode, step s on "
                       f"images {BATCH} + {PRE_BATCH}*s .. {BATCH} + {PRE_BATCH}*(s+1) - 1 (batch {PRE_BATCH}, no shuffling)",
        "pretraining_losses": ",".join("%.4f" % v for v in pre_losses),
        "start": "the pretrained state with every conv and linear weight rounded to code * 2^e, code = round(w / 2^e) "
                 "clamped to [-127, 127], e per tensor the smallest integer with max|w| <= 127 * 2^e; exact in float32. "
                 "start.<name>: the other tensors as they are (F32; num_batches_tracked I64 = pretraining steps); "
                 "start_q8.<name>: the int8 codes in the tensor's flat (row-major) order, two's complement bytes packed "
                 "8 to an I64, little-endian, zero-padded; start_exp.<name>: e (I64 scalar)",
        "quantized": ",".join(quantized),
        "update": f"update.<param>: the float64 run's parameter after {COMPARED_STEPS} steps minus its start value "
                  f"(computed in float64, stored F32): every element of tensors up to {SAMPLE_ALL} elements, else "
                  f"flat indices 0, {SAMPLE_STRIDE}, {2 * SAMPLE_STRIDE}, ...",
        "sample_stride": SAMPLE_STRIDE,
        "sample_all_up_to": SAMPLE_ALL,
        "final": f"final.<buffer>: BN running_mean, running_var, num_batches_tracked after the {COMPARED_STEPS} steps (float64 run)",
        "trajectory": "loss of the forward before each step, float64 run",
        "f32_trajectory": ",".join("%.9g" % v for v in losses32),
        "error_measure": "||a - b|| / ||b - start|| over every element of all parameters (b: float64 run); "
                         "sampled: over the elements update.<param> holds, each weighted by n / (elements kept)",
        "f32_update_rel_error": "%.3e" % f32_error,
        "f32_update_rel_error_sampled": "%.3e" % f32_error_sampled,
        "f32_buffer_rel_error": "%.3e" % f32_buffer_error,
        "f32_ulp_nudged_update_rel_errors": ",".join("%.2e" % v for v in ulp_errors),
        "zero_grad_params": ",".join(pre_bn_biases(model)),
    }
    path = os.path.join(OUT_DIR, name + ".safetensors")
    save_safetensors(path, tensors, meta)
    print(f"{name}: pretraining losses {meta['pretraining_losses']}")
    print(f"{name}: losses f64 {losses64}, f32 {losses32}")
    print(f"{name}: float32 vs float64 update error {f32_error:.3e} (sampled {f32_error_sampled:.3e}), "
          f"buffers {f32_buffer_error:.3e}; from ulp-nudged starts: {meta['f32_ulp_nudged_update_rel_errors']}")
    return path


def main():
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    torch.set_default_dtype(torch.float32)

    full = resnet18(10, 1)
    n_full = sum(p.numel() for p in full.parameters())
    assert n_full == 11_175_818, n_full
    del full

    x, y = load_fashion_mnist(BATCH)
    names = sys.argv[1:] or list(MODELS) + ["resnet18"] + [m + "-bf16" for m in BF16_MODELS]
    for name in names:
        if name == "resnet18":
            path = make_resnet18()
        elif name.endswith("-bf16"):
            path = make_bf16(name[:-len("-bf16")], MODELS[name[:-len("-bf16")]], x, y)
        else:
            path = make(name, MODELS[name], x, y)
        print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
