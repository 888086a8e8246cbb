#!/usr/bin/env bash
# Installs everything AsmEvo needs on a fresh Debian 12 machine, then configures and builds.
# Idempotent: packages already present are not reinstalled, and the build is incremental.
# The list names every package whose files the build, the tests, the benchmarks or the demo use
# directly, also those that another listed package pulls in: tests/setup/package_ownership.py
# (ctest -R package_ownership) fails, naming the file and the package, when one is missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(
  cmake ninja-build pkgconf
  llvm-22 llvm-22-dev llvm-22-tools clang-22 clang-tools-22 lld-22 liblld-22 liblld-22-dev libclang-rt-22-dev
  libffi-dev libxml2-dev libxml2-utils libzstd-dev zlib1g-dev
  libamdhip64-dev rocm-device-libs
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libyaml-cpp0.7 libfmt-dev libfmt9 libsqlite3-dev libcurl4-openssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev libbenchmark1debian
  libz3-dev libz3-4
  python3-minimal python3-numpy python3-yaml
  slurm-wlm slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge
)
# Node.js and npm run the MCP interoperability test (tests/mcp: the official MCP TypeScript SDK
# client); a machine that already has both (e.g. from NodeSource) keeps its own.
{ command -v node && command -v npm; } >/dev/null 2>&1 || packages+=(nodejs npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  unavailable=()
  for p in "${missing[@]}"; do
    policy="$(apt-cache policy "$p" 2>/dev/null || true)"  # not piped into grep -q: pipefail and SIGPIPE
    [[ "$policy" =~ Candidate:\ [^\(] ]] || unavailable+=("$p")
  done
  if ((${#unavailable[@]})); then
    echo "setup: APT has no package named ${unavailable[*]}." >&2
    echo "setup: LLVM, Clang and lld 22 come from Debian 12's security suite (bookworm-security). Enable it in" >&2
    echo "setup: /etc/apt/sources.list or /etc/apt/sources.list.d/ (Debian 12 installs have it by default; minimal" >&2
    echo "setup: debootstrap trees do not), then run this script again." >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The MCP TypeScript SDK, pinned by tools/mcp-client/package-lock.json, into tools/mcp-client/node_modules.
mcp_client="$here/tools/mcp-client"
if [ ! -f "$mcp_client/node_modules/.package-lock.json" ] || [ "$mcp_client/package-lock.json" -nt "$mcp_client/node_modules/.package-lock.json" ]; then
  echo "setup: installing the MCP TypeScript SDK into $mcp_client/node_modules"
  (cd "$mcp_client" && npm ci --no-audit --no-fund --loglevel=error)
fi
build="${ASMEVO_BUILD_DIR:-$here/out}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_BUILD_TYPE="${ASMEVO_BUILD_TYPE:-RelWithDebInfo}"
fi
cmake --build "$build" -j "$(nproc)"
