#!/usr/bin/env bash
# Installs everything AsmEvo needs on a fresh Debian 12 machine, then configures and builds.
# Idempotent: packages already present are not reinstalled, and the build is incremental.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(
  cmake ninja-build pkg-config
  llvm-22-dev llvm-22-tools clang-22 clang-tools-22 lld-22 liblld-22-dev libclang-rt-22-dev
  libamdhip64-dev rocm-device-libs
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libsqlite3-dev libcurl4-openssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-numpy python3-yaml
  slurm-wlm munge
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
build="${ASMEVO_BUILD_DIR:-$here/out}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_BUILD_TYPE="${ASMEVO_BUILD_TYPE:-RelWithDebInfo}"
fi
cmake --build "$build" -j "$(nproc)"
