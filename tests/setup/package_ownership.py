#!/usr/bin/env python3
"""Every program, library and Python module the build and the tests resolve under /usr comes from
a Debian package that scripts/setup.sh installs (or that every Debian system has: Essential, or
Priority: required). A package installed by hand makes one machine green and every user's red;
this check turns that into a failing test that names the file, the package and the line to add.

What is looked at:
  - CMakeCache.txt: every FILEPATH/PATH/STRING value that is an absolute path under /usr
    (programs CMake found: compilers, archivers, llvm-* tools, python3, ...), except the compiler
    launcher, which is a developer's choice (ccache), not something the project needs;
  - build.ninja: every absolute /usr path in the compile, link and custom commands (headers'
    include directories, libraries linked, tools the corpus build and the tests call);
  - the Python modules that the Python tests and the Triton harness import (non-stdlib), as
    /usr/bin/python3 resolves them.

Usage: package_ownership.py --build DIR --setup scripts/setup.sh --repo DIR [--self-test PKG]
--self-test PKG: run the check as if PKG were missing from setup.sh's list and succeed only if the
check then fails and names PKG (shows that the check detects a removal).
"""
import argparse
import ast
import os
import re
import subprocess
import sys

# Directories that many packages share: their owners say nothing about what the project needs.
SHARED_DIRS = {"/usr", "/usr/bin", "/usr/sbin", "/usr/include", "/usr/lib", "/usr/lib64", "/usr/libexec",
               "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/share", "/usr/local",
               "/usr/lib/python3", "/usr/lib/python3/dist-packages", "/usr/lib/cmake", "/usr/share/cmake"}
# Python files the suite runs. corpus/triton/kernels/*.py and corpus/triton/build.py import Triton
# and run only on the machine that builds the Triton corpus (corpus/triton/README.md), not here.
PYTHON_TEST_GLOBS = ["tests", "corpus/triton/reference.py", "scripts"]
PYTHON_NOT_RUN_HERE = ["corpus/triton/kernels", "corpus/triton/build.py"]


def setup_packages(setup_sh):
    """The names in setup.sh's `packages=( ... )` list, and the line of the closing parenthesis."""
    lines = open(setup_sh).read().split("\n")
    pkgs, start, end = [], None, None
    for i, line in enumerate(lines):
        if start is None and re.match(r"\s*packages=\(", line):
            start = i
        if start is not None:
            body = line.split("#", 1)[0]
            if i == start:
                body = body.split("(", 1)[1]
            closed = ")" in body
            pkgs += body.split(")", 1)[0].split()
            if closed:
                end = i
                break
    if start is None or end is None:
        sys.exit(f"{setup_sh}: no `packages=( ... )` list found: the check cannot tell what setup installs")
    return pkgs, end + 1


def cache_paths(cache):
    out = []
    for line in open(cache):
        m = re.match(r"([A-Za-z0-9_.+-]+):(FILEPATH|PATH|STRING|INTERNAL)=(.*)", line.rstrip("\n"))
        if not m:
            continue
        key, _, value = m.groups()
        if "LAUNCHER" in key:  # ccache or similar: a developer's choice
            continue
        for v in value.split(";"):
            if v.startswith("/usr/") and not v.startswith("/usr/share/cmake-") and not v.endswith("-NOTFOUND") \
                    and os.path.exists(v):
                out.append((v, f"CMakeCache.txt {key}"))
    return out


def ninja_paths(build_ninja, launcher_programs):
    out, seen = [], set()
    for line in open(build_ninja):
        for v in re.findall(r"(/usr/[A-Za-z0-9_./+-]+)", line):
            v = v.rstrip(".")
            # CMake's own modules (cmake-data, part of cmake) are neither programs nor libraries.
            if v in seen or v in launcher_programs or v.startswith("/usr/share/cmake-") or not os.path.exists(v):
                continue
            seen.add(v)
            out.append((v, "build.ninja"))
    return out


def python_module_paths(repo, python):
    files = []
    for g in PYTHON_TEST_GLOBS:
        p = os.path.join(repo, g)
        if os.path.isfile(p):
            files.append(p)
        for root, _, names in os.walk(p) if os.path.isdir(p) else []:
            files += [os.path.join(root, n) for n in names if n.endswith(".py")]
    skip = [os.path.join(repo, s) for s in PYTHON_NOT_RUN_HERE]
    files = [f for f in files if not any(f.startswith(s) for s in skip)]
    modules = {}
    for f in files:
        for node in ast.walk(ast.parse(open(f).read(), f)):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for n in names:
                modules.setdefault(n.split(".")[0], os.path.relpath(f, repo))
    local = {os.path.splitext(os.path.basename(f))[0] for f in files}
    query = sorted(m for m in modules if m not in local)
    script = ("import sys, importlib.util\n"
              "for m in sys.argv[1:]:\n"
              "    if m in sys.stdlib_module_names: continue\n"
              "    s = importlib.util.find_spec(m)\n"
              "    print(m, s.origin if s and s.origin else 'MISSING')\n")
    r = subprocess.run([python, "-c", script] + query, capture_output=True, text=True, check=True)
    out = []
    for line in r.stdout.split("\n"):
        if not line:
            continue
        m, origin = line.split(" ", 1)
        if origin == "MISSING":
            out.append((f"<python module {m}>", f"imported by {modules[m]}, not importable by {python}"))
        else:
            out.append((origin, f"python module {m} (imported by {modules[m]})"))
    return out


def owners(paths):
    """path -> list of owning packages (empty when no package owns it), via dpkg -S."""
    result = {}
    r = subprocess.run(["dpkg", "-S"] + paths, capture_output=True, text=True)
    for line in r.stdout.split("\n"):
        if ": " not in line or line.startswith("diversion"):
            continue
        pkgs, path = line.rsplit(": ", 1)
        for p in pkgs.split(", "):
            result.setdefault(path, []).append(p.split(":")[0])
    return result


def always_present(pkgs):
    """Packages every Debian system has: Essential: yes or Priority: required."""
    r = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Essential} ${Priority}\n"] + sorted(pkgs),
                       capture_output=True, text=True)
    out = set()
    for line in r.stdout.split("\n"):
        f = line.split()
        if len(f) >= 2 and ("yes" in f[1:] or "required" in f[1:]):
            out.add(f[0])
    return out


def check(args, dropped=None):
    listed, close_line = setup_packages(args.setup)
    if dropped:
        listed = [p for p in listed if p != dropped]
    cache = os.path.join(args.build, "CMakeCache.txt")
    ninja = os.path.join(args.build, "build.ninja")
    for f in (cache, ninja):
        if not os.path.exists(f):
            sys.exit(f"{f} does not exist: configure the build first (scripts/setup.sh)")
    launchers = set()
    for line in open(cache):
        m = re.match(r"CMAKE_\w*_COMPILER_LAUNCHER:\w+=(.*)", line.strip())
        if m and m.group(1):
            launchers |= {m.group(1), "/usr/bin/" + os.path.basename(m.group(1))}
    python = next((v for line in open(cache) if line.startswith("ASMEVO_SYSTEM_PYTHON:")
                   for v in [line.split("=", 1)[1].strip()]), "/usr/bin/python3")
    found = cache_paths(cache) + ninja_paths(ninja, launchers) + python_module_paths(args.repo, python)
    # Files and package-specific directories under /usr; one entry per path (the first reason).
    paths = {}
    for p, why in found:
        if p.startswith("<") or p.rstrip("/") not in SHARED_DIRS:
            paths.setdefault(p.rstrip("/") if not p.startswith("<") else p, why)
    problems = []
    real = [p for p in paths if not p.startswith("<")]
    own = owners(real)
    unowned = [p for p in real if p not in own]
    # dpkg records paths as packages ship them: try the resolved path (e.g. /usr/bin/python3 ->
    # python3.11) and, on a merged-/usr system, the /bin, /sbin or /lib path the package ships.
    def shipped(p):
        r = os.path.realpath(p)
        for a, b in (("/usr/bin/", "/bin/"), ("/usr/sbin/", "/sbin/"), ("/usr/lib/", "/lib/")):
            if r.startswith(a) and not owners([r]) and os.path.exists(b + r[len(a):]):
                return b + r[len(a):]
        return r
    resolved = {p: shipped(p) for p in unowned}
    own_resolved = owners(sorted(set(resolved.values()))) if resolved else {}
    for p in unowned:
        if resolved[p] in own_resolved:
            own[p] = own_resolved[resolved[p]]
    ok_pkgs = set(listed) | always_present({q for v in own.values() for q in v})
    fix = f"scripts/setup.sh line {close_line} (the packages=( list)"
    by_package = {}  # package -> [(path, why)], to name each missing package once
    for p, why in sorted(paths.items()):
        if p.startswith("<"):
            problems.append(f"{p}: {why}: install its Debian package and add it to {fix}")
            continue
        pk = own.get(p)
        if not pk:
            problems.append(f"{p} ({why}) belongs to no Debian package: it was installed by hand; "
                            f"install it from a Debian package instead and add that package to {fix}")
        elif not (set(pk) & ok_pkgs):
            by_package.setdefault(" or ".join(sorted(set(pk))), []).append((p, why))
    for pkg, files in sorted(by_package.items()):
        p, why = files[0]
        more = f" and {len(files) - 1} more file(s) of it" if len(files) > 1 else ""
        problems.append(f"{p} ({why}){more} comes from package {pkg}, which scripts/setup.sh does not install: "
                        f"add `{pkg.split(' or ')[0]}` to {fix}")
    return problems, len(paths), sorted(set(q for v in own.values() for q in v))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--setup", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--self-test", metavar="PKG")
    args = ap.parse_args()
    if args.self_test:
        listed, _ = setup_packages(args.setup)
        if args.self_test not in listed:
            sys.exit(f"--self-test {args.self_test}: not in scripts/setup.sh's list")
        problems, n, _ = check(args, dropped=args.self_test)
        named = [p for p in problems if f"`{args.self_test}`" in p]
        for p in problems:
            print("  (as expected) " + p)
        if not named:
            print(f"FAIL: with {args.self_test} removed from setup.sh's list the check did not name it")
            return 1
        print(f"ok: removing {args.self_test} from setup.sh's list makes the check fail and name it "
              f"({len(named)} file(s))")
        return 0
    problems, n, pkgs = check(args)
    print(f"package ownership: {n} paths under /usr from {len(pkgs)} packages: {' '.join(pkgs)}")
    for p in problems:
        print("MISSING: " + p)
    if problems:
        print(f"{len(problems)} path(s) come from packages scripts/setup.sh does not install")
        return 1
    print("ok: every path comes from a package scripts/setup.sh installs or every Debian system has")
    return 0


if __name__ == "__main__":
    sys.exit(main())
