"""The players' bot is one bot per game, driven the same way by every
interface (issue 47): one seeded game at an iteration budget, played
through a tournament's game loop, the engine protocol (``wildhorn-solve
engine`` in a child process, through the tournament's engine client),
``play`` (piped, as a user pipes it) and the web server (its per-game
search process), gives the same decisions of the bot in all four."""

from __future__ import annotations

import asyncio
import sys

import pyspiel
import pytest

from apps.gamebot import GameBot
from apps.record import Actor, new_record, read_save
from apps.server.games import GameStore, Limits
from apps.tournament import execution
from apps.tournament.scheduling import GameTask
from bots import DEFAULT_SPEC, BotSpec, make_bot
from conftest import ROOT, run_cli

SEED = 11                                  # the game's seed (its chance stream)
SPEC = f"{DEFAULT_SPEC}:iterations=40"     # the players' bot at a small iteration budget
BOT = 0                                    # the bot plays Polish; the "human" German
BOT_SEED = new_record(human=1 - BOT, bot=BotSpec.parse(SPEC), seed=SEED).bot_seed()


def _tournament_game(bot_spec: str, monkeypatch) -> list[tuple[str, int]]:
    """One game of a tournament's game loop (``execution.play_game``):
    ``bot_spec`` as Polish with the game's bot seed, the heuristic bot as
    German, chance drawn in order from ``random.Random(SEED)`` (the
    ``sequential`` scheme, the record's stream); every action taken, as
    (who, action): "bot", "human" or "chance"."""
    taken: list[tuple[str, int]] = []
    real = execution.make_player

    class Logged:
        def __init__(self, player, who):
            self.player, self.who = player, who

        def analyse(self, state):
            result = self.player.analyse(state)
            taken.append((self.who, int(result["action"])))
            return result

        def close(self):
            self.player.close()

    def make_player(spec, player, seed):
        who = "bot" if player == BOT else "human"
        return Logged(real(spec, player, BOT_SEED if player == BOT else seed), who)

    monkeypatch.setattr(execution, "make_player", make_player)
    task = GameTask(1, 0, 0, SEED, bot_spec, "heuristic", bot_spec, "heuristic",
                    chance="sequential")
    row = execution.play_game(task)["row"]
    assert row["moves"] == sum(1 for who, _ in taken if who != "chance")
    return taken


def _bot_actions(taken):
    return [a for who, a in taken if who == "bot"]


@pytest.fixture(scope="module")
def reference():
    """The tournament's game: the bot's decisions and the German's."""
    with pytest.MonkeyPatch.context() as mp:
        return _tournament_game(SPEC, mp)


@pytest.mark.slow
def test_the_engine_makes_the_same_decisions(reference, monkeypatch):
    engine = f"cmd:{sys.executable} -m apps.cli engine --bot {SPEC}"
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    taken = _tournament_game(engine, monkeypatch)
    assert taken == reference


@pytest.mark.slow
def test_play_makes_the_same_decisions(reference, tmp_path):
    """``play`` piped: the German's decisions typed as the numbers of the
    options ``play`` lists (the legal actions in order)."""
    record = new_record(human=1 - BOT, bot=BotSpec.parse(SPEC), seed=SEED)
    typed = []
    for who, action in reference:
        if who == "bot":
            record.bot_act(action)
        else:
            typed.append(str(record.core.legal_actions().index(action) + 1))
            record.human_act(action)
    assert record.status() == "over"
    save = tmp_path / "game.json"
    run = run_cli("play", "--side", "german", "--seed", str(SEED), "--bot", SPEC,
                  "--save", str(save), input="\n".join(typed) + "\n")
    assert run.returncode == 0, run.stderr
    played = read_save(str(save))
    assert played.status() == "over"
    assert [s.action for s in played.steps if s.by is Actor.BOT] == \
        _bot_actions(reference)


@pytest.mark.slow
def test_the_server_makes_the_same_decisions(reference, tmp_path):
    """The web server: the game's bot in its search process, kept from
    move to move."""
    async def scenario():
        store = GameStore(tmp_path, Limits())
        game = store.new_game(side="german", bot=SPEC, seed=SEED)
        record = game.record
        german = iter(a for who, a in reference if who == "human")
        try:
            while record.status() != "over":
                if record.status() == "bot":
                    await store.bot_move(game)
                else:
                    store.act(game, next(german), record.version())
            assert len(store.pool.bots) == 0     # the game over, its process ended
        finally:
            await store.shutdown()
        return [s.action for s in record.steps if s.by is Actor.BOT]

    assert asyncio.run(scenario()) == _bot_actions(reference)


def test_the_game_bot_is_the_tournaments_seat_and_keeps_its_solver():
    """A tournament's seat is the GameBot every interface drives; the
    players' bot builds the same search whether the host is interactive
    or not, and gives its solver's table back to the process at the end."""
    assert isinstance(execution.make_player(SPEC, 0, 1), GameBot)
    quiet = make_bot(SPEC, 0, 1)
    interactive = make_bot(SPEC, 0, 1, interactive=True)
    assert quiet.options == interactive.options
    assert (quiet.endgame, quiet.decided) == (interactive.endgame, interactive.decided) \
        == ("exact", "heuristic")
    assert quiet.options["eval"] == "mix"
    from bots import base
    solver = quiet.endgame_solver()
    quiet.close()
    assert base._SOLVER_POOL[-1] is solver
    again = make_bot(SPEC, 0, 2)
    assert again.endgame_solver() is solver
    again.close()


def test_the_game_bot_refuses_the_other_sides_decision():
    game = pyspiel.load_game("wildhorn")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    other = 1 - state.current_player()
    bot = GameBot({}, BotSpec.parse(SPEC), other, 1)
    with pytest.raises(ValueError, match="plays player"):
        bot.decide(state.core)


def _to_a_searched_decision(record, who, bot=None):
    """Plays first legal actions (the game's bot's searched choices when
    ``bot`` is given and it decides) up to a decision of ``who`` ("human" or
    "bot") with two options or more."""
    while not (record.status() == who and len(record.core.legal_actions()) > 1):
        assert record.status() != "over"
        if record.status() == "human":
            record.human_act(record.core.legal_actions()[0])
        elif bot is not None and len(record.core.legal_actions()) > 1:
            record.bot_act(bot.decide_record(record)["action"])
        else:
            record.bot_act(record.core.legal_actions()[0])


def test_pondering_serves_the_bots_next_decision():
    """The bot searches the human's decision from its own information; its
    next decision's search goes on with the part of that tree under the
    human's move (ISMCTS's nodes are keyed by information sets)."""
    record = new_record(human=1, bot=BotSpec.parse(f"{DEFAULT_SPEC}:time=0.2"), seed=4)
    bot = GameBot.for_record(record)
    assert bot.ponder_cap() == pytest.approx(2.0)
    _to_a_searched_decision(record, "human", bot)
    looks = []
    iterations = bot.ponder(record.core.copy(), lambda: looks.append(1) or len(looks) > 400)
    assert iterations > 0 and bot.bot.ponder_figures["kind"] == "search"
    _to_a_searched_decision(record, "bot")
    stats = bot.decide_record(record)["stats"]
    assert stats["pondered_iterations"] == iterations
    assert stats["pondered_visits"] > 0
    again = bot.decide_record(record)["stats"]        # one ponder serves one decision
    assert again["pondered_visits"] == 0 and again["pondered_iterations"] == 0
    bot.close()


def test_an_iteration_budget_does_not_ponder():
    """Pondering runs on the clock; a bot with an iteration budget never
    ponders, so its games stay the same for a seed."""
    record = new_record(human=1, bot=BotSpec.parse(SPEC), seed=4)
    bot = GameBot.for_record(record)
    _to_a_searched_decision(record, "human")
    assert bot.ponder_cap() == 0.0 and bot.ponder(record.core, lambda: False) == 0


def test_pondering_in_the_last_turn_solves_the_humans_decision():
    """Where nothing is hidden, pondering is the exact solver's: its table
    keeps every position it reached, those after the human's move among
    them, for the bot's own solve."""
    from helpers import last_turn
    core = last_turn({"PL01": "periphery", "PL22": "hand", "DE01": "base"}, {"periphery": 1})
    assert core.current_player() == 0
    bot = make_bot(f"{DEFAULT_SPEC}:time=0.5", 1, seed=1)
    nodes = bot.ponder(core, lambda: False, cap=30.0)
    assert nodes > 0 and bot.ponder_figures == {"kind": "exact", "nodes": nodes,
                                                "complete": True}
    bot.close()
