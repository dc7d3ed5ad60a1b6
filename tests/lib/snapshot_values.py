#!/usr/bin/env python3
"""Checks that runs of the same swarm with different objective code give the
same values: in the snapshots of the given iterations, the positions of
every OTHER file equal REF's bit for bit and the fitness agrees to a
relative TOL (|a - b| / (1 + |b|)). Exit 0 if so, 1 with the difference."""
import argparse
import sys

import h5py
import numpy as np

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("ref")
ap.add_argument("other", nargs="+")
ap.add_argument("--iterations", default="0,1")
ap.add_argument("--tol", type=float, default=1e-12)
a = ap.parse_args()
ok = True
with h5py.File(a.ref) as r:
    for path in a.other:
        with h5py.File(path) as o:
            for it in a.iterations.split(","):
                pr, po = r[f"/snapshots/{it}/position"][()], o[f"/snapshots/{it}/position"][()]
                if not np.array_equal(pr, po):
                    print(f"{path}: positions differ from {a.ref} at iteration {it}")
                    ok = False
                    continue
                fr, fo = r[f"/snapshots/{it}/fitness"][()], o[f"/snapshots/{it}/fitness"][()]
                rel = float(np.max(np.abs(fo - fr) / (1 + np.abs(fr))))
                print(f"{path} iteration {it}: largest relative fitness difference {rel:.2e}")
                ok = ok and rel <= a.tol
sys.exit(0 if ok else 1)
