#!/usr/bin/env bash
# Fails when a C++ file under src/, include/, tests/ or bench/ differs from what clang-format
# (Debian's, with the repository's .clang-format) would write. Rewrites nothing: run
# `clang-format -i FILE` yourself to fix one. Usage: tools/check_format.sh [clang-format binary]
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${1:-${CLANG_FORMAT:-clang-format}}
command -v "$clang_format" >/dev/null || { echo "check_format: $clang_format not found" >&2; exit 2; }
mapfile -d '' files < <(find src include tests bench fuzz -type f \( -name '*.cpp' -o -name '*.hpp' \) \
                          -print0 | sort -z)
if [ ${#files[@]} -eq 0 ]; then
  echo "check_format: no files"
  exit 0
fi
if "$clang_format" --dry-run --Werror --style=file "${files[@]}"; then
  echo "check_format: ${#files[@]} files ok ($("$clang_format" --version))"
else
  echo "check_format: files above need clang-format ($("$clang_format" --version))" >&2
  exit 1
fi
