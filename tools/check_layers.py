#!/usr/bin/env python3
"""The layer rules of ARCHITECTURE.md, checked on the sources.

Every file of src/, io/, mpi/, kernels/ and bench/ belongs to one layer; a
layer may include its own headers and those of the layers it builds on,
and some system headers are forbidden to it (kernels/ knows nothing of MPI
or HDF5, mpi/ nothing of CUDA, ...). Also checked: no cycle among the
project's own includes. The build runs this (target `layer_check`, a
dependency of every library), so a forbidden include fails the build.

    check_layers.py SOURCE_DIR [--stamp FILE]

Exit 0 when the tree obeys the rules, 1 with one line per violation.
"""
import os
import re
import sys

# Layer of a file: the first matching (directory, file-name pattern).
LAYERS = [
    # The shared objective formulas are plain C for host and device alike.
    ("kernels", r"objectives\.h$", "base"),
    ("kernels", r".*", "gpu"),
    ("mpi", r".*", "comm"),
    ("io", r"config.*", "base"),
    ("io", r".*", "io"),
    ("src", r"backend_cpu.*", "cpu"),
    ("src", r"(solver.*|main|invariants)\.[ch]$|backend\.c$", "solver"),
    ("src", r".*", "base"),
    ("bench", r".*", "bench"),
]

# What each layer may include of the project (besides itself).
USES = {
    "base": {"base"},
    "cpu": {"base"},
    "gpu": {"base"},
    "comm": {"base"},
    "io": {"base", "comm"},
    "solver": {"base", "cpu", "gpu", "comm", "io"},
    "bench": {"base", "cpu", "gpu", "comm", "io", "solver"},
}

MPI = r"mpi\.h|mpio\.h|mpi_.*\.h"
HDF5 = r"hdf5.*\.h|H5.*\.h"
CUDA = r"cuda.*\.h|nvrtc\.h|curand.*\.h|cub/.*|thrust/.*|nv/.*"
FORBIDDEN = {
    "base": [MPI, HDF5, CUDA],
    "cpu": [MPI, HDF5, CUDA],
    "gpu": [MPI, HDF5],
    "comm": [CUDA, HDF5],
    "io": [CUDA],
    "solver": [CUDA],
    "bench": [],
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCES = (".c", ".h", ".cpp", ".cu", ".cuh")


def layer_of(rel):
    d, name = rel.split("/", 1)
    for ld, pat, layer in LAYERS:
        if ld == d and re.match(pat, name):
            return layer
    return None


def scan(root):
    files = {}
    for d in ("src", "io", "mpi", "kernels", "bench"):
        base = os.path.join(root, d)
        if not os.path.isdir(base):
            continue
        for name in sorted(os.listdir(base)):
            if name.endswith(SOURCES):
                files[f"{d}/{name}"] = os.path.join(base, name)
    return files


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    stamp = argv[argv.index("--stamp") + 1] if "--stamp" in argv else None
    files = scan(root)
    by_name = {}
    for rel in files:
        by_name.setdefault(os.path.basename(rel), []).append(rel)
    errors = []
    graph = {}
    for rel, path in files.items():
        layer = layer_of(rel)
        graph[rel] = []
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                kind, inc = m.groups()
                where = f"{rel}:{lineno}"
                for pat in FORBIDDEN[layer]:
                    if re.fullmatch(pat, inc):
                        errors.append(f"{where}: the {layer} layer must not include <{inc}>")
                if kind != '"':
                    continue
                targets = by_name.get(os.path.basename(inc), [])
                if not targets:
                    continue  # a generated or system file
                if len(targets) > 1:
                    errors.append(f"{where}: \"{inc}\" is ambiguous: {', '.join(targets)}")
                    continue
                dep = targets[0]
                graph[rel].append((dep, lineno))
                dl = layer_of(dep)
                if dl != layer and dl not in USES[layer]:
                    errors.append(f"{where}: the {layer} layer must not include {dep} "
                                  f"(layer {dl})")
    # Include cycles (depth-first search; report each cycle once).
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for dep, _ in graph.get(node, []):
            if state.get(dep) == 1:
                cyc = stack[stack.index(dep):] + [dep]
                errors.append("include cycle: " + " -> ".join(cyc))
            elif dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    for e in errors:
        print(f"check_layers: {e}", file=sys.stderr)
    if errors:
        return 1
    if stamp:
        with open(stamp, "w") as f:
            f.write(f"{len(files)} files obey the layer rules\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
