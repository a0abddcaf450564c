#!/usr/bin/env bash
# Installs what fleetsim needs to build and test, from Debian's packages only (DESIGN.md §10).
# Run as root on Debian 12; packages already present are left alone. python3 and clang-format
# are for the checks .ci/run makes before building (tools/check_layering.py, tools/check_format.sh);
# prometheus (promtool and the server) for the test of --metrics-out; python3-matplotlib for
# tools/plot/; python3-jsonschema for the test of lint --sarif against the SARIF schema;
# coinor-libclp-dev (COIN-OR CLP) for the LP of the efficiency bounds.
set -euo pipefail
packages=(g++ cmake ninja-build libyaml-cpp-dev libcli11-dev libfmt-dev libeigen3-dev
          nlohmann-json3-dev catch2 libbenchmark-dev libre2-dev pkg-config python3 clang-format
          clang-14 libclang-rt-14-dev prometheus python3-matplotlib
          python3-jsonschema coinor-libclp-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
