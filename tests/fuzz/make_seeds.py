#!/usr/bin/python3
"""Writes the seed corpora of the IDX and safetensors harnesses: small valid
files, so that the fuzzers start from inputs that reach the readers' ends.
(The run record seeds are records dp-train --record wrote; README.md.)

    tests/fuzz/make_seeds.py        (rewrites corpus/idx and corpus/safetensors)
"""
import gzip
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(folder, name, data):
    path = os.path.join(HERE, "corpus", folder, name)
    with open(path, "wb") as out:
        out.write(data)


def idx_seeds():
    # 3 images of 2x3 and their labels, as MNIST's files are laid out.
    images = struct.pack(">IIII", 0x803, 3, 2, 3) + bytes(range(0, 255, 14))[:18]
    labels = struct.pack(">II", 0x801, 3) + bytes([9, 0, 3])
    # mtime 0 keeps the gzip bytes the same on every run
    write("idx", "images-idx3-ubyte", images)
    write("idx", "images-idx3-ubyte.gz", gzip.compress(images, mtime=0))
    write("idx", "labels-idx1-ubyte", labels)
    write("idx", "labels-idx1-ubyte.gz", gzip.compress(labels, mtime=0))
    # two gzip members read as one stream, as gzip -d reads them
    write("idx", "labels-two-members.gz", gzip.compress(labels[:5], mtime=0) + gzip.compress(labels[5:], mtime=0))


def safetensors(tensors, metadata):
    """tensors: (name, dtype, shape, little-endian bytes), laid out in order."""
    header, offset = {"__metadata__": metadata} if metadata else {}, 0
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(data for *_, data in tensors)


def safetensors_seeds():
    # The layout fuzz_safetensors.cpp loads as a checkpoint of "fuzz-model".
    f32 = lambda *values: struct.pack(f"<{len(values)}f", *values)
    checkpoint = [
        ("bn.num_batches_tracked", "I64", [], struct.pack("<q", 7)),
        ("bn.running_mean", "F32", [2], f32(0.5, -0.5)),
        ("fc.bias", "F32", [2], f32(0.0, 1.0)),
        ("fc.weight", "F32", [2, 3], f32(1, 2, 3, 4, 5, 6)),
    ]
    write("safetensors", "checkpoint.safetensors",
          safetensors(checkpoint, {"format": "pt", "dp_workbench_model": "fuzz-model"}))
    # As PyTorch writes one: no model name in the metadata.
    write("safetensors", "no-metadata.safetensors", safetensors(checkpoint, None))
    write("safetensors", "escapes.safetensors",
          safetensors([("caf\u00e9 \"\\u\" \U0001F600", "F32", [1, 0, 2], b"")], {"k\\n": "\u00fc\n"}))


idx_seeds()
safetensors_seeds()
