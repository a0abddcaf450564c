#!/usr/bin/env python3
"""Derive trimmed LLM request traces for fleetsim from the Azure 2023 and Mooncake traces.

Input:  llm_trace_azure2023_conv.csv, llm_trace_azure2023_code.csv   (Azure/AzurePublicDataset)
        llm_trace_mooncake_conversation.csv                           (kvcache-ai/Mooncake)
Output: scenarios/traces/azure-conv-10m.csv   the conversation trace's first 10 minutes
        scenarios/traces/azure-code-10m.csv   the code trace's first 10 minutes
        scenarios/traces/mooncake-conv-10m.csv the Mooncake conversation trace's first 10 minutes

Each output is a byte-for-byte prefix of its source: the header and every row whose time is less
than --minutes after the first row's, with the source's own line endings (CRLF for Azure, LF for
Mooncake). fleetsim's replay reads all three layouts as they are.

Run from the repository root:
  python3 tools/traces/derive_llm_traces.py --data ../shared/data --out scenarios/traces

The transformation is described in scenarios/traces/README.md. Standard library only;
deterministic output.
"""

import argparse
import datetime
import sys
from pathlib import Path

# (source file, output file, layout)
TRACES = [
    ("llm_trace_azure2023_conv.csv", "azure-conv-10m.csv", "azure"),
    ("llm_trace_azure2023_code.csv", "azure-code-10m.csv", "azure"),
    ("llm_trace_mooncake_conversation.csv", "mooncake-conv-10m.csv", "mooncake"),
]
HEADERS = {
    "azure": ["TIMESTAMP", "ContextTokens", "GeneratedTokens"],
    "mooncake": ["timestamp_ms", "input_length", "output_length", "num_prefix_hash_blocks"],
}
MAX_BYTES = 1_000_000  # keep each shipped trace under about a megabyte


def azure_time_ns(text):
    """'2023-11-16 18:15:46.6805900' -> nanoseconds since 1970 (read as UTC; only differences
    matter). Seven fractional digits is .NET's 100 ns tick; up to nine are accepted."""
    whole, _, fraction = text.partition(".")
    moment = datetime.datetime.strptime(whole, "%Y-%m-%d %H:%M:%S")
    moment = moment.replace(tzinfo=datetime.timezone.utc)
    assert fraction.isdigit() and len(fraction) <= 9, text
    return int(moment.timestamp()) * 1_000_000_000 + int(fraction.ljust(9, "0"))


def time_ns(layout, field):
    if layout == "azure":
        return azure_time_ns(field)
    return int(field) * 1_000_000  # Mooncake: whole milliseconds


def trim(source_bytes, layout, minutes):
    """The source's header and its rows less than `minutes` after the first row, as bytes, and
    the (row count, first row's time, last kept row's time) in nanoseconds."""
    lines = source_bytes.splitlines(keepends=True)
    header = lines[0].decode("utf-8").rstrip("\r\n").split(",")
    assert header == HEADERS[layout], f"unexpected header {header}"
    limit_ns = minutes * 60 * 1_000_000_000
    kept = [lines[0]]
    first = last = None
    for raw in lines[1:]:
        fields = raw.decode("utf-8").rstrip("\r\n").split(",")
        t = time_ns(layout, fields[0])
        assert last is None or t >= last, f"source not sorted at {fields[0]}"
        if first is None:
            first = t
        if t - first >= limit_ns:
            break
        assert len(fields) == len(header) and all(f.isdigit() for f in fields[1:]), raw
        kept.append(raw)
        last = t
    out = b"".join(kept)
    if not out.endswith(b"\n"):  # every row was kept, and the source's last has no line break
        out += b"\r\n" if lines[0].endswith(b"\r\n") else b"\n"
    return out, len(kept) - 1, first, last


def check(out, source_bytes, rows, first, last, minutes):
    assert rows > 0, "empty trace"
    assert 0 <= last - first < minutes * 60 * 1_000_000_000
    assert len(out) <= MAX_BYTES, f"{len(out)} bytes: over the size budget"
    assert source_bytes.startswith(out.rstrip(b"\r\n")), "output is not a prefix of the source"


def main(argv):
    repo_root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=repo_root / ".." / "shared" / "data")
    parser.add_argument("--out", type=Path, default=repo_root / "scenarios" / "traces")
    parser.add_argument("--minutes", type=int, default=10,
                        help="length of the kept window from the first row (default 10)")
    args = parser.parse_args(argv)

    args.out.mkdir(parents=True, exist_ok=True)
    for source, target, layout in TRACES:
        source_bytes = (args.data / source).read_bytes()
        out, rows, first, last = trim(source_bytes, layout, args.minutes)
        check(out, source_bytes, rows, first, last, args.minutes)
        (args.out / target).write_bytes(out)
        print(f"{target}: {rows} rows, {len(out)} bytes, last row {(last - first) / 1e9:.6f} s "
              f"after the first (from {source})")


if __name__ == "__main__":
    main(sys.argv[1:])
