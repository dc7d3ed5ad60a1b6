#!/usr/bin/env python3
"""Prints values from an HDF5 file for the shell tests, one line per PATH.

Usage: h5get.py FILE PATH...

PATH is a dataset ("/result/best_fitness", "result/best_position") or an
attribute: "OBJECT@NAME" ("/@iteration", "result@units"; an empty OBJECT is
the root). Floats print with repr (the shortest text that reads back to the
same double, so equal text is equal bits), integers and strings as they
are, arrays as their elements separated by spaces. Exit 0; 1 when FILE
cannot be read or a PATH is missing (the message says which); 2 on a usage
error.
"""
import sys

import h5py
import numpy as np


def text(v):
    """One value, or the elements of an array, as text."""
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "SO":
            return " ".join(text(x) for x in v.ravel())
        return " ".join(text(x) for x in v.ravel().tolist())
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        return repr(v)
    return str(v)


def get(f, path):
    """The value at PATH in the open file F."""
    if "@" in path:
        obj, name = path.split("@", 1)
        target = f[obj] if obj not in ("", "/") else f
        if name not in target.attrs:
            raise KeyError(f"no attribute '{name}' on '{obj or '/'}'")
        return target.attrs[name]
    if path not in f:
        raise KeyError(f"no dataset '{path}'")
    d = f[path]
    if not isinstance(d, h5py.Dataset):
        raise KeyError(f"'{path}' is a group, not a dataset")
    return d[()]


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        with h5py.File(argv[1], "r") as f:
            lines = [text(get(f, p)) for p in argv[2:]]
    except KeyError as e:
        print(f"h5get: {argv[1]}: {e.args[0]}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"h5get: {argv[1]}: {e}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
