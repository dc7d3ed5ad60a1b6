#!/usr/bin/env python3
"""Checks the migrations of one islandpso run from its HDF5 file, against an
isolated twin run (migration.interval = 0, same seed) for the first
migration. The run must have history_interval = 1 and snapshot_interval =
migration.interval; RUN's last snapshot is compared with /result when the
run ends on a snapshot. Exit 0 if every check holds, 1 with the failures.

What the solver does at a migration iteration t (src/solver.c iterate()):
step t, history row t, migration, snapshot t. So history row t is the
state before the migration at t, snapshot t the state after it, and an
isolated twin's snapshot t is the migrating run's state just before the
first migration (both draw the same random numbers until then)."""
import argparse
import re
import sys

import h5py
import numpy as np

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def destinations(i, islands, topology):
    right, left = (i + 1) % islands, (i - 1) % islands
    return [right] if topology == "ring" else [right, left]


def senders(i, islands, topology):
    """The islands whose messages island I receives, in the order the
    receiver merges them: from the left first, then from the right."""
    left, right = (i - 1) % islands, (i + 1) % islands
    return [left] if topology == "ring" else [left, right]


def island_rows(snap, i, n):
    rows = slice(i * n, (i + 1) * n)
    return {k: snap[k][rows] for k in ("position", "velocity", "pbest_position", "fitness",
                                       "pbest_fitness")}


def ranked(cost, idx, worst):
    """Indices IDX ordered as the CPU backend ranks personal bests: by
    (cost, index), or its reverse for WORST."""
    order = sorted(idx, key=lambda j: (cost[j], j))
    return order[::-1] if worst else order


def arrived(cur, prev):
    """Particles that hold a fresh migrant: velocity exactly zero, position =
    personal best, fitness = personal-best fitness, and not a particle that
    sat still (zero velocity at the same position) since the previous
    snapshot, which a migrant that became its island's best does."""
    zero = np.all(cur["velocity"] == 0.0, axis=1)
    at_pbest = np.all(cur["position"] == cur["pbest_position"], axis=1)
    same_fit = cur["fitness"] == cur["pbest_fitness"]
    still = np.all(prev["position"] == cur["position"], axis=1) & np.all(
        prev["velocity"] == 0.0, axis=1)
    return np.flatnonzero(zero & at_pbest & same_fit & ~still)


M32 = 0xFFFFFFFF


def philox_block(seed, sub, block):
    """Philox4x32-10 block BLOCK of subsequence SUB under SEED (src/philox.h)."""
    c = [block & M32, block >> 32 & M32, sub & M32, sub >> 32 & M32]
    k0, k1 = seed & M32, seed >> 32 & M32
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & M32, (p0 >> 32) ^ c[3] ^ k1, p0 & M32]
        k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
    return c


def migration_draw(seed, island, t, purpose, n, count):
    """COUNT distinct particles of 0..N-1 as src/migration.c draws them for
    ISLAND at the migration after iteration T (PURPOSE 0: the selection, 1:
    the replacement): the words of subsequence 2^63 + purpose 2^61 +
    island 2^40 + t in order, each an integer below N by multiply-shift
    with rejection, repeats drawn again."""
    sub = 1 << 63 | purpose << 61 | island << 40 | t
    blocks = iter(range(1 << 62))
    words = (w for b in blocks for w in philox_block(seed, sub, b))
    threshold = (1 << 32) % n
    out = []
    while len(out) < count:
        m = next(words) * n
        if (m & M32) < threshold:
            continue
        if m >> 32 not in out:
            out.append(m >> 32)
    return out


def link_carries(seed, island, t, link, probability):
    """Whether link LINK of ISLAND (0: to the next island, 1: to the
    previous one) carries migrants at the migration after iteration T, as
    src/migration.c decides: word LINK of subsequence 2^63 + 2 2^61 +
    island 2^40 + t as a uniform double in (0, 1], at most PROBABILITY."""
    if probability >= 1:
        return True
    w = philox_block(seed, 1 << 63 | 2 << 61 | island << 40 | t, 0)[link]
    return w * 2.0 ** -32 + 2.0 ** -32 <= probability


def carried_destinations(i, islands, topology, seed, t, probability):
    """The islands that I's migrants reach at the migration after T."""
    return [d for link, d in enumerate(destinations(i, islands, topology))
            if link_carries(seed, i, t, link, probability)]


def expected_after_migration(pre, islands, n, topology, migrants, sign, select="best",
                             policy="replace_worst", seed=0, t=0, probability=1.0):
    """The swarms after one migration (after iteration T), computed from the
    swarms before it by the documented policies: each island sends copies of
    its MIGRANTS best personal bests (order (cost, index)), or with SELECT
    random those of the particles it draws; a receiver merges what arrives
    by (cost, left before right, order in the message), picks as many of its
    worst particles (order (cost, index) reversed), or with POLICY
    replace_random draws as many, and the k-th migrant replaces the k-th
    particle picked if strictly better than its personal best: position =
    personal best = migrant, velocity 0, fitness = personal-best fitness =
    migrant's. Only links that carry migrants (PROBABILITY) deliver."""
    packs = []
    for i in range(islands):
        isl = island_rows(pre, i, n)
        cost = sign * isl["pbest_fitness"]
        if select == "random":
            best = migration_draw(seed, i, t, 0, n, migrants)
        else:
            best = ranked(cost, range(n), worst=False)[:migrants]
        packs.append([(cost[j], isl["pbest_position"][j].copy()) for j in best])
    post = {k: pre[k].copy() for k in pre}
    replaced, arrived_in_all = 0, 0
    for i in range(islands):
        incoming = []
        for link, s in enumerate(senders(i, islands, topology)):
            if not link_carries(seed, s, t, link, probability):
                continue
            for slot, (c, x) in enumerate(packs[s]):
                incoming.append((c, link, slot, x))
        incoming.sort(key=lambda m: (m[0], m[1], m[2]))
        arrived_in_all += len(incoming)
        cost = sign * pre["pbest_fitness"][i * n:(i + 1) * n]
        if policy == "replace_random":
            victims = migration_draw(seed, i, t, 1, n, len(incoming))
        else:
            victims = ranked(cost, range(n), worst=True)[:len(incoming)]
        for (c, _, _, x), v in zip(incoming, victims):
            if not c < cost[v]:
                continue
            row = i * n + v
            post["position"][row] = x
            post["pbest_position"][row] = x
            post["velocity"][row] = 0.0
            post["fitness"][row] = sign * c
            post["pbest_fitness"][row] = sign * c
            replaced += 1
    best_sent = [sign * min(c for c, _ in packs[i]) for i in range(islands)]
    return post, best_sent, replaced, arrived_in_all - replaced


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("run")
    ap.add_argument("twin", help="the same run with migration.interval = 0")
    ap.add_argument("--log", required=True, help="rank 0's output of RUN (the summary)")
    ap.add_argument("--ranks", type=int, default=0,
                    help="the ranks the run had: islands are spread evenly over them (rank r "
                         "holds islands r*K .. r*K+K-1), and with several islands per rank "
                         "migrants must move both inside ranks and across them")
    ap.add_argument("--want-kept", action="store_true",
                    help="require that the first migration kept a particle better than the "
                         "migrant meant for it (the strictly-better rule exercised)")
    args = ap.parse_args()

    with h5py.File(args.run, "r") as f, h5py.File(args.twin, "r") as tw:
        cfg = f.attrs["config"]
        cfg = cfg.decode() if isinstance(cfg, bytes) else str(cfg)

        def key(section, name):
            body = cfg.split(f"[{section}]\n", 1)[1].split("\n[", 1)[0]
            return re.search(rf"^{name} = (.*)$", body, re.M).group(1).strip('"')

        islands = int(f.attrs["islands"])
        k = int(key("migration", "interval"))
        migrants = int(key("migration", "migrants"))
        topology = key("migration", "topology")
        n = int(key("swarm", "particles"))
        max_it = int(key("run", "max_iterations"))
        sign = -1.0 if key("objective", "goal") == "maximize" else 1.0
        select, policy = key("migration", "select"), key("migration", "policy")
        seed = int(key("run", "seed"))
        probability = float(key("migration", "probability"))
        drawn = select == "random" or policy == "replace_random" or probability < 1
        links = 1 if topology == "ring" else 2
        print(f"{islands} islands x {n} particles, {topology}, every {k} iterations, "
              f"{migrants} migrants, probability {probability}, select {select}, policy {policy}, "
              f"{max_it} iterations, "
              f"goal sign {sign:+.0f}")
        check(int(key("output", "history_interval")) == 1, "the check needs history_interval = 1")
        check(int(key("output", "snapshot_interval")) == k,
              "the check needs snapshot_interval = migration.interval")

        it = f["/history/iteration"][()]
        ib = f["/history/island_best"][()]
        if not check(np.array_equal(it, np.arange(max_it + 1)),
                     f"history iterations are not 0..{max_it}: {it[:5]}...{it[-3:]}"):
            return report()
        check(ib.shape == (max_it + 1, islands), f"island_best has shape {ib.shape}")
        cost_ib = sign * ib

        # The migration log: who sent to whom, when, and how good.
        mig = f["/migrations"][()]
        want_its = list(range(k, max_it + 1, k))
        reach = {(t, s): carried_destinations(s, islands, topology, seed, t, probability)
                 for t in want_its for s in range(islands)}
        want_records = sum(len(d) for d in reach.values())
        check(len(mig) == want_records,
              f"{len(mig)} migration records, want {want_records} ({len(want_its)} iterations x "
              f"{islands} islands x {links} destinations, those carrying migrants)")
        check(probability == 1 or 0 < want_records < len(want_its) * islands * links,
              f"probability {probability}: {want_records} links of "
              f"{len(want_its) * islands * links} carried migrants, so the draw went untested")
        got_its = sorted(set(int(t) for t in mig["iteration"]))
        check(got_its == sorted({t for (t, s), d in reach.items() if d}),
              f"migration iterations {got_its}, want {want_its}")
        sent, first_logged = {}, {}
        for t, s, d, b in zip(mig["iteration"], mig["from"], mig["to"], mig["best_fitness"]):
            t, s, d = int(t), int(s), int(d)
            check(d in destinations(s, islands, topology),
                  f"iteration {t}: island {s} sent to {d}, topology {topology} allows "
                  f"{destinations(s, islands, topology)}")
            sent.setdefault((t, s), []).append(d)
            if not check(0 <= t <= max_it and 0 <= s < islands,
                         f"record ({t}, {s}, {d}): no such iteration or island"):
                continue
            # History row t is written before the migration at t: the best
            # an island sends is its history best of that row (drawn
            # particles: no better than it).
            if select == "random":
                check(sign * b >= cost_ib[t, s],
                      f"iteration {t}: island {s} logged best_fitness {b!r}, better than its "
                      f"history best at {t} (taken before the migration) {ib[t, s]!r}")
            else:
                check(b == ib[t, s],
                      f"iteration {t}: island {s} logged best_fitness {b!r} but its history best "
                      f"at {t} (taken before the migration) is {ib[t, s]!r}")
            if t == k:
                first_logged[s] = b
        for t in want_its:
            for s in range(islands):
                got = sorted(sent.get((t, s), []))
                want = sorted(reach[(t, s)])
                check(got == want, f"iteration {t}: island {s} sent to {got}, want {want} "
                                   "(one record per destination its links carried to)")
        print(f"ok   /migrations: {len(mig)} records, iterations {want_its[0]}..{want_its[-1]} "
              f"step {k}, destinations per {topology}, best_fitness "
              f"{'no better than' if select == 'random' else '='} history island_best")
        if args.ranks > 0:
            ranks = args.ranks
            check(islands % ranks == 0, f"{islands} islands on {ranks} ranks")
            per = max(islands // ranks, 1)
            inside = sum(1 for s, d in zip(mig["from"], mig["to"]) if s // per == d // per)
            across = len(mig) - inside
            if per > 1:
                check(inside > 0, "no migrant moved between islands of one rank")
            if ranks > 1:
                check(across > 0, "no migrant moved between ranks")
            print(f"ok   {islands} islands on {ranks} rank{'s' if ranks > 1 else ''} ({per} per "
                  f"rank): {inside} records inside ranks, {across} across them")

        # Every island's best never gets worse, across migrations too.
        worse = np.argwhere(np.diff(cost_ib, axis=0) > 0)
        check(len(worse) == 0, "island best got worse: " + ", ".join(
            f"island {j} at iteration {r + 1}: {ib[r, j]!r} -> {ib[r + 1, j]!r}"
            for r, j in worse[:5]))

        # Snapshots: the particle count is conserved.
        snaps = sorted(int(s) for s in f["/snapshots"])
        check(snaps == list(range(0, max_it + 1, k)), f"snapshots at {snaps}")
        for s in snaps:
            g = f[f"/snapshots/{s}"]
            for name in ("position", "velocity", "pbest_position"):
                check(g[name].shape[0] == islands * n,
                      f"snapshot {s}: {name} has {g[name].shape[0]} rows, want "
                      f"{islands} x {n} = {islands * n}")
            for name in ("fitness", "pbest_fitness"):
                check(g[name].shape == (islands * n,), f"snapshot {s}: {name} shape {g[name].shape}")
        print(f"ok   {len(snaps)} snapshots of {islands} x {n} rows; island bests never worse")

        # The first migration, exactly: the twin's snapshot k is the state
        # just before it; apply the policy and compare with snapshot k.
        pre = {name: tw[f"/snapshots/{k}/{name}"][()] for name in
               ("position", "velocity", "pbest_position", "fitness", "pbest_fitness")}
        for name in pre:
            check(np.array_equal(tw[f"/snapshots/0/{name}"][()], f[f"/snapshots/0/{name}"][()]),
                  f"snapshot 0 {name} differs from the isolated twin's: not the same start")
        check(np.array_equal(tw["/history/island_best"][:k + 1], ib[:k + 1]),
              f"history rows 0..{k} differ from the isolated twin's, though the first migration "
              f"comes after row {k}")
        post, best_sent, replaced, kept = expected_after_migration(
            pre, islands, n, topology, migrants, sign, select, policy, seed, k, probability)
        for name in post:
            got = f[f"/snapshots/{k}/{name}"][()]
            bad = np.flatnonzero(np.any((got != post[name]).reshape(islands * n, -1), axis=1))
            check(len(bad) == 0, f"snapshot {k} {name}: rows {list(bad[:8])} differ from the "
                                 "policy applied to the isolated twin's swarm")
        for s in first_logged:
            check(first_logged[s] == best_sent[s],
                  f"iteration {k}: island {s} logged best_fitness {first_logged.get(s)!r}, the "
                  f"best it sent by the policy {best_sent[s]!r}")
            if select == "best":
                check(ib[k, s] == best_sent[s],
                      f"iteration {k}: island {s} history best {ib[k, s]!r}, its best personal "
                      f"best before the migration {best_sent[s]!r}")
        check(replaced > 0, "the first migration replaced no particle: nothing to check")
        if args.want_kept:
            check(kept > 0, "every migrant of the first migration replaced its particle, so the "
                            "strictly-better rule went untested")
        print(f"ok   first migration (iteration {k}) exactly as the policy on the isolated "
              f"twin's swarm: {replaced} particles replaced, {kept} kept (not worse than the "
              "migrant)")

        # Every migration: the particles that changed to a migrant hold a
        # copy of one of the best personal bests of a sending neighbour.
        # (Not with drawn particles: a sender's drawn particle may itself
        # have taken a migrant, and a drawn victim may have been the best.)
        total, improved = 0, 0
        for t in ([] if drawn else want_its):
            cur = [island_rows(f[f"/snapshots/{t}"], i, n) for i in range(islands)]
            prv = [island_rows(f[f"/snapshots/{t - k}"], i, n) for i in range(islands)]
            new = [arrived(cur[i], prv[i]) for i in range(islands)]
            own = [np.setdiff1d(np.arange(n), new[i]) for i in range(islands)]
            # A sender's best particles before the migration are among those
            # that kept their own state: the ones replaced were its worst.
            pool = []
            for s in range(islands):
                c = sign * cur[s]["pbest_fitness"]
                best = ranked(c, own[s], worst=False)[:migrants]
                pool.append(best)
                check(c[best[0]] == cost_ib[t, s],
                      f"iteration {t}: island {s}'s best personal best before the migration "
                      f"(snapshot {t} without its fresh migrants) is "
                      f"{cur[s]['pbest_fitness'][best[0]]!r}, its history best {ib[t, s]!r}")
            for r in range(islands):
                check(len(new[r]) <= migrants * links,
                      f"iteration {t}: island {r} has {len(new[r])} fresh migrants, at most "
                      f"{migrants * links} arrive")
                offers = [(s, j) for s in senders(r, islands, topology) for j in pool[s]]
                for p in new[r]:
                    x = cur[r]["position"][p]
                    match = [(s, j) for s, j in offers
                             if np.array_equal(cur[s]["pbest_position"][j], x)
                             and cur[s]["pbest_fitness"][j] == cur[r]["pbest_fitness"][p]]
                    check(len(match) > 0,
                          f"iteration {t}: island {r} particle {p} has zero velocity and "
                          f"position = personal best, but is none of the {migrants} best "
                          f"personal bests of {senders(r, islands, topology)}")
                    if match:
                        offers.remove(match[0])
                total += len(new[r])
                # Its best before the migration (= history row t, checked
                # above as a sender) against its best after it.
                pre_best = np.min(sign * cur[r]["pbest_fitness"][own[r]])
                post_best = np.min(sign * cur[r]["pbest_fitness"])
                if t < max_it:
                    check(cost_ib[t + 1, r] <= post_best,
                          f"iteration {t + 1}: island {r}'s best {ib[t + 1, r]!r} is worse than "
                          f"after the migration at {t} ({sign * post_best!r})")
                improved += post_best < pre_best
        if drawn:
            print("ok   later migrations not checked particle by particle (drawn particles)")
        else:
            check(total > 0, "no particle ever changed to a migrant")
            check(improved > 0, "no migration ever improved a receiver's best, so the order of "
                                "history row and migration went untested")
            print(f"ok   all {len(want_its)} migrations: {total} particles changed to a migrant "
                  f"of a sending neighbour (position = personal best, velocity 0); {improved} "
                  "receivers' best improved, which history shows from the next row on")

        # The final global best: the lowest cost of all islands, ties by island.
        res = f["/result"]
        best = float(res["best_fitness"][()])
        last = cost_ib[-1]
        check(sign * best == last.min(),
              f"/result/best_fitness {best!r}, best of the last history row {sign * last.min()!r}")
        check(int(res["iteration"][()]) == max_it, f"/result/iteration {res['iteration'][()]}")
        check(int(res["evaluations"][()]) == islands * n * (max_it + 1),
              f"/result/evaluations {res['evaluations'][()]}, want {islands * n * (max_it + 1)}")
        # The result is taken before the last iteration's migration, which may
        # copy the best to a lower island: the island that holds it in the last
        # history row (recorded before that migration), lowest first.
        holders = [j for j in range(islands) if last[j] == last.min()]
        island = int(res["island"][()])
        check(island == holders[0], f"/result/island {island}, but the lowest island holding the "
                                    f"best is {holders[0]} (holders {holders})")
        final = ([island_rows(f[f"/snapshots/{max_it}"], i, n) for i in range(islands)]
                 if max_it in want_its else None)
        if final is not None:
            c = [sign * final[j]["pbest_fitness"] for j in range(islands)]
            check(min(x.min() for x in c) == sign * best,
                  f"final snapshot's best pbest_fitness {sign * min(x.min() for x in c)!r}, "
                  f"/result/best_fitness {best!r}")
            p = int(res["particle"][()])
            check(c[island][p] == sign * best,
                  f"/result/particle {p} of island {island} has pbest {c[island][p]!r}, "
                  f"not the best {sign * best!r}")
            check(np.array_equal(res["best_position"][()], final[island]["pbest_position"][p]),
                  "/result/best_position is not the best particle's personal best")
        with open(args.log) as fh:
            m = re.search(r"^ *best fitness +(\S+) +\(island (\d+), particle (\d+)\)", fh.read(),
                          re.M)
        if check(m is not None, "no 'best fitness' line in the summary"):
            check(float(m.group(1)) == best,
                  f"printed best fitness {m.group(1)}, /result/best_fitness {best!r}")
            check(int(m.group(2)) == island and int(m.group(3)) == int(res["particle"][()]),
                  f"printed island {m.group(2)} particle {m.group(3)}, /result says "
                  f"{island} {int(res['particle'][()])}")
        print(f"ok   final best {best!r} (island {island}) = printed = best of the islands' "
              f"final bests" + (" = final snapshot's best personal best" if final else ""))
    return report()


def report():
    for m in failures[:30]:
        print("FAIL", m)
    if len(failures) > 30:
        print(f"... and {len(failures) - 30} more")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
