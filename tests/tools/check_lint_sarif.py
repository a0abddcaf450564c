#!/usr/bin/env python3
"""`fleetsim lint --sarif` checked against the official SARIF 2.1.0 JSON schema.

Usage: check_lint_sarif.py FLEETSIM SCHEMA
Writes a scenario with a reported finding (a budget that blocks disruption forever) and an
accepted one (an unneeded toleration) to a temporary folder, runs lint there with --sarif, and
validates the file (draft-04, as the schema declares). Exit 0 when valid.
"""

import json
import os
import subprocess
import sys
import tempfile

import jsonschema

POOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  disruption: {budgets: [{nodes: "0"}]}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm}
spec:
  replicas: 1
  selector: {matchLabels: {app: llm}}
  template:
    metadata: {labels: {app: llm}}
    spec:
      tolerations: [{key: dedicated, operator: Exists}]
      containers:
        - {name: c, resources: {requests: {nvidia.com/gpu: 1}}}
"""

SCENARIO = """name: sarif
duration: 1h
manifests: [manifests/pool.yaml]
lint: {accept: [unneeded-toleration@manifests/pool.yaml]}
"""


def main():
    fleetsim, schema_path = os.path.abspath(sys.argv[1]), sys.argv[2]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "manifests"))
        with open(os.path.join(d, "manifests", "pool.yaml"), "w", encoding="utf-8") as f:
            f.write(POOL)
        with open(os.path.join(d, "scenario.yaml"), "w", encoding="utf-8") as f:
            f.write(SCENARIO)
        run = subprocess.run(
            [fleetsim, "lint", "--warnings", "none", "--sarif", "lint.sarif", "scenario.yaml"],
            cwd=d, capture_output=True, text=True, check=False)
        if run.returncode != 1:  # the budget's finding is a warning
            print(f"lint exited {run.returncode}:\n{run.stdout}{run.stderr}", file=sys.stderr)
            return 1
        with open(os.path.join(d, "lint.sarif"), encoding="utf-8") as f:
            log = json.load(f)
    jsonschema.Draft4Validator(schema).validate(log)
    results = log["runs"][0]["results"]
    suppressed = [r["ruleId"] for r in results if "suppressions" in r]
    reported = {r["ruleId"] for r in results if "suppressions" not in r}
    if suppressed != ["unneeded-toleration"] or "budget-blocks-forever" not in reported:
        print(f"unexpected results: {json.dumps(results, indent=2)}", file=sys.stderr)
        return 1
    print("lint.sarif: valid SARIF 2.1.0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
