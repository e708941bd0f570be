"""Golden playthroughs (OpenSpiel's format): every recorded game is replayed
and must reproduce its file line for line.  Regenerate deliberately with
``python scripts/regen_playthroughs.py`` and review the diff."""
from pathlib import Path

import pytest
from absl import flags
from open_spiel.python.algorithms import generate_playthrough

import solver  # noqa: F401  (registers the game)

DATA = Path(__file__).parent / "data"
FILES = sorted(DATA.glob("wildhorn_*.txt"))


def test_playthrough_files_exist():
    assert {f.name for f in FILES} >= {"wildhorn_tiny.txt", "wildhorn_small.txt",
                                       "wildhorn_one_turn.txt"}


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_playthrough_replays(path):
    flags.FLAGS.mark_as_parsed()
    expected, actual = generate_playthrough.replay(str(path))
    expected_lines, actual_lines = expected.split("\n"), actual.split("\n")
    for i, (a, b) in enumerate(zip(expected_lines, actual_lines)):
        assert a == b, f"{path.name}:{i + 1}: differs"
    assert len(expected_lines) == len(actual_lines)
