#!/usr/bin/env python3
"""tools/traces/spot_price_history.py on a describe-spot-price-history fixture: the price in
force at the start becomes the row at 0, later changes follow in time order, other operating
systems and repeated prices are left out, and --end cuts the trace."""
import json
import subprocess
import sys
import tempfile

HISTORY = {"SpotPriceHistory": [
    # Out of time order: the tool must not rely on the order EC2 lists prices in.
    {"AvailabilityZone": "us-east-1b", "InstanceType": "g5.xlarge",
     "ProductDescription": "Linux/UNIX", "SpotPrice": "0.401000",
     "Timestamp": "2026-11-01T03:00:00.000Z"},
    {"AvailabilityZone": "us-east-1b", "InstanceType": "g5.xlarge",
     "ProductDescription": "Windows", "SpotPrice": "0.900000",
     "Timestamp": "2026-11-01T02:00:00.000Z"},
    {"AvailabilityZone": "us-east-1a", "InstanceType": "g5.xlarge",
     "ProductDescription": "Linux/UNIX", "SpotPrice": "0.417700",
     "Timestamp": "2026-11-01T01:00:00.000Z"},
    {"AvailabilityZone": "us-east-1b", "InstanceType": "g5.xlarge",
     "ProductDescription": "Linux/UNIX", "SpotPrice": "0.390000",
     "Timestamp": "2026-10-31T20:00:00+00:00"},
    {"AvailabilityZone": "us-east-1b", "InstanceType": "g5.xlarge",
     "ProductDescription": "Linux/UNIX", "SpotPrice": "0.397000",
     "Timestamp": "2026-10-31T22:10:00+00:00"},
    {"AvailabilityZone": "us-east-1a", "InstanceType": "g5.xlarge",
     "ProductDescription": "Linux/UNIX", "SpotPrice": "0.417700",
     "Timestamp": "2026-10-30T00:00:00.000Z"},
    {"AvailabilityZone": "us-east-1a", "InstanceType": "g5.xlarge",
     "ProductDescription": "Linux/UNIX", "SpotPrice": "0.500000",
     "Timestamp": "2026-11-01T05:00:00.500Z"},
]}

EXPECTED = """time_s,instance_type,zone,price
0,g5.xlarge,us-east-1a,0.4177
0,g5.xlarge,us-east-1b,0.397
10800,g5.xlarge,us-east-1b,0.401
18000.5,g5.xlarge,us-east-1a,0.5
"""


def run(tool: str, *args: str) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(HISTORY, f)
        f.flush()
        return subprocess.run([sys.executable, tool, f.name, *args], check=True,
                              capture_output=True, text=True).stdout


def main() -> None:
    tool = sys.argv[1]
    failures = []
    got = run(tool, "2026-11-01T00:00:00Z")
    if got != EXPECTED:
        failures.append(f"whole trace:\n{got}\nexpected:\n{EXPECTED}")
    cut = run(tool, "2026-11-01T00:00:00Z", "--end", "2026-11-01T04:00:00Z")
    expected_cut = "".join(EXPECTED.splitlines(keepends=True)[:4])
    if cut != expected_cut:
        failures.append(f"with --end:\n{cut}\nexpected:\n{expected_cut}")
    if failures:
        sys.exit("\n".join(failures))
    print("spot_price_history: ok")


if __name__ == "__main__":
    main()
