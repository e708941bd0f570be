"""The schedule: pairings, game ids and seeds (no game is played here).

Every deal (one chance seed) is played twice with the sides swapped, on the
same chance seed; a game's seeds derive from the tournament seed, the
pairing and the deal only, so the schedule does not depend on ``--jobs`` or
the backend.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Sequence

from solver.errors import ParameterError

FORMATS = ("round-robin", "gauntlet", "self-play")

# Chance schemes (how a game's chance outcomes follow from its deal seed; see
# apps.tournament.chance): "keyed" (common random numbers) for new
# tournaments, "sequential" for a folder whose tournament.json predates the
# "chance" key.
CHANCE_SCHEMES = ("sequential", "keyed")
DEFAULT_CHANCE = "keyed"
LEGACY_CHANCE = "sequential"


def derive(*parts: Any) -> int:
    """A 63-bit seed from its parts (stable across runs and platforms)."""
    text = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


def pairings(n_bots: int, fmt: str) -> list[tuple[int, int]]:
    """Bot index pairs: all pairs for round-robin, (0, k) for gauntlet, the
    one bot against itself for self-play."""
    if fmt == "self-play":
        return [(0, 0)]
    if fmt == "round-robin":
        return [(i, j) for i in range(n_bots) for j in range(i + 1, n_bots)]
    if fmt == "gauntlet":
        return [(0, k) for k in range(1, n_bots)]
    raise ParameterError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")


@dataclass(frozen=True)
class GameTask:
    game: int          # 1-based game id
    pairing: int       # index into the pairing list
    deal: int          # deal number within the pairing
    deal_seed: int     # chance seed (shared by the two games of a deal)
    polish: str        # bot spec playing Polish
    german: str        # bot spec playing German
    first: str         # the pairing's first bot (for the score line)
    second: str
    chance: str = DEFAULT_CHANCE   # chance scheme (CHANCE_SCHEMES)


def schedule(bots: Sequence[str], fmt: str, games: int, seed: int,
             chance: str = DEFAULT_CHANCE) -> list[GameTask]:
    """All games in id order: deal by deal, pairing by pairing, the pairing's
    first bot Polish then German on the same deal seed.  In self-play every
    game is a deal of its own (swapping a bot with itself changes nothing).
    ``chance`` is the chance scheme of every game."""
    pairs = pairings(len(bots), fmt)
    tasks = []
    if fmt == "self-play":
        bot = bots[0]
        return [GameTask(g + 1, 0, g, derive("deal", seed, bot, bot, g), bot, bot, bot, bot,
                         chance)
                for g in range(games)]
    for deal in range(games // 2):
        for k, (i, j) in enumerate(pairs):
            deal_seed = derive("deal", seed, bots[i], bots[j], deal)
            for swap in (0, 1):
                polish, german = (bots[i], bots[j]) if swap == 0 else (bots[j], bots[i])
                tasks.append(GameTask(len(tasks) + 1, k, deal, deal_seed, polish, german,
                                      bots[i], bots[j], chance))
    return tasks
