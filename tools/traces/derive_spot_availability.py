#!/usr/bin/env python3
"""Derives scenarios/traces/spot-availability-p3.2xlarge.csv from SkyPilot's spot availability
traces (../shared/data/spot_availability_traces_skypilot.csv; see scenarios/traces/README.md).

The source probes, every 195 s from 2023-02-15, whether one AWS V100 spot instance (p3.2xlarge)
could be had in a zone: 1 available, 0 not, run-length encoded into segments. Kept: the zones
the bundled catalog sells p3.2xlarge spot in (us-east-1a and us-east-1f), the first DAYS days,
one row where the availability changes (and one at t = 0 per zone), in fleetsim's
`time_s,instance_type,zone,available` form, sorted by time then zone.

Usage: tools/traces/derive_spot_availability.py SOURCE_CSV OUT_CSV [DAYS]
"""
import csv
import sys

INSTANCE_TYPE = "p3.2xlarge"  # SkyPilot's AWS V100:1
ZONES = ("us-east-1a", "us-east-1f")


def main() -> None:
    source, out = sys.argv[1], sys.argv[2]
    days = float(sys.argv[3]) if len(sys.argv) > 3 else 7.0
    horizon = days * 86400.0
    rows = []
    with open(source, newline="") as f:
        for r in csv.DictReader(f):
            if (r["trace_type"], r["nodes"], r["cloud"], r["start_date_mmddyyyy"],
                    r["accelerator_or_cpu"], r["count"]) != ("availability", "1", "aws",
                                                             "02-15-2023", "v100", "1"):
                continue
            if r["zone"] not in ZONES:
                continue
            start = float(r["seg_start_s"])
            if start >= horizon:
                continue
            rows.append((start, r["zone"], 1 if int(r["value"]) > 0 else 0))
    rows.sort()
    last = {}
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["time_s", "instance_type", "zone", "available"])
        for start, zone, available in rows:
            if last.get(zone) == available:
                continue  # a segment boundary without a change
            last[zone] = available
            w.writerow([f"{start:g}", INSTANCE_TYPE, zone, available])


if __name__ == "__main__":
    main()
