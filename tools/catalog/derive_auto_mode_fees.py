#!/usr/bin/env python3
"""Derives instance-catalog/aws/us-east-1/auto-mode-fees.csv: EKS Auto Mode's management fee per
instance type, from the catalog's own on-demand prices (see the catalog README, "Auto Mode fees").

The fee is a price per instance-hour per type, billed per second with a 60 s minimum on top of
EC2, the same for spot and on-demand. AWS's price list (service AmazonEKS, operation
EKSAutoUsage) is not reachable from here; what is verified:
  - m5.large is $0.01152/h and t4g.xlarge $0.01613/h: 12% of their on-demand prices
    (vantage-sh/ec2instances.info scraper/aws/ec2/eks_auto_mode_test.go; a Pricing API read);
  - from 2026-07-01 the fee of G-series types is 35% lower and of P-series and Trainium 60%
    lower (AWS What's New, 2026-07-07, "Amazon EKS Auto Mode reduces GPU management fees").
So each type gets 12% of its us-east-1 on-demand price from Auto Mode's launch (2024-12-01), and
from 2026-07-01 that times 0.65 (g*) or 0.40 (p*, trn*). Types Auto Mode does not launch get no
row: 1 vCPU or less, nano/micro/small sizes, and accelerated families outside its supported list
(automode-learn-instances: no p3, no g6f).

Usage: tools/catalog/derive_auto_mode_fees.py CATALOG_DIR
"""
import csv
import sys

FEE_SHARE = 0.12
LAUNCH = "2024-12-01"
GPU_CUT = "2026-07-01"
SUPPORTED_ACCELERATED = {
    "p6-b200", "p6-b300", "p5", "p5e", "p5en", "p4d", "p4de", "p3dn", "g7e", "g6", "gr6", "g6e",
    "g5g", "g5", "g4dn", "g4ad", "inf1", "inf2", "trn1", "trn1n", "trn2"}


def cut(family: str) -> float:
    if family.startswith("g"):
        return 0.65
    if family.startswith("p") or family.startswith("trn"):
        return 0.40
    return 1.0


def main() -> None:
    catalog = sys.argv[1]
    on_demand = {}
    with open(f"{catalog}/offerings.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["capacity_type"] == "on-demand":
                price = float(r["price_usd_per_hour"])
                on_demand[r["instance_type"]] = min(price, on_demand.get(r["instance_type"], price))
    rows = []
    with open(f"{catalog}/instance-types.csv", newline="") as f:
        for t in csv.DictReader(f):
            accelerated = int(t["gpu_count"] or 0) > 0 or int(t["accelerator_count"] or 0) > 0
            if int(t["vcpu"]) <= 1 or t["size"] in ("nano", "micro", "small"):
                continue
            if accelerated and t["family"] not in SUPPORTED_ACCELERATED:
                continue
            fee = FEE_SHARE * on_demand[t["instance_type"]]
            rows.append((t["instance_type"], LAUNCH, round(fee, 6)))
            if cut(t["family"]) != 1.0:
                rows.append((t["instance_type"], GPU_CUT, round(fee * cut(t["family"]), 6)))
    rows.sort()
    with open(f"{catalog}/auto-mode-fees.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["instance_type", "effective_from", "fee_usd_per_hour"])
        for name, since, fee in rows:
            w.writerow([name, since, f"{fee:g}"])
    print(f"{len(rows)} rows, {len({r[0] for r in rows})} instance types")


if __name__ == "__main__":
    main()
