#!/usr/bin/env bash
# Builds the libFuzzer targets (the sanitize preset: clang, ASan, UBSan) and runs each for SECONDS
# (default 60) on a scratch copy of its committed corpus in fuzz/corpus/<target>. Any crash,
# sanitizer report, uncaught exception, hang (>10 s per input) or memory blow-up (>2 GiB) fails.
# New inputs worth keeping can be merged back with `-merge=1`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
cmake --preset sanitize >/dev/null && cmake --build --preset sanitize
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for target in manifests traces promql parsers catalog; do
  mkdir -p "$work/$target"
  build/sanitize/fuzz/fuzz_"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/" "$work/$target" "fuzz/corpus/$target" \
    2>"$work/$target.log" || { tail -40 "$work/$target.log" >&2; exit 1; }
  echo "fuzz_$target: $(grep -o 'number_of_executed_units: [0-9]*' "$work/$target.log" | \
    cut -d' ' -f2) executions, no finding"
done
