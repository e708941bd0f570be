"""benchmarks/eval_suite.py: every leaf evaluation graded on positions of the
frozen last-turn suite, at equal iterations and at equal time."""

from __future__ import annotations

import json

from bots import valuenet
from tournament_helpers import ROOT, benchmark_script


def test_every_eval_is_graded_on_the_suites_open_positions(tmp_path):
    bench = benchmark_script("eval_suite")
    suite = json.loads((ROOT / "results" / "endgame-suite.json").read_text())
    open_rows = [r for r in suite["positions"]          # solved, some action not optimal
                 if r["solved"] and any(a["optimal"] is False for a in r["actions"].values())][:3]
    assert open_rows
    small = tmp_path / "suite.json"
    small.write_text(json.dumps({**suite, "positions": open_rows}))
    out = tmp_path / "eval.json"
    assert bench.main(["--suite", str(small), "--iterations", "50", "--seconds", "0.01",
                       "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["packaged_network"] == valuenet.default().sha256
    specs = bench.specs(50, 0.01)
    assert len(specs) == 2 * len(bench.EVALS)
    for spec in specs:
        graded = result[spec]["all"]
        assert graded["decisions"] + result[spec]["undetermined"] == result["positions"]
        assert 0.0 <= graded["optimal"] <= 1.0 and graded["mean_loss"] >= 0.0
