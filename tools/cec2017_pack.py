#!/usr/bin/env python3
"""Pack the CEC 2017 bound-constrained suite's data into one HDF5 file.

    cec2017_pack.py INPUT_DATA_DIR OUTPUT.h5

INPUT_DATA_DIR holds the organizers' text files (shift_data_F.txt,
M_F_DD.txt, shuffle_data_F_DD.txt). The output holds, for every function F
in 1, 3..30 and D in 10, 30, 50, 100, exactly what the functions use
(kernels/cec2017.h):

    /FNN/DDD/shift     float64 [nshift, D]   first D numbers of each row used
    /FNN/DDD/rotation  float64 [nrot, D, D]  row-major blocks (absent for F6)
    /FNN/DDD/shuffle   int32   [nshuffle, D] 0-based (F11-F20, F29, F30 only)

e.g. /F05/D30/shift. nshift = nrot = 1 for F1-F20 (F6: nrot = 0, its
rotation is not used by the organizers' code), N for the compositions
(N = 3, 3, 4, 4, 5, 5, 6, 6, 3, 3 for F21-F30; their files hold 10 rows and
10 stacked blocks, the first N are used); nshuffle = 1 for the hybrids, 3
for F29 and F30 (one per hybrid component). Chunked (one row or block per
chunk), byte-shuffled and gzip-compressed.

Needs Python 3 with numpy and h5py only (Debian: python3-numpy,
python3-h5py).
"""

import os
import sys

import h5py
import numpy as np

FORMAT_VERSION = 1
FUNCTIONS = [1] + list(range(3, 31))
DIMENSIONS = [10, 30, 50, 100]
# Components of the compositions F21..F30 (technical report, section D).
COMPOSITION_N = {21: 3, 22: 3, 23: 4, 24: 4, 25: 5, 26: 5, 27: 6, 28: 6, 29: 3, 30: 3}
HYBRID_COMPOSITIONS = (29, 30)
SOURCE = (
    "CEC 2017 Special Session and Competition on Single Objective Real-Parameter "
    "Numerical Optimization: N. H. Awad, M. Z. Ali, P. N. Suganthan, J. J. Liang, "
    "B. Y. Qu, 'Problem Definitions and Evaluation Criteria for the CEC 2017 Special "
    "Session and Competition on Single Objective Real-Parameter Numerical "
    "Optimization', technical report, Nanyang Technological University, Jordan "
    "University of Science and Technology and Zhengzhou University, 2016; data "
    "files (shift_data_F.txt, M_F_DD.txt, shuffle_data_F_DD.txt) by the same authors"
)


def counts(fn):
    """(nshift, nrot, nshuffle) for function fn."""
    if fn in COMPOSITION_N:
        n = COMPOSITION_N[fn]
        return n, n, (n if fn in HYBRID_COMPOSITIONS else 0)
    if fn == 6:
        return 1, 0, 0
    if 11 <= fn <= 20:
        return 1, 1, 1
    return 1, 1, 0


def fail(msg):
    sys.exit("cec2017_pack: " + msg)


def read_rows(path):
    try:
        with open(path) as f:
            rows = [line.split() for line in f if line.strip()]
    except OSError as e:
        fail("cannot read %s: %s" % (path, e))
    return rows


def read_numbers(path, dtype):
    rows = read_rows(path)
    try:
        return np.array([dtype(v) for r in rows for v in r])
    except ValueError as e:
        fail("%s: not a number: %s" % (path, e))


def shift_of(src, fn, D, n):
    path = os.path.join(src, "shift_data_%d.txt" % fn)
    rows = read_rows(path)
    if len(rows) < n:
        fail("%s: %d rows, F%d needs %d" % (path, len(rows), fn, n))
    out = np.empty((n, D), dtype=np.float64)
    for i in range(n):
        if len(rows[i]) < D:
            fail("%s: row %d has %d numbers, D = %d needs %d" % (path, i + 1, len(rows[i]), D, D))
        try:
            out[i] = [float(v) for v in rows[i][:D]]
        except ValueError as e:
            fail("%s: row %d: %s" % (path, i + 1, e))
    return out


def rotation_of(src, fn, D, n):
    path = os.path.join(src, "M_%d_D%d.txt" % (fn, D))
    vals = read_numbers(path, float)
    if vals.size < n * D * D or vals.size % (D * D):
        fail("%s: %d numbers, F%d at D = %d needs %d blocks of %d" % (path, vals.size, fn, D, n, D * D))
    return vals[: n * D * D].reshape(n, D, D).astype(np.float64)


def shuffle_of(src, fn, D, n):
    path = os.path.join(src, "shuffle_data_%d_D%d.txt" % (fn, D))
    vals = read_numbers(path, int)
    if vals.size < n * D:
        fail("%s: %d numbers, F%d at D = %d needs %d" % (path, vals.size, fn, D, n * D))
    perm = vals[: n * D].reshape(n, D) - 1
    for i in range(n):
        if sorted(perm[i].tolist()) != list(range(D)):
            fail("%s: block %d is not a permutation of 1..%d" % (path, i + 1, D))
    return perm.astype(np.int32)


def put(group, name, data, chunk):
    if not np.all(np.isfinite(data)):
        fail("%s/%s: not finite" % (group.name, name))
    group.create_dataset(
        name, data=data, chunks=chunk, shuffle=True, compression="gzip", compression_opts=9
    )


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    src, out = argv[1], argv[2]
    if not os.path.isdir(src):
        fail("%s: not a directory" % src)
    tmp = out + ".tmp"
    with h5py.File(tmp, "w") as h:
        h.attrs["title"] = "CEC 2017 bound-constrained benchmark suite: shifts, rotations, shuffles"
        h.attrs["source"] = SOURCE
        h.attrs["format_version"] = np.int32(FORMAT_VERSION)
        h.attrs["layout"] = (
            "/FNN/DDD/shift float64 [nshift, D]; /FNN/DDD/rotation float64 [nrot, D, D] "
            "row-major (absent for F6); /FNN/DDD/shuffle int32 [nshuffle, D] 0-based "
            "(F11-F20, F29, F30)"
        )
        h.attrs["functions"] = np.array(FUNCTIONS, dtype=np.int32)
        h.attrs["dimensions"] = np.array(DIMENSIONS, dtype=np.int32)
        h.attrs["packed_by"] = "tools/cec2017_pack.py (islandpso)"
        for fn in FUNCTIONS:
            ns, nr, nq = counts(fn)
            gf = h.create_group("F%02d" % fn)
            gf.attrs["nshift"] = np.int32(ns)
            gf.attrs["nrot"] = np.int32(nr)
            gf.attrs["nshuffle"] = np.int32(nq)
            for D in DIMENSIONS:
                g = gf.create_group("D%d" % D)
                put(g, "shift", shift_of(src, fn, D, ns), (1, D))
                if nr:
                    put(g, "rotation", rotation_of(src, fn, D, nr), (1, D, D))
                if nq:
                    put(g, "shuffle", shuffle_of(src, fn, D, nq), (1, D))
    os.replace(tmp, out)
    print("%s: %d bytes" % (out, os.path.getsize(out)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
