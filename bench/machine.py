"""What the benches report about the machine they ran on (MEASURING.md: the CPU model and ISA
with every speed figure)."""
import os

# The /proc/cpuinfo flags that decide which oneDNN kernels run.
ISA_FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_bf16")


def cpu_description():
    """cpu_model, cpu_family (AMD's 25 is Zen 3 or 4, 26 Zen 5), isa (the ISA_FLAGS this CPU has), onednn_max_cpu_isa (the cap set in the
    environment, or None: a cap makes oneDNN, dp-train's and PyTorch's, run older kernels),
    nproc."""
    flags, model, family = set(), "unknown", None
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model == "unknown":
                model = value.strip()
            elif key.strip() == "cpu family" and family is None:
                family = int(value)
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    return {"cpu_model": model, "cpu_family": family, "isa": [flag for flag in ISA_FLAGS if flag in flags],
            "onednn_max_cpu_isa": os.environ.get("ONEDNN_MAX_CPU_ISA"), "nproc": os.cpu_count()}
