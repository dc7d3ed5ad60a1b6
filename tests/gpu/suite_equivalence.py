#!/usr/bin/env python3
"""The GPU kernel variants and the CPU backend reach statistically equivalent
results on the 30-D suite over 10 seeds: for every objective and variant, a
two-sided Mann-Whitney U test of the final best fitness against the CPU's
does not reject equality at the 1% level. Exit 77 without a GPU."""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN = os.environ["IPSO_BIN"]
SUITE = ["sphere", "rastrigin", "rosenbrock", "griewank", "ackley"]
SEEDS = range(1, 11)
VARIANTS = [("cpu", "queue_lock"), ("gpu", "queue_lock"), ("gpu", "queue"), ("gpu", "reduction")]


def have_gpu():
    if "GPU backend: CUDA" not in subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout:
        return False
    return shutil.which("nvidia-smi") is not None and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0


def run(work, backend, kernel, objective, seed):
    cfg = os.path.join(work, f"{backend}-{kernel}-{objective}-{seed}.toml")
    with open(cfg, "w") as f:
        f.write(f"""[run]
seed = {seed}
backend = "{backend}"
max_iterations = 400
output = ""
[objective]
name = "{objective}"
dimensions = 30
[swarm]
particles = 128
kernel = "{kernel}"
[output]
checkpoint = ""
progress = "off"
""")
    out = subprocess.run([BIN, cfg], capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="2"))
    if out.returncode != 0:
        sys.exit(f"run failed: {backend} {kernel} {objective} {seed}\n{out.stderr}")
    return float(re.search(r"best fitness\s+(\S+)", out.stdout).group(1))


def mann_whitney_p(a, b):
    """Two-sided p-value of the Mann-Whitney U test, normal approximation with
    tie correction (n = 10 + 10)."""
    pooled = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(pooled)
    i = 0
    ties = 0.0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t ** 3 - t
        i = j + 1
    n1, n2 = len(a), len(b)
    r1 = sum(r for r, (_, g) in zip(ranks, pooled) if g == 0)
    u = r1 - n1 * (n1 + 1) / 2
    n = n1 + n2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var == 0:
        return 1.0
    z = (abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(var)
    return math.erfc(max(z, 0) / math.sqrt(2))


def main():
    if not have_gpu():
        print("no GPU: skipped")
        return 77
    work = tempfile.mkdtemp()
    os.environ.setdefault("IPSO_CACHE_DIR", os.path.join(work, "cache"))
    failures = 0
    try:
        for objective in SUITE:
            results = {v: [run(work, v[0], v[1], objective, s) for s in SEEDS] for v in VARIANTS}
            cpu = results[VARIANTS[0]]
            line = f"{objective:11s} cpu median {sorted(cpu)[4]:.4g}"
            for v in VARIANTS[1:]:
                p = mann_whitney_p(cpu, results[v])
                line += f" | gpu {v[1]} median {sorted(results[v])[4]:.4g} p={p:.2f}"
                if p < 0.01:
                    failures += 1
                    line += " DIFFERENT"
            print(line)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("passed" if failures == 0 else f"FAILED ({failures})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
