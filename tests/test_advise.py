"""advise, run as a user runs it, on the examples; its answers, and the
responses it gives inside an action's resolution."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from solver._core import Core, CoreConfig
from apps.advise import advise
from solver.cards import load_card_set

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.json"))
KEYS = {"to_move", "recommended", "actions", "value", "value_ci95", "responses", "stats"}


def run(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "apps.cli", *args],
                          capture_output=True, text=True, timeout=timeout)


def test_examples_exist():
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_advise_json_on_examples(path):
    r = run("advise", str(path), "--json", "--iterations", "3000", "--seed", "1")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert KEYS <= set(out)
    assert out["to_move"] in ("polish", "german")
    assert out["recommended"] in [a["action"] for a in out["actions"]]
    for a in out["actions"]:
        assert {"action", "frequency", "visits", "value", "stderr"} <= set(a)
    assert abs(sum(a["frequency"] for a in out["actions"]) - 1) < 1e-3
    assert abs(out["value"]["polish"] + out["value"]["german"] - 1) < 1e-6
    lo, hi = out["value_ci95"]["polish"]
    assert lo <= out["value"]["polish"] <= hi
    assert out["stats"]["iterations"] == 3000


def test_advise_human_output():
    r = run("advise", str(EXAMPLES[0]), "--iterations", "2000")
    assert r.returncode == 0, r.stderr
    assert "Recommended:" in r.stdout and "Win probability polish" in r.stdout


@pytest.mark.parametrize("args,needle", [
    (["advise", "/nonexistent/state.json"], "state.json"),
    (["advise", "EXAMPLE", "--bot", "alphazero"], "alphazero"),
    (["advise", "EXAMPLE", "--time", "-1"], "--time"),
])
def test_advise_bad_input_exits_2(args, needle):
    args = [str(EXAMPLES[0]) if a == "EXAMPLE" else a for a in args]
    r = run(*args)
    assert r.returncode == 2
    assert needle in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_recommendation_stable_across_seeds():
    """On each example the recommended action agrees in at least 4 of 5 seeds."""
    from solver.state_io import load
    for path in EXAMPLES:
        picks = [advise(load(path, seed=s), iterations=20000, seed=s)["recommended"]
                 for s in range(5)]
        top = max(set(picks), key=picks.count)
        assert picks.count(top) >= 4, (path.name, picks)


def test_responses_inside_a_search():
    """Polish searches on the last turn, 0-0, a Partisans guarding the
    Forest, two Good Luck cards against two Bad Luck cards: if the German
    plays Bad Luck, the answer is Good Luck."""
    cs = load_card_set()
    cfg = CoreConfig(cs)
    places = {c.number: "gone" for c in cs.cards}
    places.update({"PL01": "periphery", "PL02": "forest", "PL18": "hand", "PL19": "hand",
                   "DE01": "base", "DE03": "base", "DE18": "hand", "DE19": "hand"})
    core = Core.build(cfg, places=places, fragments={"periphery": 1},
                      rockets=[1, 2, 3, 4], turn=4)
    out = advise(core, iterations=20000, seed=3)
    assert out["recommended"] == "PL01 Scouts: search"
    answers = {r["then"] for r in out["responses"] if r["if"] == "german DE18 Bad Luck: play"}
    assert answers and answers <= {"PL18 Good Luck: play", "PL19 Good Luck: play"}


BAD = sorted((Path(__file__).parent / "data" / "bad_states").glob("*.json"))


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_advise_bad_files_exit_2(path, capsys):
    """Every file of the bad corpus: exit 2, one line naming the JSON path."""
    from apps.cli import main
    assert main(["advise", str(path), "--iterations", "10"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "$" in err and "Traceback" not in err


DECISIONS = ("redraw", "actions", "zone", "motorcycle", "target", "escort", "ambush",
             "modifiers", "nurses", "witnesses", "refresh", "number")


def test_advise_at_every_kind_of_decision(tmp_path):
    """advise answers at each kind of decision point, found in seeded random games."""
    import json as _json
    from solver.state_io import load, write_random_states
    seen = {}
    for seed in range(40):
        if len(seen) == len(DECISIONS):
            break
        for path in write_random_states(40, seed, tmp_path / str(seed)):
            step = _json.loads(path.read_text())["step"]
            if step in DECISIONS and step not in seen:
                seen[step] = path
    assert set(seen) == set(DECISIONS)
    for step, path in seen.items():
        out = advise(load(path), iterations=300, seed=1)
        assert out["phase"] == step or (step == "actions" and out["phase"] == "actions")
        assert out["recommended"] in [a["action"] for a in out["actions"]]
