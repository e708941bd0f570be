"""The exact last-turn solver's mechanisms measured in nodes, not seconds.

    python benchmarks/endgame_nodes.py --positions 40 --max-nodes 1000000

Takes the same sample of the frozen suite as ``wildhorn-solve bench
endgame --positions N`` (evenly spaced) and solves each position, every
action (the bench's "solved" figure) and the best action only, from an
empty table within ``--max-nodes`` positions, once per solver setting:
``all`` (every mechanism on, as shipped) and each mechanism turned off in
turn (``exact._endgame.Solver``'s switches).  Node counts do not depend on
the machine or its load, so this is how a mechanism is judged on a shared
machine; the seconds are reported beside them.  Prints, per setting, the
positions solved within the budget (also by distance to the game's end),
the nodes each took, and the summed nodes of the positions every setting
solved; writes results/endgame-nodes.json.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from apps.bench_endgame import SUITE, _distance_band, suite_cores  # noqa: E402
from exact.endgame import DEFAULT_TABLE_ENTRIES, Solver, solve  # noqa: E402

SETTINGS = {                     # name: the Solver switches turned off
    "all": {},
    "no_canonical": {"canonical": False},
    "no_ordering": {"ordering": False},
    "no_history": {"history": False},
    "no_merging": {"merging": False},
    "no_reach": {"reach": False},
}


def sample(suite_path: Path, positions: int) -> list:
    """The bench's sample: ``positions`` suite positions, evenly spaced."""
    cores = suite_cores(json.loads(Path(suite_path).read_text()))
    step = max(1, len(cores) // positions) if positions else 1
    return cores[::step][:positions] if positions else cores


def measure(cores: list, switches: dict, max_nodes: int, table_entries: int,
            log=print) -> dict:
    engine = Solver(table_entries=table_entries, **switches)
    rows = []
    for n, (row, core) in enumerate(cores):
        out = {"game": row["game"], "index": row["index"], "from_end": row["from_end"]}
        for every_action, name in ((True, "every"), (False, "best")):
            cpu = time.process_time()
            result = solve(core, max_nodes=max_nodes, every_action=every_action, solver=engine)
            cpu = time.process_time() - cpu
            out[name] = {"complete": result.complete, "nodes": result.nodes,
                         "seconds": round(result.seconds, 4), "cpu_seconds": round(cpu, 4),
                         "hit_rate": round(result.hit_rate, 4)}
            if result.complete and row.get("solved") and every_action:
                out["value_agrees"] = abs(result.value - row["value"]) < 1e-9
        rows.append(out)
        log(f"  {n + 1}/{len(cores)} ({row['from_end']} from the end): "
            f"every {out['every']['nodes']} {'solved' if out['every']['complete'] else '-'}, "
            f"best {out['best']['nodes']} {'solved' if out['best']['complete'] else '-'}")
    return {"switches": switches, "rows": rows}


def summary(result: dict) -> dict:
    rows = result["rows"]
    bands: dict[str, list[bool]] = {}
    for r in rows:
        bands.setdefault(_distance_band(r["from_end"]), []).append(r["every"]["complete"])
    solved = [r for r in rows if r["every"]["complete"]]
    return {"solved_every": len(solved),
            "solved_best": sum(r["best"]["complete"] for r in rows),
            "by_distance": {b: f"{sum(v)}/{len(v)}" for b, v in bands.items()},
            "seconds_total": round(sum(r["every"]["seconds"] + r["best"]["seconds"]
                                       for r in rows), 1),
            "nodes_per_cpu_second": round(
                sum(r[k]["nodes"] for r in rows for k in ("every", "best"))
                / max(1e-9, sum(r[k]["cpu_seconds"] for r in rows for k in ("every", "best")))),
            "values_disagree": sum(r.get("value_agrees") is False for r in rows)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default=str(SUITE))
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--max-nodes", type=int, default=1_000_000)
    ap.add_argument("--table-entries", type=int, default=DEFAULT_TABLE_ENTRIES)
    ap.add_argument("--settings", default=",".join(SETTINGS),
                    help="comma-separated names among " + ", ".join(SETTINGS))
    ap.add_argument("--out", default="results/endgame-nodes.json")
    args = ap.parse_args(argv)
    names = [s.strip() for s in args.settings.split(",") if s.strip()]
    unknown = [s for s in names if s not in SETTINGS]
    if unknown:
        print(f"--settings: unknown setting(s) {', '.join(unknown)}; "
              f"expected some of {', '.join(SETTINGS)}", file=sys.stderr)
        return 2
    cores = sample(Path(args.suite), args.positions)
    t0 = time.time()
    results = {}
    for name in names:
        print(f"{name}: {SETTINGS[name] or 'every mechanism on'}")
        results[name] = measure(cores, SETTINGS[name], args.max_nodes, args.table_entries)
        results[name]["summary"] = summary(results[name])
        print(f"{name}: {json.dumps(results[name]['summary'])}")
    common = [k for k in range(len(cores))
              if all(r["rows"][k]["every"]["complete"] for r in results.values())]
    for name, r in results.items():
        r["summary"]["nodes_on_common"] = sum(r["rows"][k]["every"]["nodes"] for k in common)
    print(f"positions every setting solved: {len(common)}; their summed nodes: "
          + ", ".join(f"{n} {r['summary']['nodes_on_common']}" for n, r in results.items()))
    out = {"suite": args.suite, "positions": len(cores), "max_nodes": args.max_nodes,
           "table_entries": args.table_entries,
           "common_positions": len(common), "settings": results,
           "seconds": round(time.time() - t0, 1),
           "command": " ".join(["python", *sys.argv])}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
