"""Shared fixtures: games and configurations are built once per session."""
import pyspiel
import pytest

import solver  # noqa: F401  (registers the game)
from solver.game import make_config


@pytest.fixture(scope="session")
def full_game():
    return pyspiel.load_game("wildhorn")


@pytest.fixture(scope="session")
def tiny_game():
    return pyspiel.load_game("wildhorn(variant=tiny)")


@pytest.fixture(scope="session")
def small_game():
    return pyspiel.load_game("wildhorn(variant=small)")


@pytest.fixture(scope="session")
def full_config():
    return make_config()
