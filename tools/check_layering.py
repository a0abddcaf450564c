#!/usr/bin/env python3
"""Fails when a module reaches above itself in the layering of DESIGN.md §2.

Checks, against the one module order below:
  * every #include in include/fleetsim/<m>/** and src/<m>/** (src/main.cpp counts as cli):
    `fleetsim/<other>/...`, and quoted relative includes that land in another module's
    folder, must name a module below <m> or <m> itself;
  * every `fleetsim_module(<m> DEPS ...)` in CMakeLists.txt names only modules below <m>;
  * tests/unit/<m>/** may include modules up to <m> and the test helpers of those modules
    (tests/unit/<x>/*.hpp with <x> at or below <m>).
bench/ and the tests outside tests/unit/ are exempt. A module of the order that does not
exist yet is fine; a folder or include naming a module that is not in the order is an error.

Usage: tools/check_layering.py [--root DIR] [--self-test]
Exit status: 0 clean, 1 violations found (listed as `file:line: <module> includes <other> ...`).
Python 3 standard library only.
"""

import argparse
import os
import re
import sys
import tempfile

# The module order, lowest first. Modules in one tuple share a level and must not include
# each other. This is the only copy of the order: CMakeLists.txt is checked against it.
LEVELS = [
    ("core",),
    ("engine",),
    ("traffic",),
    ("serving",),
    ("k8s",),
    ("catalog",),
    ("scheduling",),
    ("cloudprovider",),
    ("kube",),
    ("workload", "autoscaling"),
    ("service",),
    ("provisioning",),
    ("disruption",),
    ("scenario",),
    ("world", "efficiency"),
    ("runner",),
    ("report",),
    ("study",),
    ("cli",),
]

LEVEL = {m: i for i, level in enumerate(LEVELS) for m in level}

SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cc", ".hh", ".ipp", ".inl")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
FLEETSIM_INCLUDE_RE = re.compile(r"^fleetsim/([^/]+)/")
MODULE_CALL_RE = re.compile(r"\bfleetsim_module\s*\(([^)]*)\)", re.S)
CMAKE_KEYWORDS = {"DEPS", "LIBS"}


def relation(user, used):
    """Why `user` may not use `used`, or None when it may."""
    if used == user or LEVEL[used] < LEVEL[user]:
        return None
    if LEVEL[used] == LEVEL[user]:
        return "at its level"
    return "above it"


def source_files(directory):
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(dirpath, name)


def module_of_path(root, path):
    """(kind, module) for a file under include/fleetsim/<m>, src/<m> or tests/unit/<m>."""
    rel = os.path.relpath(os.path.normpath(path), root).replace(os.sep, "/")
    parts = rel.split("/")
    if rel == "src/main.cpp":
        return ("src", "cli")
    if len(parts) >= 4 and parts[0] == "include" and parts[1] == "fleetsim":
        return ("include", parts[2])
    if len(parts) >= 3 and parts[0] == "src":
        return ("src", parts[1])
    if len(parts) >= 4 and parts[0] == "tests" and parts[1] == "unit":
        return ("test", parts[2])
    return (None, None)


def resolve_quoted(root, path, target, search_dirs):
    """The file a quoted include names: next to the including file, then on the include path."""
    for base in [os.path.dirname(path)] + search_dirs:
        candidate = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(candidate):
            return candidate
    return None


def check_file(root, path, module, is_test, problems):
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    search_dirs = [os.path.join(root, "include")]
    if is_test:
        search_dirs.append(os.path.join(root, "tests"))
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            bracket, target = m.groups()
            used, what = None, None
            fm = FLEETSIM_INCLUDE_RE.match(target)
            if fm:
                used, what = fm.group(1), "module"
            elif bracket == '"':
                resolved = resolve_quoted(root, path, target, search_dirs)
                if resolved is None:
                    continue
                kind, used = module_of_path(root, resolved)
                if kind is None:
                    continue
                what = "test helpers" if kind == "test" else "module"
                if kind == "test" and not is_test:
                    problems.append(f"{rel}:{lineno}: {module} includes test helpers of {used}")
                    continue
            else:
                continue
            if used not in LEVEL:
                problems.append(f"{rel}:{lineno}: {module} includes {target} "
                                f"({used} is not a module of the order)")
                continue
            why = relation(module, used)
            if why:
                subject = f"test of {module}" if is_test else module
                other = f"test helpers of {used}" if what == "test helpers" else used
                problems.append(f"{rel}:{lineno}: {subject} includes {other} ({why})")


def check_sources(root, problems):
    for top, kind in ((os.path.join(root, "include", "fleetsim"), "include"),
                      (os.path.join(root, "src"), "src"),
                      (os.path.join(root, "tests", "unit"), "test")):
        if not os.path.isdir(top):
            continue
        for name in sorted(os.listdir(top)):
            full = os.path.join(top, name)
            if not os.path.isdir(full):
                if kind == "src" and name == "main.cpp":
                    check_file(root, full, "cli", False, problems)
                elif name.endswith(SOURCE_SUFFIXES):
                    rel = os.path.relpath(full, root).replace(os.sep, "/")
                    problems.append(f"{rel}:1: not inside a module folder")
                continue
            if name not in LEVEL:
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                problems.append(f"{rel}: folder of a module that is not in the order "
                                f"(add it to LEVELS in tools/check_layering.py)")
                continue
            for path in source_files(full):
                check_file(root, path, name, kind == "test", problems)


def check_cmake(root, problems):
    path = os.path.join(root, "CMakeLists.txt")
    if not os.path.isfile(path):
        return
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # Blank out comments, keeping offsets (and so line numbers) intact.
    text = re.sub(r"#[^\n]*", lambda m: " " * len(m.group(0)), text)
    for call in MODULE_CALL_RE.finditer(text):
        lineno = text.count("\n", 0, call.start()) + 1
        args = call.group(1).split()
        if not args:
            continue
        module, rest = args[0], args[1:]
        if module not in LEVEL:
            problems.append(f"CMakeLists.txt:{lineno}: fleetsim_module({module}): "
                            f"not a module of the order")
            continue
        section = None
        for arg in rest:
            if arg in CMAKE_KEYWORDS:
                section = arg
                continue
            if section != "DEPS":
                continue
            if arg not in LEVEL:
                problems.append(f"CMakeLists.txt:{lineno}: {module} depends on {arg} "
                                f"(not a module of the order)")
            elif arg == module:
                problems.append(f"CMakeLists.txt:{lineno}: {module} depends on itself")
            else:
                why = relation(module, arg)
                if why:
                    problems.append(f"CMakeLists.txt:{lineno}: {module} depends on {arg} ({why})")


def check_tree(root):
    problems = []
    check_sources(root, problems)
    check_cmake(root, problems)
    return problems


def self_test():
    """Builds a small tree with known violations and checks that each one is reported."""
    files = {
        "CMakeLists.txt": (
            "fleetsim_module(core LIBS fmt::fmt)\n"
            "fleetsim_module(engine DEPS core)\n"
            "# fleetsim_module(engine DEPS cli)  a comment, ignored\n"
            "fleetsim_module(workload\n  DEPS kube autoscaling)\n"
            "fleetsim_module(runner DEPS report)\n"),
        "include/fleetsim/core/time.hpp": "#pragma once\n#include <cstdint>\n",
        "include/fleetsim/engine/sim.hpp": '#pragma once\n#include "fleetsim/core/time.hpp"\n',
        "include/fleetsim/engine/bad.hpp":
            '#pragma once\n#include "fleetsim/core/time.hpp"\n#include <fleetsim/world/world.hpp>\n',
        "include/fleetsim/world/world.hpp": '#include "fleetsim/engine/sim.hpp"\n',
        "include/fleetsim/workload/job.hpp": '#include "fleetsim/autoscaling/hpa.hpp"\n',
        "include/fleetsim/autoscaling/hpa.hpp": "#pragma once\n",
        "include/fleetsim/service/runtime.hpp":
            '#include "fleetsim/autoscaling/hpa.hpp"\n#include "fleetsim/scenario/config.hpp"\n',
        "src/cloudprovider/aws/ec2.cpp": '#include "fleetsim/kube/binder.hpp"\n',
        "src/catalog/private.hpp": "#pragma once\n",
        "src/core/sneaky.cpp": '#include "../catalog/private.hpp"\n',
        "src/engine/unknown.cpp": '#include "fleetsim/gadgets/x.hpp"\n',
        "src/main.cpp": '#include "fleetsim/world/world.hpp"\n#include "fleetsim/cli/app.hpp"\n',
        "tests/unit/k8s/harness.hpp": '#include "fleetsim/core/time.hpp"\n',
        "tests/unit/core/time_test.cpp":
            '#include "fleetsim/core/time.hpp"\n#include "unit/k8s/harness.hpp"\n',
        "tests/unit/kube/binder_test.cpp":
            '#include "unit/k8s/harness.hpp"\n#include "fleetsim/cli/app.hpp"\n',
        "bench/anything.cpp": '#include "fleetsim/cli/app.hpp"\n',
    }
    expected = {
        "include/fleetsim/engine/bad.hpp:3: engine includes world (above it)",
        "include/fleetsim/workload/job.hpp:1: workload includes autoscaling (at its level)",
        "include/fleetsim/service/runtime.hpp:2: service includes scenario (above it)",
        "src/cloudprovider/aws/ec2.cpp:1: cloudprovider includes kube (above it)",
        "src/core/sneaky.cpp:1: core includes catalog (above it)",
        "src/engine/unknown.cpp:1: engine includes fleetsim/gadgets/x.hpp "
        "(gadgets is not a module of the order)",
        "tests/unit/core/time_test.cpp:2: test of core includes test helpers of k8s (above it)",
        "tests/unit/kube/binder_test.cpp:2: test of kube includes cli (above it)",
        "CMakeLists.txt:4: workload depends on autoscaling (at its level)",
        "CMakeLists.txt:6: runner depends on report (above it)",
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        found = set(check_tree(root))
        missed, extra = expected - found, found - expected
        # A clean tree passes: drop every offending file and line.
        for rel in ("include/fleetsim/engine/bad.hpp", "include/fleetsim/workload/job.hpp",
                    "include/fleetsim/service/runtime.hpp",
                    "src/cloudprovider/aws/ec2.cpp", "src/core/sneaky.cpp",
                    "src/engine/unknown.cpp", "tests/unit/core/time_test.cpp",
                    "tests/unit/kube/binder_test.cpp"):
            os.remove(os.path.join(root, rel))
        with open(os.path.join(root, "CMakeLists.txt"), "w", encoding="utf-8") as f:
            f.write("fleetsim_module(core)\nfleetsim_module(workload DEPS kube)\n"
                    "fleetsim_module(report DEPS runner)\n")
        leftover = check_tree(root)
    ok = not missed and not extra and not leftover
    for p in sorted(missed):
        print(f"self-test: not reported: {p}", file=sys.stderr)
    for p in sorted(extra):
        print(f"self-test: reported but not expected: {p}", file=sys.stderr)
    for p in leftover:
        print(f"self-test: clean tree reported: {p}", file=sys.stderr)
    print("check_layering self-test: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="repository root (default: the parent of tools/)")
    parser.add_argument("--self-test", action="store_true",
                        help="check that the checker catches planted violations, then exit")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    problems = check_tree(args.root)
    for p in problems:
        print(p)
    sys.stdout.flush()
    if problems:
        print(f"check_layering: {len(problems)} violation(s) of the module order", file=sys.stderr)
        return 1
    print("check_layering: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
