"""Regenerates the golden playthrough files in tests/data/ (OpenSpiel's format).

    python scripts/regen_playthroughs.py

Run it after a deliberate change of the rules, action strings, information
states or tensors; review the diff (git diff tests/data) before committing.
tests/test_playthrough.py replays every file and fails on any difference.
"""
from __future__ import annotations

import sys
from pathlib import Path

from absl import flags
from open_spiel.python.algorithms import generate_playthrough

import solver  # noqa: F401  (registers the game)

# game string -> (file name, seed of the random actions)
PLAYTHROUGHS = {
    "wildhorn(variant=tiny)": ("wildhorn_tiny.txt", 3),
    "wildhorn(variant=small)": ("wildhorn_small.txt", 5),
    "wildhorn(turns=1,draw=3)": ("wildhorn_one_turn.txt", 11),
}
DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def main() -> int:
    flags.FLAGS.mark_as_parsed()
    DATA.mkdir(parents=True, exist_ok=True)
    for game_string, (name, seed) in PLAYTHROUGHS.items():
        text = generate_playthrough.playthrough(game_string, None, seed=seed)
        (DATA / name).write_text(text)
        print(f"wrote {DATA / name} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
