#!/usr/bin/env python3
"""Checks every dataset and attribute of an islandpso output against the run's printed summary.

Usage: e2e_check_run.py RUN.h5 LOG CONFIG.txt --islands N --particles N --dims D
           --max-iterations N --history-interval K --snapshot-interval K
           --migration-interval K --lower X --upper X --seed S --version V
           --objective NAME --started-after EPOCH --finished-before EPOCH

LOG is islandpso's output (its summary lines), CONFIG.txt the resolved config
as `islandpso CONFIG --dry-run` printed it. Prints one line per check
("ok ..." or "FAIL ..."); exit 0 if all pass, 1 otherwise. Minimize runs only
(the objectives used by the tests), CPU backend, ring topology.
"""
import argparse
import calendar
import math
import re
import sys
import time

import h5py
import numpy as np

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

failures = 0


def check(cond, what, detail=""):
    """Records one check: prints ok or FAIL with DETAIL."""
    global failures
    if cond:
        print(f"ok   {what}")
    else:
        failures += 1
        print(f"FAIL {what}{': ' + detail if detail else ''}")
    return cond


def summary_of(log):
    """The values of islandpso's printed summary (exact text of the numbers)."""
    text = open(log, encoding="utf-8", errors="replace").read()
    s = {}
    m = re.search(r"finished at iteration (\d+) \(([^)]*)\)", text)
    s["iteration"], s["why"] = (int(m.group(1)), m.group(2)) if m else (None, None)
    m = re.search(r"^ *best fitness +(\S+) +\(island (\d+), particle (\d+)\)", text, re.M)
    if m:
        s["best"], s["island"], s["particle"] = m.group(1), int(m.group(2)), int(m.group(3))
    m = re.search(r"^ *position +\[([^\]]*)\]", text, re.M)
    s["position"] = [float(x) for x in m.group(1).split(",") if "..." not in x] if m else None
    m = re.search(r"^ *evaluations +(\d+)", text, re.M)
    s["evaluations"] = int(m.group(1)) if m else None
    m = re.search(r"^ *time +([0-9.]+) s", text, re.M)
    s["time"] = float(m.group(1)) if m else None
    return s


def text(value):
    """A string attribute as str."""
    return value.decode() if isinstance(value, (bytes, np.bytes_)) else str(value)


def utc_epoch(stamp):
    """Seconds since the epoch of an ISO-8601 UTC stamp YYYY-MM-DDTHH:MM:SSZ, or None."""
    try:
        return calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        return None


def rastrigin(x):
    """Rastrigin's function of each row of X."""
    return 10.0 * x.shape[-1] + np.sum(x * x - 10.0 * np.cos(2.0 * np.pi * x), axis=-1)


def sphere(x):
    """The sphere function of each row of X."""
    return np.sum(x * x, axis=-1)


def check_root(f, a, config_text):
    """Root attributes: version, config (the resolved config), seed, islands, times."""
    attrs = f.attrs
    for name in ("version", "config", "seed", "islands", "started", "finished"):
        check(name in attrs, f"root attribute '{name}' present")
    if "version" in attrs:
        check(text(attrs["version"]) == a.version, "version attribute",
              f"{text(attrs['version'])!r}, islandpso --version says {a.version!r}")
    if "seed" in attrs:
        check(attrs["seed"].dtype == np.uint64 and int(attrs["seed"]) == a.seed,
              f"seed attribute = {a.seed} (uint64)", f"{attrs['seed']!r}")
    if "islands" in attrs:
        check(np.issubdtype(attrs["islands"].dtype, np.integer) and int(attrs["islands"]) == a.islands,
              f"islands attribute = {a.islands}", f"{attrs['islands']!r}")
    if "config" in attrs:
        stored = text(attrs["config"])
        check(stored == config_text, "config attribute is the resolved config (--dry-run text)",
              f"stored {len(stored)} bytes, --dry-run {len(config_text)} bytes")
        expect = {
            ("run", "seed"): a.seed,
            ("run", "max_iterations"): a.max_iterations,
            ("objective", "name"): a.objective,
            ("objective", "dimensions"): a.dims,
            ("swarm", "particles"): a.particles,
            ("migration", "interval"): a.migration_interval,
            ("output", "history_interval"): a.history_interval,
            ("output", "snapshot_interval"): a.snapshot_interval,
        }
        if tomllib is not None:
            try:
                cfg = tomllib.loads(stored)
            except tomllib.TOMLDecodeError as err:
                check(False, "config attribute parses as TOML", str(err))
                cfg = None
            if cfg is not None:
                check(True, "config attribute parses as TOML")
                for (sec, key), want in expect.items():
                    got = cfg.get(sec, {}).get(key)
                    check(got == want, f"config [{sec}] {key} = {want!r}", f"{got!r}")
                lo, hi = cfg.get("objective", {}).get("lower"), cfg.get("objective", {}).get("upper")
                check(lo == a.lower and hi == a.upper, f"config bounds [{a.lower}, {a.upper}]",
                      f"[{lo}, {hi}]")
        else:
            for (sec, key), want in expect.items():
                check(f"[{sec}]" in stored and re.search(rf"^{key} = ", stored, re.M) is not None,
                      f"config mentions [{sec}] {key} (no tomllib)")
    if "started" in attrs and "finished" in attrs:
        s, e = utc_epoch(text(attrs["started"])), utc_epoch(text(attrs["finished"]))
        check(s is not None and e is not None, "started/finished are ISO-8601 UTC stamps",
              f"{attrs['started']!r}, {attrs['finished']!r}")
        if s is not None and e is not None:
            # The stamps have whole seconds: allow the second the run began in.
            check(a.started_after - 1 <= s <= e <= a.finished_before + 1,
                  "started <= finished, both within the run's wall-clock window",
                  f"started {s}, finished {e}, window [{a.started_after}, {a.finished_before}]")


def check_history(f, a, end):
    """The history datasets: shapes, types, rows, and their values' invariants."""
    h = f["history"]
    T = None
    want_its = [t for t in range(0, end + 1, a.history_interval)]
    if want_its[-1] != end:
        want_its.append(end)
    T = len(want_its)
    layout = {
        "iteration": ((T,), np.int64),
        "island_best": ((T, a.islands), np.float64),
        "global_best": ((T,), np.float64),
        "evaluations": ((T,), np.int64),
        "wall_seconds": ((T,), np.float64),
    }
    for name, (shape, dtype) in layout.items():
        if not check(name in h, f"/history/{name} exists"):
            return None
        d = h[name]
        check(d.shape == shape, f"/history/{name} shape {shape}", f"{d.shape}")
        check(d.dtype == np.dtype(dtype).newbyteorder("<"), f"/history/{name} dtype {np.dtype(dtype)}",
              f"{d.dtype}")
        check(d.chunks is not None and d.maxshape[0] is None,
              f"/history/{name} chunked and extendible", f"chunks {d.chunks}, maxshape {d.maxshape}")
    its = h["iteration"][()]
    ib = h["island_best"][()]
    gb = h["global_best"][()]
    ev = h["evaluations"][()]
    wall = h["wall_seconds"][()]
    check(its.tolist() == want_its,
          f"iterations = multiples of {a.history_interval} up to {end}, and {end}",
          f"got {its[:5].tolist()} ... {its[-3:].tolist()} ({len(its)} rows)")
    want_ev = a.particles * a.islands * (its.astype(np.int64) + 1)
    check(np.array_equal(ev, want_ev), "evaluations = particles * islands * (iteration + 1)",
          f"first mismatch at row {int(np.argmax(ev != want_ev))}" if len(ev) == len(want_ev) else "")
    if ib.shape == (T, a.islands):
        check(np.array_equal(gb, ib.min(axis=1)), "global_best = min over the island_best row")
        check(bool(np.all(np.isfinite(ib))), "island_best finite")
        check(bool(np.all(np.diff(ib, axis=0) <= 0)), "every island's best is non-increasing")
    check(bool(np.all(np.diff(gb) <= 0)), "global_best is non-increasing")
    check(gb[-1] < gb[0], "global_best improved over the run", f"{gb[0]} -> {gb[-1]}")
    check(bool(np.all(wall >= 0)) and bool(np.all(np.diff(wall) >= 0)),
          "wall_seconds non-negative and non-decreasing")
    return {"its": its, "ib": ib, "gb": gb, "wall": wall, "row": {int(t): i for i, t in enumerate(its)}}


def check_snapshots(f, a, end, hist):
    """The snapshot groups: names, shapes, bounds, and fitness against the history."""
    want = [t for t in range(0, end + 1, a.snapshot_interval)] if a.snapshot_interval else []
    snaps = f["snapshots"]
    names = sorted(int(k) for k in snaps.keys())
    check(names == want, f"snapshots at {want}", f"{names}")
    rows = a.islands * a.particles
    objective = {"rastrigin": rastrigin, "sphere": sphere}.get(a.objective)
    # The clamp the run used, from the resolved config stored in the file.
    config = f.attrs["config"]
    config = config.decode() if isinstance(config, bytes) else str(config)
    # One value, or "[a, b, ...]" that the islands (global ids) take in turn.
    clamp = re.search(r"^velocity_clamp = (.+)$", config, re.M)
    check(clamp is not None, "/ attribute config names swarm.velocity_clamp")
    clamps = [float(c) for c in clamp.group(1).strip("[]").split(",")] if clamp else [0.5]
    island = np.arange(rows) // a.particles
    vmax = (np.array(clamps)[island % len(clamps)] * (a.upper - a.lower))[:, None]
    for t in names:
        g = snaps[str(t)]
        check(int(g.attrs.get("iteration", -1)) == t, f"/snapshots/{t} attribute iteration = {t}")
        shapes = {"position": (rows, a.dims), "velocity": (rows, a.dims),
                  "pbest_position": (rows, a.dims), "fitness": (rows,), "pbest_fitness": (rows,)}
        ok = True
        for name, shape in shapes.items():
            ok &= check(name in g and g[name].shape == shape and g[name].dtype == np.dtype("<f8"),
                        f"/snapshots/{t}/{name} {shape} float64",
                        f"{g[name].shape} {g[name].dtype}" if name in g else "missing")
        if not ok:
            continue
        x, v, p = g["position"][()], g["velocity"][()], g["pbest_position"][()]
        fit, pfit = g["fitness"][()], g["pbest_fitness"][()]
        check(bool(np.all((x >= a.lower) & (x <= a.upper))), f"/snapshots/{t} positions in bounds",
              f"range [{x.min()}, {x.max()}]")
        check(bool(np.all((p >= a.lower) & (p <= a.upper))), f"/snapshots/{t} personal bests in bounds")
        check(bool(np.all(np.abs(v) <= vmax)), f"/snapshots/{t} velocities within the clamps {clamps}",
              f"max |v| {np.abs(v).max()}")
        check(bool(np.all(pfit <= fit)), f"/snapshots/{t} pbest_fitness <= fitness",
              f"{int(np.sum(pfit > fit))} rows violate it")
        if objective is not None:
            check(np.allclose(objective(x), fit, rtol=1e-12, atol=1e-9),
                  f"/snapshots/{t} fitness = {a.objective}(position)")
            check(np.allclose(objective(p), pfit, rtol=1e-12, atol=1e-9),
                  f"/snapshots/{t} pbest_fitness = {a.objective}(pbest_position)")
        if hist is not None and t in hist["row"]:
            r = hist["row"][t]
            check(pfit.min() == hist["gb"][r],
                  f"/snapshots/{t}: least pbest_fitness = global_best at iteration {t}",
                  f"{pfit.min()!r} vs {hist['gb'][r]!r}")
            # The snapshot is taken after the iteration's migration and the
            # history row before it: at a migration iteration each island
            # also holds the best of its ring predecessor.
            want = hist["ib"][r].copy()
            if t > 0 and t % a.migration_interval == 0:
                want = np.minimum(want, np.roll(want, 1))
            per_island = pfit.reshape(a.islands, a.particles).min(axis=1)
            check(np.array_equal(per_island, want),
                  f"/snapshots/{t}: each island's least pbest_fitness = its island_best "
                  "(with the migrants received)", f"{per_island} vs {want}")
    return names


def check_result(f, a, s, hist):
    """/result against the printed summary, the history and the objective."""
    res = f["result"]
    best = float(s["best"])
    check(res["best_fitness"].shape == () and res["best_fitness"][()] == best,
          f"/result/best_fitness = printed {s['best']} (exact)", f"{res['best_fitness'][()]!r}")
    check(int(res["island"][()]) == s["island"], f"/result/island = printed {s['island']}",
          f"{res['island'][()]}")
    check(int(res["particle"][()]) == s["particle"], f"/result/particle = printed {s['particle']}",
          f"{res['particle'][()]}")
    check(int(res["iteration"][()]) == s["iteration"], f"/result/iteration = printed {s['iteration']}",
          f"{res['iteration'][()]}")
    want_ev = a.particles * a.islands * (s["iteration"] + 1)
    check(int(res["evaluations"][()]) == s["evaluations"] == want_ev,
          f"/result/evaluations = printed {s['evaluations']} = {want_ev}", f"{res['evaluations'][()]}")
    check(res["evaluations"].dtype == np.dtype("<i8") and res["iteration"].dtype == np.dtype("<i8"),
          "/result/iteration and evaluations int64")
    el = float(res["elapsed_seconds"][()])
    check(s["time"] is not None and abs(el - s["time"]) <= 0.0006,
          f"/result/elapsed_seconds {el:.4f} = printed time {s['time']}")
    pos = res["best_position"][()]
    check(pos.shape == (a.dims,) and pos.dtype == np.dtype("<f8"), f"/result/best_position [{a.dims}] float64",
          f"{pos.shape} {pos.dtype}")
    if s["position"] is not None and len(s["position"]) == a.dims:
        check(np.allclose(pos, s["position"], rtol=1e-9, atol=1e-12),
              "/result/best_position = printed position (%.10g)")
    check(bool(np.all((pos >= a.lower) & (pos <= a.upper))), "/result/best_position in bounds")
    objective = {"rastrigin": rastrigin, "sphere": sphere}.get(a.objective)
    if objective is not None:
        check(math.isclose(float(objective(pos)), best, rel_tol=1e-12, abs_tol=1e-12),
              f"/result/best_fitness = {a.objective}(best_position)")
    if hist is not None:
        check(hist["gb"][-1] == best, "last global_best row = best fitness",
              f"{hist['gb'][-1]!r} vs {best!r}")
        check(hist["ib"][-1, s["island"]] == best, "last island_best row of the best island = best fitness")
        check(hist["wall"][-1] <= el, "last wall_seconds <= elapsed_seconds",
              f"{hist['wall'][-1]} > {el}")


def check_migrations(f, a, end, hist):
    """/migrations: the compound type, one row per island and migration, ring order, values."""
    m = f["migrations"]
    fields = {"iteration": "<i8", "from": "<i4", "to": "<i4", "best_fitness": "<f8"}
    got = {n: m.dtype.fields[n][0].str for n in (m.dtype.names or ())}
    check(got == fields, "/migrations fields iteration int64, from int32, to int32, best_fitness float64",
          f"{got}")
    check(m.ndim == 1 and m.chunks is not None and m.maxshape[0] is None, "/migrations chunked, extendible")
    rec = m[()]
    events = [t for t in range(a.migration_interval, end + 1, a.migration_interval)]
    check(len(rec) == a.islands * len(events),
          f"/migrations has islands x migrations = {a.islands} x {len(events)} rows", f"{len(rec)}")
    pairs = sorted((int(r["iteration"]), int(r["from"])) for r in rec)
    check(pairs == sorted((t, i) for t in events for i in range(a.islands)),
          "one row per (migration iteration, island)")
    check(bool(np.all(rec["to"] == (rec["from"] + 1) % a.islands)), "ring: to = from + 1 (mod islands)")
    if hist is None:
        return
    sent_ok = recv_ok = True
    for r in rec:
        t, i, j = int(r["iteration"]), int(r["from"]), int(r["to"])
        if t not in hist["row"]:
            continue
        k = hist["row"][t]
        sent_ok &= bool(r["best_fitness"] == hist["ib"][k, i])
        if k + 1 < len(hist["its"]):
            recv_ok &= bool(hist["ib"][k + 1, j] <= r["best_fitness"])
    check(sent_ok, "best_fitness sent = the sender's island_best at that iteration")
    check(recv_ok, "the receiver's island_best at the next row <= the best fitness it received")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("run")
    ap.add_argument("log")
    ap.add_argument("config_text")
    for name in ("islands", "particles", "dims", "max_iterations", "history_interval",
                 "snapshot_interval", "migration_interval", "seed"):
        ap.add_argument("--" + name.replace("_", "-"), type=int, required=True)
    for name in ("lower", "upper", "started_after", "finished_before"):
        ap.add_argument("--" + name.replace("_", "-"), type=float, required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--objective", required=True)
    a = ap.parse_args()

    s = summary_of(a.log)
    if not check(s["iteration"] is not None and "best" in s, "summary printed (finished at, best fitness)"):
        return 1
    end = s["iteration"]
    if s["why"] == "max_iterations":
        check(end == a.max_iterations, f"finished at max_iterations {a.max_iterations}", f"{end}")
    else:
        check(end < a.max_iterations, f"stopped early ({s['why']}) before max_iterations", f"{end}")
    config_text = open(a.config_text, encoding="utf-8").read()
    with h5py.File(a.run, "r") as f:
        check_root(f, a, config_text)
        hist = check_history(f, a, end)
        check_snapshots(f, a, end, hist)
        check_result(f, a, s, hist)
        check_migrations(f, a, end, hist)
    print(f"{'all checks passed' if failures == 0 else f'{failures} checks failed'}: {a.run}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
