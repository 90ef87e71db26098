#!/usr/bin/env bash
# Installs every Debian package acclab's build and tests need.
# Idempotent: when everything is present it only checks and returns.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  gcc-12-offload-nvptx libgomp-plugin-nvptx1   # GCC OpenACC offload to NVIDIA GPUs
  libcli11-dev nlohmann-json3-dev libfmt-dev
  zlib1g-dev                                   # gzip'd input files (.mtx.gz)
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev                              # matmul's cpu_blas
  libopenmpi-dev openmpi-bin                   # the mpi_* steps and mpirun
  python3-matplotlib                           # scripts/plot-ladder.py, report-html.py
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "setup: CUDA toolkit found at /usr/local/cuda (CUDA variants will be built)"
else
  echo "setup: no CUDA toolkit at /usr/local/cuda (CUDA variants will be left out)"
fi
