#!/bin/bash
# The bundle's bin/<program>: runs libexec/<program> with the bundle's own
# libraries first and CUDA's from the node after them (the bundle carries no
# CUDA library: cudart, cuBLAS, cuDNN, NCCL and the driver must match the
# node's GPU and driver). When one of them is missing it says which, in one
# line, instead of the loader's longer message.
set -u
bundle=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
program=$(basename "$0")
real=$bundle/libexec/$program

# Where CUDA's libraries usually are on a node: the user's LD_LIBRARY_PATH,
# the toolkit's folder, and the nvidia-* Python wheels (pip install torch).
shopt -s nullglob
cuda_dirs=(/usr/local/cuda/lib64 /usr/local/cuda/lib)
for site in "${VIRTUAL_ENV:-/nonexistent}"/lib/python3*/site-packages \
            "${CONDA_PREFIX:-/nonexistent}"/lib/python3*/site-packages \
            "${HOME:-/nonexistent}"/.local/lib/python3*/site-packages \
            /usr/local/lib/python3*/dist-packages /usr/lib/python3/dist-packages; do
  cuda_dirs+=("$site"/nvidia/*/lib)
done
shopt -u nullglob
# lib/dp-workbench/: the CUDA module, which dp-gpu-selftest links.
search=$bundle/lib:$bundle/lib/dp-workbench
if [[ -n ${LD_LIBRARY_PATH:-} ]]; then search+=:$LD_LIBRARY_PATH; fi
for dir in "${cuda_dirs[@]}"; do
  if [[ -d $dir ]]; then search+=:$dir; fi
done
export LD_LIBRARY_PATH=$search

# What to install for a library the node lacks, by its soname.
install_hint() {
  local major=${1##*.so.}
  case $1 in
    libcudnn*) echo "install cuDNN $major or add its folder to LD_LIBRARY_PATH" ;;
    libnccl*) echo "install NCCL $major or add its folder to LD_LIBRARY_PATH" ;;
    libcuda.so*) echo "install the NVIDIA driver" ;;
    libcu* | libnv*) echo "install the CUDA $major libraries or add their folder to LD_LIBRARY_PATH" ;;
    *) echo "the bundle is incomplete: unpack it again" ;;
  esac
}
missing=$(ldd "$real" 2>/dev/null | awk '/=> not found/ { print $1; exit }')
if [[ -n $missing ]]; then
  echo "$program: $missing not found: $(install_hint "$missing")" >&2
  exit 127
fi

# Qt finds its plugins through libexec/qt.conf; fontconfig the bundle's font
# (and the machine's fonts, where it has any) through etc/fonts/fonts.conf.
export FONTCONFIG_FILE=$bundle/etc/fonts/fonts.conf
exec "$real" "$@"
