"""The schedule: pairings, game ids and seeds (no game is played here).

Every deal (one chance seed) is played twice with the sides swapped, on the
same chance seed; a game's seeds derive from the tournament seed, the
pairing and the deal only, so the schedule does not depend on ``--jobs`` or
the backend.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from solver.errors import ParameterError, brief

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
    raise ParameterError(f"--format: expected one of {', '.join(FORMATS)}, got {brief(fmt)}")


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
    luck: Any = None   # with --luck, the value function measuring each chance event's luck
    #                    (apps.tournament.luck); not part of the schedule: the runner sets it


class Schedule(Sequence):
    """All games in id order, computed on demand: ``len``, ``schedule[i]``
    (the game of id ``i + 1``), :meth:`task` by game id and iteration cost no
    memory per game, so ``--games 100000000`` costs nothing up front.  Deal
    by deal, pairing by pairing, the pairing's first bot Polish then German
    on the same deal seed; in self-play every game is a deal of its own
    (swapping a bot with itself changes nothing)."""

    def __init__(self, bots: Sequence[str], fmt: str, games: int, seed: int,
                 chance: str = DEFAULT_CHANCE):
        self.bots, self.fmt, self.seed, self.chance = tuple(bots), fmt, seed, chance
        self.pairs = pairings(len(bots), fmt)
        self.size = games if fmt == "self-play" else (games // 2) * 2 * len(self.pairs)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.size))]
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError(f"game index {index} out of range 0..{self.size - 1}")
        return self.task(index + 1)

    def task(self, game: int) -> GameTask:
        """The game of id ``game`` (1-based)."""
        i = game - 1
        if self.fmt == "self-play":
            bot = self.bots[0]
            return GameTask(game, 0, i, derive("deal", self.seed, bot, bot, i), bot, bot, bot,
                            bot, self.chance)
        deal, rest = divmod(i, 2 * len(self.pairs))
        k, swap = divmod(rest, 2)
        a, b = self.pairs[k]
        first, second = self.bots[a], self.bots[b]
        polish, german = (first, second) if swap == 0 else (second, first)
        return GameTask(game, k, deal, derive("deal", self.seed, first, second, deal), polish,
                        german, first, second, self.chance)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Schedule):
            return (self.bots, self.fmt, self.seed, self.chance, self.size) == \
                (other.bots, other.fmt, other.seed, other.chance, other.size)
        if isinstance(other, list):
            return len(other) == self.size and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def schedule(bots: Sequence[str], fmt: str, games: int, seed: int,
             chance: str = DEFAULT_CHANCE) -> Schedule:
    """The tournament's games in id order (a lazy :class:`Schedule`);
    ``chance`` is the chance scheme of every game."""
    return Schedule(bots, fmt, games, seed, chance)
