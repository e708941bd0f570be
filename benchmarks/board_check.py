"""The analysis board's checker, one change at a time, server-side.

    python benchmarks/board_check.py [--rounds 20] [--out results/bench-serve.json]

For each file of ``examples/``, the editor's changes are replayed as the
page sends them (POST /api/board/check with the whole position, hand sizes
filled, through Starlette's TestClient: no network): the position built up
one card, one Rocket card, one fragment place at a time from the empty
board (mostly invalid on the way, refused by the checker), then the finished
position checked again ``--rounds`` times (valid: checked to the end).  The figure
is the server's own time of each check (its ``Server-Timing`` header), the
median and 99th percentile of all changes and of the valid ones alone,
written under ``"editor_check_bench"`` in ``--out`` (other keys kept).
Target (issue 20): median at most 50 ms.
"""
from __future__ import annotations

import argparse
import copy
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

from apps.server.app import create_app
from solver.vocabulary import SIDES

ROOT = Path(__file__).resolve().parent.parent


def steps(ex: dict) -> list[dict]:
    """The positions of the editor on the way to ``ex`` (as board.js sends them)."""
    s = {"format": ex["format"], "perspective": ex["perspective"], "turn": ex["turn"],
         "step": ex["step"], "to_move": ex["to_move"], "hand": [],
         "hand_sizes": {s: 0 for s in SIDES}, "rockets": [],
         "fragments": {k: 0 for k in ex["fragments"]}, "table": [], "gone": [],
         "events_in_play": [], "redraw_used": ex["redraw_used"], "actions": ex["actions"],
         "pending": ex["pending"]}
    if "drawn_this_turn" in ex:
        s["drawn_this_turn"] = []
    out = []
    for n in ex["hand"]:
        s["hand"].append(n)
        if n in ex.get("drawn_this_turn", []):
            s["drawn_this_turn"].append(n)
        out.append(copy.deepcopy(s))
    for t in ex["table"]:
        s["table"].append(t)
        out.append(copy.deepcopy(s))
    for key in ("gone", "events_in_play"):
        for n in ex.get(key, []):
            s[key].append(n)
            out.append(copy.deepcopy(s))
    for r in ex["rockets"]:
        s["rockets"].append(r)
        out.append(copy.deepcopy(s))
    for k, v in ex["fragments"].items():
        s["fragments"][k] = v
        out.append(copy.deepcopy(s))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20,
                        help="valid changes per example (default 20)")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench-serve.json"))
    args = parser.parse_args(argv)
    every, valid = [], []
    with tempfile.TemporaryDirectory() as data, TestClient(create_app(data)) as client:
        def timed(state: dict) -> tuple[float, bool]:
            res = client.post("/api/board/check", json={"state": state, "auto": True})
            m = re.search(r"check;dur=([0-9.]+)", res.headers["server-timing"])
            return float(m.group(1)), res.status_code == 200

        for path in sorted((ROOT / "examples").glob("*.json")):
            ex = json.loads(path.read_text())
            for state in steps(ex):
                every.append(timed(state)[0])
            for _ in range(args.rounds):  # the finished position, valid
                ms, ok = timed(copy.deepcopy(ex))
                if not ok:
                    raise SystemExit(f"{path.name}: the example does not check")
                every.append(ms)
                valid.append(ms)

    def summary(xs: list[float]) -> dict:
        xs = sorted(xs)
        return {"changes": len(xs), "median_ms": round(statistics.median(xs), 3),
                "p99_ms": round(xs[min(len(xs) - 1, int(0.99 * len(xs)))], 3),
                "max_ms": round(xs[-1], 3)}

    result = {"what": "server-side time of POST /api/board/check per change (Server-Timing), "
                      "the examples built up from the empty board and then re-checked",
              "all": summary(every), "valid": summary(valid), "target_median_ms": 50,
              "command": "python benchmarks/board_check.py",
              "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    out = Path(args.out)
    data = json.loads(out.read_text()) if out.exists() else {}
    data["editor_check_bench"] = result
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(data, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
