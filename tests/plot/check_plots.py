#!/usr/bin/python3
"""tools/plot/plot.py on a golden run and on a sweep: each PNG is written, non-empty and a PNG;
a folder with neither output exits 2 naming it.

Usage: check_plots.py PYTHON FLEETSIM SOURCE_DIR WORK_DIR
"""

import os
import shutil
import subprocess
import sys

PNG = b"\x89PNG\r\n\x1a\n"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def plot(python, script, folder, out):
    result = subprocess.run([python, script, folder, "--out", out], capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


def expect_pngs(out, names):
    for name in names:
        path = os.path.join(out, name)
        if not os.path.isfile(path) or os.path.getsize(path) < 1000:
            fail(f"{path} is missing or nearly empty")
        with open(path, "rb") as f:
            if f.read(8) != PNG:
                fail(f"{path} is not a PNG")


def main():
    python, fleetsim, source, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    script = os.path.join(source, "tools/plot/plot.py")

    code, _, err = plot(python, script, os.path.join(source, "tests/scenarios/model-pair"),
                        os.path.join(work, "run"))
    if code != 0:
        fail(f"plot.py on a run: exit {code}: {err}")
    expect_pngs(os.path.join(work, "run"),
                ["services.png", "nodes.png", "gpus.png", "cost.png", "latency.png"])

    sweep = os.path.join(work, "sweep")
    subprocess.run([fleetsim, "sweep",
                    os.path.join(source, "scenarios/studies/model-pair-consolidation.yaml"),
                    "--out", sweep, "-j", "2"], check=True, stdout=subprocess.DEVNULL)
    code, _, err = plot(python, script, sweep, os.path.join(work, "sweep-plots"))
    if code != 0:
        fail(f"plot.py on a sweep: exit {code}: {err}")
    expect_pngs(os.path.join(work, "sweep-plots"),
                ["frontier.png", "param_consolidate_after.png", "param_surge_factor.png"])

    empty = os.path.join(work, "empty")
    os.makedirs(empty)
    code, _, err = plot(python, script, empty, os.path.join(work, "none"))
    if code != 2 or "neither a run's timeseries.csv nor a sweep's results.csv" not in err:
        fail(f"plot.py on an empty folder: exit {code}, {err!r}")
    print("ok: 5 run charts, 3 sweep charts, and the error")


if __name__ == "__main__":
    main()
