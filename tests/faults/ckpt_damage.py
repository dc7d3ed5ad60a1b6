#!/usr/bin/env python3
"""Damages a copy of an islandpso checkpoint for the fault tests.

  ckpt_damage.py truncate SRC DST BYTES       keep the first BYTES (negative: drop the last -BYTES)
  ckpt_damage.py flip SRC DST DATASET ROW BIT flip BIT (0-63) of the first element of ROW
  ckpt_damage.py flip-random SRC DST SEED     flip one bit anywhere, chosen by SEED
  ckpt_damage.py attr SRC DST NAME VALUE      set the integer root attribute NAME
  ckpt_damage.py attr-float SRC DST NAME VALUE  set the floating-point root attribute NAME
  ckpt_damage.py del-attr SRC DST NAME        delete the root attribute NAME
  ckpt_damage.py edit SRC DST DATASET ROW COL VALUE
                                              set one element of a state array and write
                                              its island's checksum to match, as a careful
                                              hand would (VALUE: a float, nan, inf, or
                                              "+D" to add D to what is there)

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


FNV_OFFSET, FNV_PRIME, MASK = 0xCBF29CE484222325, 0x100000001B3, (1 << 64) - 1
PIECE = 1 << 20


def fnv_words(words):
    """64-bit FNV-1a over 64-bit words (each double's bits as one word)."""
    h = FNV_OFFSET
    for w in words:
        h = ((h ^ int(w)) * FNV_PRIME) & MASK
    return h


def island_checksum(f, island):
    """ISLAND's checksum as checkpoints write it: each of its arrays' rows
    (the frames' where the file has them) in pieces of 2^20 values, each
    piece summed, the sums folded in order."""
    n, d = int(f.attrs["particles"]), int(f.attrs["dimensions"])
    h = FNV_OFFSET
    for name in ("position", "velocity", "pbest_position", "cost", "pbest_cost", "frame"):
        if name not in f:  # the eigen frames (D rows an island) only where the run has them
            continue
        m = d if name == "frame" else n
        rows = np.ascontiguousarray(f[name][island * m:(island + 1) * m], dtype="<f8")
        words = rows.reshape(-1).view("<u8")
        for at in range(0, len(words), PIECE):
            h = ((h ^ fnv_words(words[at:at + PIECE])) * FNV_PRIME) & MASK
    return np.uint64(h)


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
    elif cmd == "attr-float":
        shutil.copyfile(src, dst)
        with h5py.File(dst, "r+") as f:
            old = f.attrs[args[0]]
            f.attrs.modify(args[0], np.array(float(args[1]), dtype=np.float64))
        print(f"attribute {args[0]}: {old} -> {args[1]}")
    elif cmd == "del-attr":
        shutil.copyfile(src, dst)
        with h5py.File(dst, "r+") as f:
            del f.attrs[args[0]]
        print(f"attribute {args[0]} deleted")
    elif cmd == "edit":
        name, row, col, value = args[0], int(args[1]), int(args[2]), args[3]
        shutil.copyfile(src, dst)
        with h5py.File(dst, "r+") as f:
            d = f[name]
            old = d[row, col] if d.ndim == 2 else d[row]
            new = old + float(value[1:]) if value.startswith("+") else float(value)
            if d.ndim == 2:
                d[row, col] = new
            else:
                d[row] = new
            island = row // int(f.attrs["particles"])
            f["checksum"][island] = island_checksum(f, island)
        print(f"{name}[{row}, {col}]: {old} -> {new}; island {island}'s checksum rewritten")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
