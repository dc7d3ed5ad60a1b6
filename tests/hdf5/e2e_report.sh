#!/bin/bash
# tools/islandpso-report on the 4-rank CPU quickstart's file: two valid PNG plots and a summary with islandpso's result.
#
# The plots (quickstart-convergence.png, quickstart-evaluations.png in --out
# DIR) must be whole PNGs: the signature, an IHDR chunk first (13 bytes, a
# valid CRC, width and height between 200 and 10000 pixels, a legal bit depth
# and colour type), IDAT data that inflates to exactly the rows the header
# announces, and IEND last. The summary must give the best fitness in the
# file's /result (the report writes %.10g of it), its island and particle, the final
# iteration 2000, 4 islands, 201 history rows (every 10 iterations), 160
# migrations (4 islands x 40) and the snapshots 0, 1000, 2000.
. "$IPSO_TEST_DIR/lib/common.sh"
if ! "$IPSO_PYTHON" -c 'import h5py, matplotlib' 2>/dev/null; then
  echo "$IPSO_PYTHON has no h5py or matplotlib: skipped"
  exit 77
fi
expect_rc 0 "quickstart on 4 ranks (CPU)" mpi 4 "$IPSO_SOURCE_DIR/configs/quickstart.toml" --backend cpu
res=$(h5get quickstart.h5 /result/best_fitness /result/island /result/particle) ||
  { fail "quickstart.h5 has no /result"; echo "$out" | tail; finish; }
{ read -r best; read -r island; read -r particle; } <<<"$res"
where="island $island, particle $particle"

expect_rc 0 "islandpso-report quickstart.h5 --out plots" \
  "$IPSO_PYTHON" "$IPSO_SOURCE_DIR/tools/islandpso-report" quickstart.h5 --out plots
summary=$out
echo "$summary" | sed 's/^/     /'
short=$(awk -v b="$best" 'BEGIN { printf "%.10g", b }')
expect_line() { # expect_line WHAT REGEX
  if echo "$summary" | grep -Eq -- "$2"; then pass "summary: $1"; else fail "summary lacks $1 (/$2/)"; fi
}
expect_line "best fitness $short (/result: $best) by $where" "best fitness ${short//./\\.} by ${where}"
expect_line "run ended at iteration 2000" "run ended at iteration 2000$"
expect_line "4 islands" "128 particles per island, 4 islands"
expect_line "201 history rows, 0..2000" "history: +201 rows, iterations 0\.\.2000"
expect_line "160 migrations" "^migrations: +160$"
expect_line "snapshots 0, 1000, 2000" "^snapshots: +0, 1000, 2000$"

if "$IPSO_PYTHON" - plots/quickstart-convergence.png plots/quickstart-evaluations.png >png.log 2>&1 <<'PY'
import struct, sys, zlib

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # PNG colour type -> samples per pixel
bad = 0
for path in sys.argv[1:]:
    try:
        data = open(path, "rb").read()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
        at, chunks = 8, []
        while at < len(data):
            n, kind = struct.unpack(">I4s", data[at:at + 8])
            body, crc = data[at + 8:at + 8 + n], data[at + 8 + n:at + 12 + n]
            assert len(body) == n and len(crc) == 4, f"chunk {kind!r} cut short"
            assert struct.unpack(">I", crc)[0] == zlib.crc32(kind + body), f"bad CRC in {kind!r}"
            chunks.append((kind, body))
            at += 12 + n
        assert chunks[0][0] == b"IHDR" and len(chunks[0][1]) == 13, "IHDR is not the first chunk"
        w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
        assert 200 <= w <= 10000 and 200 <= h <= 10000, f"odd size {w}x{h}"
        assert colour in CHANNELS and depth in (1, 2, 4, 8, 16), f"bit depth {depth}, colour type {colour}"
        assert chunks[-1][0] == b"IEND", "IEND is not the last chunk"
        raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
        if interlace == 0:
            row = 1 + (w * CHANNELS[colour] * depth + 7) // 8
            assert len(raw) == h * row, f"image data {len(raw)} bytes, the header says {h * row}"
        print(f"{path}: PNG {w}x{h}, bit depth {depth}, colour type {colour}, {len(chunks)} chunks")
    except (AssertionError, OSError, zlib.error, struct.error) as err:
        print(f"{path}: not a valid PNG: {err}")
        bad += 1
sys.exit(1 if bad else 0)
PY
then
  while read -r line; do pass "$line"; done <png.log
else
  fail "plots"; sed 's/^/     /' png.log
fi
finish
