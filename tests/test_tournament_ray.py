"""--backend ray: the same tournament on a local Ray instance gives the same
games.csv and values.csv as the local process pool (apart from timing).

ray comes with README's test command (it is in the ``test`` extra); one
small tournament keeps the Ray start-up (a few seconds) the main cost."""
import pytest

pytest.importorskip("ray", reason="ray is not installed: pip install -e '.[test]' (or "
                                  "'.[ray]') brings it; the Ray backend cannot be tested")

from tournament_helpers import cli, table  # noqa: E402


@pytest.mark.slow
def test_ray_backend_gives_the_local_results(tmp_path):
    args = ["--bots", "random;heuristic;ismcts:iterations=5", "--games", "2", "--seed", "11",
            "--jobs", "2"]
    local, ray = tmp_path / "local", tmp_path / "ray"
    r = cli(*args, "--out", str(local))
    assert r.returncode == 0, r.stderr
    r = cli(*args, "--out", str(ray), "--backend", "ray", "--address", "local",
            timeout=300)
    assert r.returncode == 0, r.stderr
    assert "Ray: a local instance with 2 CPUs" in r.stdout
    assert r.stdout.count("Finished game") == 6
    assert "Finished game 1 (random vs heuristic, random Polish): " in r.stdout
    games = table(ray / "games.csv")
    assert [int(g["game"]) for g in games] == list(range(1, 7))
    assert games == table(local / "games.csv")
    values = table(ray / "values.csv")
    assert values and values == table(local / "values.csv")
