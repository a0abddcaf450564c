#!/usr/bin/env python3
"""Derive fleetsim's AWS us-east-1 instance catalog from the project's public data.

Inputs (see SOURCES.md in the data directory):
  instance_catalog_aws.csv  Karpenter's generated instance-type docs + static on-demand prices
  spot_aws.csv              per-AZ spot prices (skypilot-catalog v7) for us-east-1
  spot_advisor_aws.csv      AWS Spot Instance Advisor (savings and interruption band)

Outputs (DESIGN.md section 6), written to --out:
  instance-types.csv, offerings.csv, allocatable-reference.csv

Run from the repository root:
  python3 tools/catalog/derive_catalog.py --data ../shared/data --out instance-catalog/aws/us-east-1

Standard library only. Output is deterministic: the same inputs give byte-identical files.
"""

import argparse
import csv
import sys
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

REGION = "us-east-1"

# The data names zones by AZ ID (use1-az1...), which is the same physical zone in every account.
# AZ *names* (us-east-1a...) are shuffled per account, so no mapping is "right"; fleetsim needs
# names because users write them in NodePool requirements. We fix this one mapping, in order.
AZ_ID_TO_NAME = {f"use1-az{i}": f"us-east-1{letter}" for i, letter in enumerate("abcdef", start=1)}
ZONES = sorted(AZ_ID_TO_NAME.values())

# Common CPU families a user is likely to put in a NodePool next to GPU ones.
CPU_FAMILIES = (
    "m5 m5a m6i m6a m7i m7a m7g m6g c5 c5a c6i c6a c7i c7g c6g r5 r6i r6a r7i t3 t3a".split()
)

INSTANCE_TYPE_COLUMNS = [
    "instance_type", "family", "category", "generation", "size", "arch", "vcpu", "memory_mib",
    "gpu_count", "gpu_name", "gpu_manufacturer", "gpu_memory_mib", "accelerator_name",
    "accelerator_count", "network_gbps", "max_pods",
]
OFFERING_COLUMNS = [
    "instance_type", "zone", "capacity_type", "price_usd_per_hour", "interruption_bucket",
    "capacity",
]
ALLOCATABLE_COLUMNS = ["instance_type", "max_pods", "alloc_cpu_millicores", "alloc_memory_mib"]

SPOT_BUCKETS = {"<5%", "5-10%", "10-15%", "15-20%", ">20%"}
PRICE_PLACES = Decimal("0.000001")
PER_AZ_SOURCE = "skypilot-catalog v7 per-AZ"


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write_csv(path, columns, rows):
    # lineterminator "\n": one row per line, no CRLF, so the files diff cleanly in git.
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([row[c] for c in columns])


def plain(d):
    """A Decimal as plain text: no exponent, no trailing zeros ("25", "2.5", "0.03264")."""
    return format(d.normalize(), "f")


def price_text(d):
    """At most 6 decimal places, no scientific notation."""
    return plain(d.quantize(PRICE_PLACES, rounding=ROUND_HALF_EVEN))


def gib_to_mib(gib_text, exact):
    """The data stores GiB = MiB/1024; undo that. EC2 memory must come back exact; GPU memory
    was rounded to 3 decimals in the data, so round to the nearest MiB (at most 0.5 MiB off)."""
    mib = Decimal(gib_text) * 1024
    if exact:
        assert mib == mib.to_integral_value(), f"memory {gib_text} GiB is not a whole MiB"
    return int(mib.to_integral_value(rounding=ROUND_HALF_EVEN))


# ---------------------------------------------------------------------------------------------
# Selecting the instance types

def is_accelerated(row):
    # gpu_name also catches the fractional-GPU families (g6f, gr6f), whose gpu_count label is 0.
    return int(row["gpu_count"]) > 0 or int(row["accelerator_count"]) > 0 or row["gpu_name"] != ""


def select_types(catalog_rows):
    """Every family with any GPU/accelerator type, plus the CPU families above.
    Returns (kept rows, skipped type names); types without an on-demand price are skipped
    because fleetsim cannot bill them."""
    accelerated_families = {r["family"] for r in catalog_rows if is_accelerated(r)}
    wanted = accelerated_families | set(CPU_FAMILIES)
    kept, skipped = [], []
    for row in catalog_rows:
        if row["family"] not in wanted:
            continue
        if row["ondemand_usd_per_hour_us_east_1"] == "":
            skipped.append(row["instance_type"])
        else:
            kept.append(row)
    kept.sort(key=lambda r: r["instance_type"])
    return kept, sorted(skipped)


def instance_type_row(row):
    has_gpu_info = row["gpu_name"] != ""
    return {
        "instance_type": row["instance_type"],
        "family": row["family"],
        "category": row["category"],
        "generation": row["generation"],
        "size": row["size"],
        "arch": row["arch"],
        "vcpu": row["vcpu"],
        "memory_mib": gib_to_mib(row["memory_gib"], exact=True),
        "gpu_count": int(row["gpu_count"]),
        "gpu_name": row["gpu_name"],
        "gpu_manufacturer": row["gpu_manufacturer"],
        "gpu_memory_mib": gib_to_mib(row["gpu_memory_gib_per_gpu"], exact=False)
        if has_gpu_info else "",
        "accelerator_name": row["accelerator_name"],
        "accelerator_count": int(row["accelerator_count"]),
        "network_gbps": plain(Decimal(row["network_bandwidth_mbps"]) / 1000),
        "max_pods": int(row["max_pods"]),
    }


def allocatable_row(row):
    return {
        "instance_type": row["instance_type"],
        "max_pods": int(row["max_pods"]),
        "alloc_cpu_millicores": int(row["alloc_cpu_millicores"]),
        "alloc_memory_mib": int(row["alloc_memory_mib"]),
    }


# ---------------------------------------------------------------------------------------------
# Spot data

def load_advisor(advisor_rows, spot_rows):
    """us-east-1 advisor entries: type -> (savings_pct, bucket label). spot_aws.csv repeats the
    same advisor columns; check they agree so that the two files cannot silently diverge."""
    advisor = {}
    for r in advisor_rows:
        if r["region"] == REGION and r["os"] == "Linux":
            advisor[r["instance_type"]] = (int(r["savings_pct"]), r["interruption_bucket_label"])
    for r in spot_rows:
        if r["advisor_savings_pct"] == "":
            continue
        copy = (int(r["advisor_savings_pct"]), r["advisor_interruption_bucket_label"])
        assert advisor.get(r["instance_type"]) == copy, f"advisor mismatch for {r['instance_type']}"
    return advisor


def load_per_az_spot(spot_rows):
    """type -> {zone name: spot price}. Rows with an empty price mean the source has no spot
    price in that AZ; those zones get no spot offering."""
    per_az = {}
    for r in spot_rows:
        if r["region"] != REGION or r["price_source"] != PER_AZ_SOURCE:
            continue
        if r["spot_usd_per_hour"] == "":
            continue
        zone = AZ_ID_TO_NAME[r["availability_zone_id"]]
        prices = per_az.setdefault(r["instance_type"], {})
        assert zone not in prices, f"duplicate spot price for {r['instance_type']} {zone}"
        prices[zone] = Decimal(r["spot_usd_per_hour"])
    return per_az


def offerings_for(name, on_demand, per_az, advisor):
    """All offerings of one type, plus how its spot prices were obtained ("per-az",
    "advisor" or None)."""
    rows = [offering(name, z, "on-demand", on_demand, "") for z in ZONES]
    savings, bucket = advisor.get(name, (None, ""))
    if name in per_az:
        method = "per-az"
        spot = per_az[name]
    elif savings is not None:
        # The advisor's savings are a 30-day average across AZs, so the derived price is the
        # same in every zone; it stands in for per-AZ prices we do not have.
        method = "advisor"
        derived = on_demand * (100 - savings) / 100
        spot = {z: derived for z in ZONES}
    else:
        return rows, None
    rows += [offering(name, z, "spot", spot[z], bucket) for z in sorted(spot)]
    return rows, method


def offering(name, zone, capacity_type, price, bucket):
    # capacity is empty (unlimited): there is no public per-zone capacity data.
    return {
        "instance_type": name,
        "zone": zone,
        "capacity_type": capacity_type,
        "price_usd_per_hour": price_text(price),
        "interruption_bucket": bucket,
        "capacity": "",
    }


# ---------------------------------------------------------------------------------------------
# Checks: cheap invariants that catch a broken input file or a regression in this script

def check(types, offerings):
    names = [t["instance_type"] for t in types]
    assert names == sorted(names) and len(set(names)) == len(names), "types not unique/sorted"
    assert len(types) > 100, f"only {len(types)} types selected"
    for family in ("g4dn", "g5", "g6", "g6e", "p4d", "p5", "inf2", "trn1"):
        assert any(t["family"] == family for t in types), f"family {family} missing"

    on_demand = {(o["instance_type"], o["zone"]) for o in offerings
                 if o["capacity_type"] == "on-demand"}
    od_price = {}
    for o in offerings:
        assert o["zone"] in ZONES, o
        if o["capacity_type"] == "on-demand":
            assert o["interruption_bucket"] == "", o
            od_price[o["instance_type"]] = Decimal(o["price_usd_per_hour"])
        else:
            assert o["capacity_type"] == "spot", o
            assert (o["instance_type"], o["zone"]) in on_demand, f"spot without on-demand: {o}"
            assert o["interruption_bucket"] in SPOT_BUCKETS, f"spot without a bucket: {o}"
    for o in offerings:
        price = Decimal(o["price_usd_per_hour"])
        assert price > 0, o
        if o["capacity_type"] == "spot":
            assert price < od_price[o["instance_type"]], f"spot not cheaper than on-demand: {o}"
    assert len(on_demand) == len(types) * len(ZONES), "every type needs on-demand in every zone"

    keys = [(o["instance_type"], o["capacity_type"] != "on-demand", o["zone"]) for o in offerings]
    assert keys == sorted(keys) and len(set(keys)) == len(keys), "offerings not unique/sorted"


# ---------------------------------------------------------------------------------------------

def derive(data_dir, out_dir):
    catalog_rows = read_csv(data_dir / "instance_catalog_aws.csv")
    spot_rows = read_csv(data_dir / "spot_aws.csv")
    advisor = load_advisor(read_csv(data_dir / "spot_advisor_aws.csv"), spot_rows)
    per_az = load_per_az_spot(spot_rows)

    selected, skipped = select_types(catalog_rows)
    types = [instance_type_row(r) for r in selected]
    allocatable = [allocatable_row(r) for r in selected]

    offerings, methods = [], {}
    for r in selected:
        name = r["instance_type"]
        rows, method = offerings_for(
            name, Decimal(r["ondemand_usd_per_hour_us_east_1"]), per_az, advisor)
        offerings += rows
        methods[name] = method

    # per-AZ spot data for a type we did not select would be silently lost; make it loud.
    unused = sorted(set(per_az) - set(methods))
    assert not unused, f"per-AZ spot data for unselected types: {unused}"
    check(types, offerings)

    out_dir.mkdir(parents=True, exist_ok=True)
    write_csv(out_dir / "instance-types.csv", INSTANCE_TYPE_COLUMNS, types)
    write_csv(out_dir / "offerings.csv", OFFERING_COLUMNS, offerings)
    write_csv(out_dir / "allocatable-reference.csv", ALLOCATABLE_COLUMNS, allocatable)
    report(types, offerings, methods, skipped)


def report(types, offerings, methods, skipped):
    gpu = [t for t in types if t["gpu_count"] > 0]
    accel = [t for t in types if t["accelerator_count"] > 0]
    spot = [o for o in offerings if o["capacity_type"] == "spot"]
    by_method = {}
    for name, m in methods.items():
        by_method.setdefault(m or "none", []).append(name)
    accelerated = {t["instance_type"] for t in types if t["gpu_count"] > 0
                   or t["accelerator_count"] > 0 or t["gpu_name"]}
    fractional = [t for t in types if t["gpu_count"] == 0 and t["gpu_name"]]
    print(f"types: {len(types)}  (GPU: {len(gpu)}, fractional GPU (gpu_count 0): "
          f"{len(fractional)}, Neuron accelerator: {len(accel)})")
    print(f"offerings: {len(offerings)}  (on-demand: {len(offerings) - len(spot)}, "
          f"spot: {len(spot)})")
    for m in ("per-az", "advisor", "none"):
        print(f"spot method {m}: {len(by_method.get(m, []))} types")
    print("accelerated types without spot:",
          " ".join(sorted(n for n in by_method.get("none", []) if n in accelerated)) or "-")
    print("skipped (no on-demand price):", " ".join(skipped) or "-")


def main(argv):
    repo_root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=repo_root / ".." / "shared" / "data",
                        help="directory holding the public data CSVs (default: ../shared/data)")
    parser.add_argument("--out", type=Path, default=repo_root / "instance-catalog" / "aws" / REGION,
                        help="output directory (default: instance-catalog/aws/us-east-1)")
    args = parser.parse_args(argv)
    derive(args.data, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
