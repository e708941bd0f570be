"""benchmarks/value_coverage.py at a tiny budget: its figures, the packaged
network it used, and a repeat that reads its cached references."""

from __future__ import annotations

import json

from bots import valuenet
from tournament_helpers import benchmark_script


def test_a_tiny_run_reports_coverage_and_the_network_and_repeats(tmp_path):
    bench = benchmark_script("value_coverage")
    out, work = tmp_path / "vc.json", tmp_path / "work"
    argv = ["--positions", "2", "--iterations", "20", "--reference", "40", "--every", "5",
            "--eval", "mix", "--out", str(out), "--work", str(work)]
    assert bench.main(argv) == 0
    first = json.loads(out.read_text())
    assert first["positions"] == 2 and first["eval"] == "mix"
    assert 0.0 <= first["coverage"] <= 1.0
    assert first["packaged_network"] == valuenet.default().sha256
    cached = {p: p.stat().st_mtime_ns for p in work.rglob("*") if p.is_file()}
    assert cached                                   # the references are kept
    assert bench.main(argv) == 0                    # the same command, from the cache
    assert {p: p.stat().st_mtime_ns for p in work.rglob("*") if p.is_file()} == cached
    again = json.loads(out.read_text())
    drop = lambda r: {k: v for k, v in r.items() if k != "seconds"}  # noqa: E731
    assert drop(again) == drop(first)
