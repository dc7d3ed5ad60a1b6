#!/usr/bin/env python3
"""The layer rules of ARCHITECTURE.md, checked on the sources.

Every folder of the product is one layer (one library): a file's folder
says its layer. A layer may include its own headers and those of the layers
it builds on, and some system headers are forbidden to it (kernels/ knows
nothing of MPI or HDF5, mpi/ nothing of CUDA, ...). Also checked: no
include cycle among the project's files, and no function declared in one
folder's header but defined in another folder (so calls, like includes,
only go down the layers). The build runs this (target `layer_check`, a
dependency of every library), so a forbidden include fails the build.

    check_layers.py SOURCE_DIR [--stamp FILE]

Exit 0 when the tree obeys the rules, 1 with one line per violation.
"""
import os
import re
import sys

# The layers: folder -> (layer, the layers it builds on).
LAYERS = {
    "src/base": ("base", set()),
    "src/problem": ("problem", {"base"}),
    "io/config": ("config", {"base", "problem"}),
    "src/model": ("model", {"base", "problem", "config"}),
    "src/cpu": ("cpu", {"base", "problem", "config", "model"}),
    "kernels": ("gpu", {"base", "problem", "config", "model"}),
    "mpi": ("comm", {"base"}),
    "io/files": ("files", {"base"}),
    "io/hdf5": ("hdf5", {"base", "problem", "config", "model", "comm", "files"}),
    "src/solver": ("solver", {"base", "problem", "config", "model", "cpu", "gpu", "comm",
                              "files", "hdf5"}),
    "bench": ("bench", {"base", "problem", "config", "model", "cpu", "gpu", "comm", "files",
                        "hdf5", "solver"}),
}

MPI = r"mpi\.h|mpio\.h|mpi_.*\.h"
HDF5 = r"hdf5.*\.h|H5.*\.h"
CUDA = r"cuda.*\.h|nvrtc\.h|curand.*\.h|cub/.*|thrust/.*|nv/.*"
# System headers a layer must not include.
FORBIDDEN = {
    "base": [MPI, HDF5, CUDA],
    "problem": [MPI, HDF5, CUDA],
    "config": [MPI, HDF5, CUDA],
    "model": [MPI, HDF5, CUDA],
    "cpu": [MPI, HDF5, CUDA],
    "gpu": [MPI, HDF5],
    "comm": [CUDA, HDF5],
    "files": [MPI, HDF5, CUDA],
    "hdf5": [CUDA],
    "solver": [CUDA],
    "bench": [],
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCES = (".c", ".h", ".cpp", ".hpp", ".cu", ".cuh")
HEADERS = (".h", ".hpp", ".cuh")
# A function declared in a header (a prototype at the start of a line), and
# one defined in a source (its name, then its body on a later line).
DECLARED = re.compile(r"^[A-Za-z_][\w \*]*?\b([a-z_]\w*)\s*\([^;{]*\)\s*;", re.M)
DEFINED = re.compile(r"^[A-Za-z_][\w \*]*?\b([a-z_]\w*)\s*\([^;{]*\)\s*\{", re.M)


def scan(root):
    """The product's files: relative path -> (folder, absolute path)."""
    files = {}
    for folder in LAYERS:
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            continue
        for name in sorted(os.listdir(base)):
            if name.endswith(SOURCES) and os.path.isfile(os.path.join(base, name)):
                files[f"{folder}/{name}"] = (folder, os.path.join(base, name))
    return files


def strip(text):
    """TEXT without comments, strings and preprocessor lines."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    return re.sub(r"^\s*#[^\n]*(\\\n[^\n]*)*", " ", text, flags=re.M)


def check_includes(files, errors):
    by_name = {}
    for rel in files:
        by_name.setdefault(os.path.basename(rel), []).append(rel)
    graph = {}
    for rel, (folder, path) in files.items():
        layer, uses = LAYERS[folder]
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
                graph[rel].append(dep)
                dl = LAYERS[files[dep][0]][0]
                if dl != layer and dl not in uses:
                    errors.append(f"{where}: the {layer} layer must not include {dep} "
                                  f"(layer {dl})")
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for dep in graph.get(node, []):
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


def check_calls(files, errors):
    """Every function a folder's header declares is defined in that folder
    (where it is defined at all): no header promises what a layer above
    implements, so no call goes up a layer."""
    declared, defined = {}, {}
    for rel, (folder, path) in files.items():
        with open(path, encoding="utf-8", errors="replace") as f:
            text = strip(f.read())
        if rel.endswith(HEADERS):
            for m in DECLARED.finditer(text):
                declared.setdefault(m.group(1), set()).add((folder, rel))
        for m in DEFINED.finditer(text):
            defined.setdefault(m.group(1), set()).add(folder)
    for name, where in sorted(declared.items()):
        homes = defined.get(name)
        if not homes:
            continue
        for folder, rel in sorted(where):
            if folder not in homes:
                errors.append(f"{rel}: declares {name}(), which {', '.join(sorted(homes))}/ "
                              f"defines")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    stamp = argv[argv.index("--stamp") + 1] if "--stamp" in argv else None
    files = scan(root)
    errors = []
    check_includes(files, errors)
    check_calls(files, errors)
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
