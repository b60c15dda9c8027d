#!/usr/bin/env bash
# Installs what building cuscope needs on Debian 12, if it is missing, and says
# clearly what it cannot install. Sourced by demo.sh and test.sh.
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in cmake g++ make libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev libsqlite3-dev \
         rapidjson-dev libre2-dev zlib1g-dev libprotobuf-dev protobuf-compiler \
         pkg-config python3 binutils clang-format python3-venv python3-pytest python3-setuptools \
         python3-wheel libiberty-dev; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "deps: missing Debian packages, and neither root nor sudo to install them: as root," \
           "run: apt-get install ${need[*]}" >&2
      exit 1
    fi
    SUDO="sudo"
  fi
  echo "deps: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$CUDA_HOME/include/cupti.h" ] || [ ! -e "$CUDA_HOME/lib64/libcupti.so" ]; then
  echo "deps: the CUDA toolkit (12.6 or newer, with CUPTI) is not at $CUDA_HOME." >&2
  echo "deps: it cannot be installed from Debian's archive; install NVIDIA's CUDA toolkit" >&2
  echo "deps: (https://developer.nvidia.com/cuda-downloads) or set CUDA_HOME." >&2
  exit 1
fi
export PATH="$CUDA_HOME/bin:$PATH"
