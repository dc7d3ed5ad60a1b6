#!/usr/bin/env python3
"""Compares two islandpso HDF5 files (outputs or checkpoints) value for
value, bit for bit: every dataset and attribute, except the ones that hold
wall-clock times (wall_seconds, elapsed_seconds, started, finished, run_started), a
checkpoint's info_checksum (the checksum over its counts, which covers the run
time) and any given with --ignore. Exit 0 if identical, 1 with the differences listed."""
import argparse
import sys

import h5py
import numpy as np

TIMES = {"wall_seconds", "elapsed_seconds", "started", "finished", "run_started", "info_checksum"}


def items(f):
    out = {}

    def visit(name, obj):
        out[name] = obj

    f.visititems(visit)
    return out


def same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()
    return a == b


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--ignore", action="append", default=[], help="dataset or attribute name")
    ap.add_argument("--only", action="append", default=[], help="compare only these paths")
    args = ap.parse_args()
    skip = TIMES | set(args.ignore)
    diffs = []
    with h5py.File(args.a, "r") as fa, h5py.File(args.b, "r") as fb:
        ia, ib = items(fa), items(fb)
        ia[""], ib[""] = fa, fb
        names = sorted(set(ia) | set(ib))
        if args.only:
            names = [n for n in names if any(n == o or n.startswith(o + "/") for o in args.only)]
        for n in names:
            if n.split("/")[-1] in skip:
                continue
            if n not in ia or n not in ib:
                diffs.append(f"{n or '/'}: only in {'first' if n in ia else 'second'}")
                continue
            oa, ob = ia[n], ib[n]
            if isinstance(oa, h5py.Dataset):
                if not same(oa[()], ob[()]):
                    diffs.append(f"{n}: values differ")
            for k in sorted(set(oa.attrs) | set(ob.attrs)):
                if k in skip:
                    continue
                if k not in oa.attrs or k not in ob.attrs or not same(oa.attrs[k], ob.attrs[k]):
                    diffs.append(f"{n or '/'}@{k}: attribute differs")
    for d in diffs:
        print(d)
    print("identical" if not diffs else f"{len(diffs)} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
