#!/usr/bin/env bash
# Installs what Baton builds and tests with, on Debian 12 (bookworm): CMake,
# Ninja, a C++20 compiler, LLVM/Clang 22 with lit and FileCheck, CLI11,
# GoogleTest, and Python headers with pybind11 (the Python package's
# extension). The CUDA Toolkit (ptxas, cuda.h) is expected at /usr/local/cuda.
# Safe to run again: apt-get skips what is already installed.
set -euo pipefail

packages=(cmake ninja-build g++ python3 libcli11-dev libgtest-dev
          llvm-22-dev clang-22 libclang-22-dev llvm-22-tools
          libzstd-dev   # zstd: the reference the fatbin decoder is tested against
          python3-dev pybind11-dev)  # baton._core (python/)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

if [[ ! -x /usr/local/cuda/bin/ptxas ]]; then
  echo "install-deps: error: the CUDA Toolkit 13 is not at /usr/local/cuda" \
       "(ptxas validates every emitted module; cuda.h builds the runtime)" >&2
  exit 1
fi
