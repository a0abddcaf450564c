#!/usr/bin/env python3
"""Turns `aws ec2 describe-spot-price-history` output into a fleetsim spot price trace.

    aws ec2 describe-spot-price-history --region us-east-1 \\
        --instance-types g5.xlarge g5.2xlarge --product-descriptions Linux/UNIX \\
        --start-time 2026-11-01T00:00:00Z --end-time 2026-11-02T00:00:00Z > history.json
    tools/traces/spot_price_history.py history.json 2026-11-01T00:00:00Z > prices.csv

The scenario's `start` is the trace's t = 0 (START). EC2 lists a price from the time it took
effect, so the price in force at START is the last one listed at or before it: it becomes the
row at time 0. Later prices are rows at their seconds after START; rows are sorted by time,
then instance type, then zone, and a row that repeats the offering's price in force is dropped.
Only Linux/UNIX prices are read (the catalog's). Output: time_s,instance_type,zone,price.

Usage: tools/traces/spot_price_history.py HISTORY_JSON START [--end END]
"""
import argparse
import csv
import json
import sys
from datetime import datetime, timezone


def parse_time(text: str) -> datetime:
    t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def convert(history: dict, start: datetime, end: datetime | None) -> list[tuple]:
    latest_before = {}  # offering → (time, price) at or before start
    later = []
    for p in history.get("SpotPriceHistory", []):
        if p.get("ProductDescription", "Linux/UNIX") != "Linux/UNIX":
            continue
        offering = (p["InstanceType"], p["AvailabilityZone"])
        t = parse_time(p["Timestamp"])
        price = float(p["SpotPrice"])
        if t <= start:
            if offering not in latest_before or t > latest_before[offering][0]:
                latest_before[offering] = (t, price)
        elif end is None or t < end:
            later.append(((t - start).total_seconds(), offering, price))
    rows = [(0.0, o, price) for o, (_, price) in latest_before.items()] + later
    rows.sort(key=lambda r: (r[0], r[1]))
    in_force = {}
    out = []
    for t, offering, price in rows:
        if in_force.get(offering) == price:
            continue
        in_force[offering] = price
        out.append((t, offering[0], offering[1], price))
    return out


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("history")
    args.add_argument("start")
    args.add_argument("--end")
    a = args.parse_args()
    with open(a.history) as f:
        history = json.load(f)
    rows = convert(history, parse_time(a.start), parse_time(a.end) if a.end else None)
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["time_s", "instance_type", "zone", "price"])
    for t, instance_type, zone, price in rows:
        w.writerow([f"{t:g}", instance_type, zone, f"{price:g}"])


if __name__ == "__main__":
    main()
