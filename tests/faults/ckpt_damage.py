#!/usr/bin/env python3
"""Damages a copy of an islandpso checkpoint for the fault tests.

  ckpt_damage.py truncate SRC DST BYTES       keep the first BYTES (negative: drop the last -BYTES)
  ckpt_damage.py flip SRC DST DATASET ROW BIT flip BIT (0-63) of the first element of ROW
  ckpt_damage.py flip-random SRC DST SEED     flip one bit anywhere, chosen by SEED
  ckpt_damage.py attr SRC DST NAME VALUE      set the integer root attribute NAME

Prints what it changed (byte offset and bit for flips)."""
import random
import shutil
import sys

import h5py
import numpy as np


def flip_at(path, offset, bit):
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)[0]
        f.seek(offset)
        f.write(bytes([byte ^ (1 << bit)]))


def main():
    cmd, src, dst = sys.argv[1], sys.argv[2], sys.argv[3]
    args = sys.argv[4:]
    if cmd == "truncate":
        data = open(src, "rb").read()
        n = int(args[0])
        data = data[:n] if n >= 0 else data[:n]
        open(dst, "wb").write(data)
        print(f"kept {len(data)} of {len(open(src, 'rb').read())} bytes")
    elif cmd == "flip":
        name, row, bit = args[0], int(args[1]), int(args[2])
        with h5py.File(src, "r") as f:
            d = f[name]
            offset = d.id.get_offset()
            if offset is None:
                sys.exit(f"dataset {name} has no contiguous storage")
            width = d.shape[1] if d.ndim == 2 else 1
            where = offset + row * width * d.dtype.itemsize
        shutil.copyfile(src, dst)
        # Little-endian elements: bit b of the value is bit b % 8 of byte b // 8.
        flip_at(dst, where + bit // 8, bit % 8)
        print(f"{name}[{row}]: flipped bit {bit} at byte {where + bit // 8}")
    elif cmd == "flip-random":
        rng = random.Random(int(args[0]))
        size = len(open(src, "rb").read())
        offset, bit = rng.randrange(size), rng.randrange(8)
        shutil.copyfile(src, dst)
        flip_at(dst, offset, bit)
        print(f"flipped bit {bit} of byte {offset} of {size}")
    elif cmd == "attr":
        shutil.copyfile(src, dst)
        with h5py.File(dst, "r+") as f:
            old = f.attrs[args[0]]
            f.attrs.modify(args[0], np.array(int(args[1]), dtype=np.asarray(old).dtype))
        print(f"attribute {args[0]}: {old} -> {args[1]}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
