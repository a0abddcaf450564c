#!/usr/bin/env python3
"""Derive the MIG layouts table of fleetsim's AWS catalog from NVIDIA's mig-parted.

Input:
  --config  mig-parted's deployments/systemd/config-default.yaml (github.com/NVIDIA/mig-parted,
            the named layouts the GPU Operator's nvidia.com/mig.config label selects)

Output, written to --out:
  mig-layouts.csv  one row per (GPU, layout, profile): the instances of the profile each GPU
                   gets, its compute slices (of 7) and memory slices (of 8), and its memory

For each GPU model of the catalog (below: its catalog name and per-GPU MiB, and its PCI device
ID as mig-parted's device filters give it), a layout is kept when mig-parted's default config
gives it for that GPU: an `all-<profile>` layout whose profile the GPU has (NVIDIA's MIG user
guide, "Supported MIG Profiles": the profiles below), picking the entry whose device-filter names
the GPU when there are several, plus `all-balanced` by device filter and `all-disabled`. The
media-extension layouts (`+me`) are left out. Compute slices are the profile's `<N>g`; memory
slices its memory over an eighth of the GPU's (the user guide's tables).

Run from the repository root:
  python3 tools/catalog/derive_mig_layouts.py --config config-default.yaml --commit bd7160f4 \
      --out instance-catalog/aws/us-east-1

Needs python3-yaml (Debian). Output is deterministic.
"""

import argparse
import csv
import re
import sys
from pathlib import Path

import yaml

# (catalog gpu_name, catalog gpu_memory_mib, PCI device ID in mig-parted, profiles per the MIG
# user guide).
GPUS = [
    ("a100", 40960, "0x20B010DE", ["1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"]),
    ("a100", 81920, "0x20B210DE", ["1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"]),
    ("h100", 81920, "0x233010DE", ["1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"]),
    ("h200", 144384, "0x233510DE",
     ["1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"]),
    ("b200", 183359, "0x290110DE",
     ["1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"]),
]

COLUMNS = ["gpu_name", "gpu_memory_mib", "layout", "profile", "instances_per_gpu",
           "compute_slices", "memory_slices", "memory_gb", "source"]

MIG_PARTED = "github.com/NVIDIA/mig-parted deployments/systemd/config-default.yaml"

PROFILE = re.compile(r"^(\d)g\.(\d+)gb$")


def entries_for(layout_entries, device_id):
    """The layout's entries that apply to the device: its own device filter, else unfiltered."""
    matching, unfiltered = [], []
    for e in layout_entries:
        f = e.get("device-filter")
        if f is None:
            unfiltered.append(e)
        elif device_id in ([f] if isinstance(f, str) else f):
            matching.append(e)
    return matching or unfiltered


def rows_for(configs, gpu_name, mib, device_id, profiles):
    full_gb = int(PROFILE.match(profiles[-1]).group(2))  # the 7g profile holds the whole GPU
    out = []

    def add(layout, counts):
        for profile, n in sorted(counts.items()):
            m = PROFILE.match(profile)
            if m is None or profile not in profiles:
                return False
            gb = int(m.group(2))
            out.append([gpu_name, mib, layout, profile, n, int(m.group(1)),
                        round(gb * 8 / full_gb), gb])
        return True

    out.append([gpu_name, mib, "all-disabled", "", 0, 0, 0, 0])
    for layout in sorted(configs):
        if layout != "all-balanced" and not re.match(r"^all-\dg\.\d+gb$", layout):
            continue
        entries = entries_for(configs[layout], device_id)
        if len(entries) != 1 or not entries[0].get("mig-enabled"):
            continue
        counts = entries[0].get("mig-devices") or {}
        if layout != "all-balanced" and layout[len("all-"):] not in profiles:
            continue
        before = len(out)
        if not add(layout, counts):
            del out[before:]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--commit", required=True, help="the mig-parted commit the config is from")
    args = ap.parse_args()
    configs = yaml.safe_load(args.config.read_text())["mig-configs"]
    rows = []
    for gpu_name, mib, device_id, profiles in GPUS:
        got = rows_for(configs, gpu_name, mib, device_id, profiles)
        if len(got) < 2:
            sys.exit(f"no MIG layouts for {gpu_name} {mib} MiB in {args.config}")
        for r in got:
            r.append(f"{MIG_PARTED} at {args.commit} ({r[2]}, device {device_id}); profile "
                     f"slices: NVIDIA MIG user guide, Supported MIG Profiles")
        rows.extend(got)
    path = args.out / "mig-layouts.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {path}")


if __name__ == "__main__":
    main()
