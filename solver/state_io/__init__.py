"""State files: one player's view of a game as JSON (format ``wildhorn-state/1``).

A player at a real table types in what they can see and asks ``advise`` what
to do; a bot or a test saves a position to look at later.  A state file holds
exactly one player's information (R25, R26): their own hand, both hand sizes,
the public table, cards gone and in play, fragments, revealed Rocket cards,
the chain of actions and the action being resolved.  Never the opponent's
hand, the deck order or the opponent's secret redraw decision.  The contract
is ``docs/state-format.md``; the exact shape, with a description of
every key, is the JSON Schema ``solver/data/state.schema.json``.

Public API
==========

``to_json(state, player) -> dict``
    The view of ``player`` (0 or "polish", 1 or "german") of a pyspiel
    ``WildhornState`` or a ``solver._core.Core``, at a decision point or at
    the rocket / roll chance steps.
``from_json(obj, seed=0) -> WildhornState``
    Checks a state (a dict or JSON text) and builds a position of the right
    game consistent with it: the opponent's hand is a uniform draw (seeded)
    from the opponent's unseen cards, every unseen START card in it (R26).
    Its ``information_state_string(perspective)`` is that of any real
    position the file describes.
``load(path_or_file, seed=0)`` / ``dump(state, player, path_or_file)``
    The same from / to a file.
``read_position(path_or_file, seed=0) -> Position``
    The one read path: the file read once and checked once; the position
    (``.state``), whose view it is (``.perspective``) and the opponent's
    plays of the turn the file lists (``.opponent_plays``, per play the
    position before it and the action id), together.
``write_random_states(count, seed, out_dir)``
    Files from seeded random games, at varied decision points.

Every problem with the input raises :class:`~solver.errors.StateFormatError`
with one line ``<file or "state">: <JSON path>: <what was expected>``, e.g.
``bad.json: $.hand[2]: unknown card number "PL99" ...``.

A short example (the Polish player's first decision of the game)::

    {
      "format": "wildhorn-state/1",
      "perspective": "polish",
      "turn": 1,
      "step": "actions",
      "to_move": "polish",
      "hand": ["PL01", "PL02", "PL03", "PL04", "PL07", "PL13", "PL18", "PL22"],
      "hand_sizes": {"polish": 8, "german": 8},
      "rockets": [3],
      "fragments": {"periphery": 3, "hidden": 0, "forest": 0, "wildhorn": 0, "base": 0},
      "table": [],
      "gone": [],
      "redraw_used": {"polish": false, "german": false},
      "actions": {"left": 1, "passes": 0},
      "pending": null
    }

Consistency checks beyond the schema (each names the offending JSON path):
every card exists in this game and is in one place only; the hand belongs to
the perspective; only Unit/Support cards stand on the table, Support cards
only in their home zone (R1); only Operation Wildhorn III and Hidden
Fragments stay in play, and Operation Wildhorn III never leaves (R21); one
Rocket value per turn after the V-2 step (R6), each a Rocket card of the
set; the fragments on the cards are at most the total (R2) and exactly what
the Rocket cards fired (they never return to the pool); nothing hidden
without Hidden Fragments in play, nothing on Wildhorn without Operation
Wildhorn III; the hands add up: each deck holds exactly what the draws of
the turns so far left in it (R3, R5), so the perspective's hand and the
opponent's hand size are forced, and every unseen START card is in hand
(R26); the redraw decisions and the cards drawn this turn fit the step
(R5); the step, the player to move and the pending action agree (who
decides each window, the acting card's ability and zone, dice and
modifiers so far); the chain count is at most what Volunteers and
Motorized Column can give (R10, R12); and the player to move really has a
choice (the engine applies a single option at once and skips windows with
nothing to play, R29, R30).  Before any action of a turn (the redraw and
V-2 steps) every card on the table is fresh and no Hidden Fragments card is
in play (R8), and in turn 1 the table, the cards gone and the fragments are
the game's setup; the modifiers are explained by the Good Luck, Bad Luck and
Assistance cards played (R18); Operation Wildhorn III in play holds a
fragment, each Hidden Fragments card 1 or 2.  Whatever ``Core.from_fields``
still refuses comes back as a StateFormatError too, with the nearest JSON
path.  The list, for people who own the game: ``docs/position-invariants.md``.

Files are read bounded (``solver.jsonio``): a regular file of at most 1 MB,
JSON without NaN or infinities, no array or object larger than any state
has; an integer is written without a fraction (``2.0`` is refused).
``check_position(state)`` applies the same checks to a position from both
players' views (for saves, ``apps.play``); importing this package registers
it with ``solver.game.POSITION_CHECKS``, so ``deserialize_state`` refuses
what a file would.

Modules, one job each
=====================
``fileformat``  the ``format`` tag, the JSON Schema and the step tables of the
                format, and the first check of a state (structure, schema)
``params``      the ``game`` and ``card_set`` keys <-> core configurations
``writer``      ``to_json``, ``dumps``, ``dump``
``checker``     the rules-level checks of a state and the position it
                describes; ``check_position``
``reader``      the one read path (``read_position``) and its views
``corpus``      ``write_random_states``
"""

from __future__ import annotations

from solver.game import POSITION_CHECKS
from solver.state_io.checker import check_position
from solver.state_io.corpus import write_random_states
from solver.state_io.fileformat import (CHANCE_STEPS, DECISION_STEPS, FORMAT, FRAGMENT_KEYS, HOME,
                                        SCHEMA_PATH, SIDES, STEPS, ZONES, schema)
from solver.state_io.params import deck_schedule, game_config
from solver.state_io.reader import (Position, from_json, load, load_opponent_plays,
                                    opponent_plays, position_of, read_position)
from solver.state_io.writer import dump, dumps, to_json

__all__ = [
    "FORMAT", "SCHEMA_PATH", "SIDES", "ZONES", "HOME", "FRAGMENT_KEYS", "DECISION_STEPS",
    "CHANCE_STEPS", "STEPS", "schema",
    "Position", "read_position", "position_of", "from_json", "load", "opponent_plays",
    "load_opponent_plays",
    "to_json", "dumps", "dump",
    "check_position", "game_config", "deck_schedule", "write_random_states",
]

POSITION_CHECKS.append(check_position)  # game.deserialize_state refuses what a file would
