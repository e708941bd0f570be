"""benchmarks/endgame_backoff.py on two made-up matches over the same
deals: each match's figures by pair, and the change between them on the
deals both completed, follow from the games; a folder without games is an
error, not a figure."""
import math
from pathlib import Path

import pytest
from tournament_helpers import benchmark_script, paired_match


@pytest.fixture(scope="module")
def script():
    return benchmark_script("endgame_backoff")


def match(folder: Path, wins_by_deal: list[int], first: str = "exact",
          second: str = "off", seed0: int = 1000) -> Path:
    """A match folder of the exact bot against off (``paired_match``)."""
    return paired_match(folder, wins_by_deal, first, second, seed0)


def test_figures_follow_from_the_games(script, tmp_path):
    old = match(tmp_path / "a", [0, 1, 1, 2] * 25)         # 100 of 200
    new = match(tmp_path / "b", [1, 1, 2, 2] * 25)         # 150 of 200
    out = script.compare({"fixed_half": old, "backoff": new})
    assert out["common_pairs"] == 100
    assert out["score_fixed_half"] == pytest.approx(0.5)
    assert out["score_backoff"] == pytest.approx(0.75)
    assert out["score_change"] == pytest.approx(0.25)
    lo, hi = out["score_change_ci95_bootstrap"]
    assert lo < 0.25 < hi and lo > 0                       # every deal's change is 0 or +0.5
    assert out["elo_change"] == pytest.approx(400 * math.log10(3))
    assert out["matches"]["backoff"]["by_pair"]["pentanomial"] == [0, 0, 50, 0, 50]
    assert out["matches"]["fixed_half"]["by_pair"]["pentanomial"] == [25, 0, 50, 0, 25]
    same = script.compare({"fixed_half": old, "backoff": old})
    assert same["score_change"] == 0 and same["score_change_ci95_bootstrap"] == [0.0, 0.0]


def test_only_deals_complete_in_both_are_compared(script, tmp_path):
    old = match(tmp_path / "a", [1] * 10)
    new = match(tmp_path / "b", [2] * 4)                   # an interrupted rerun
    out = script.compare({"fixed_half": old, "backoff": new})
    assert out["common_pairs"] == 4 and out["score_change"] == pytest.approx(0.5)


def test_a_folder_without_games_is_refused(script, tmp_path):
    (tmp_path / "empty").mkdir()
    full = match(tmp_path / "f", [1] * 10)
    with pytest.raises(FileNotFoundError):
        script.compare({"fixed_half": full, "backoff": tmp_path / "empty"})
    header_only = match(tmp_path / "h", [])
    with pytest.raises(FileNotFoundError, match="no games played"):
        script.compare({"fixed_half": full, "backoff": header_only})


def test_other_deals_are_refused(script, tmp_path):
    """Two folders numbering their deals alike but dealt from other seeds
    are not the same deals: an error, not a figure."""
    old = match(tmp_path / "a", [1] * 10)
    new = match(tmp_path / "b", [2] * 10, seed0=5000)
    with pytest.raises(ValueError, match="not the same deals"):
        script.compare({"fixed_half": old, "backoff": new})
