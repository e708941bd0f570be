"""The engine protocol (apps.engine, docs/engine-protocol.md): the server
answers each message, a tournament plays an engine process as ``cmd:...``
and gets the same games as with the built-in bot, nothing hidden is sent,
and a broken engine gives a one-line error."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pyspiel
import pytest

import solver  # noqa: F401
from apps import tournament as T
from apps.engine import EngineBot, EngineError, event_for, external_command, serve
from bots import make_bot
from solver import state_io
from apps.record import DECLINE_TEXTS
from solver.errors import ParameterError
from solver.vocabulary import PRIVATE_WINDOWS

GAME = pyspiel.load_game("wildhorn")
ENGINE = f"cmd:{sys.executable} -m apps.cli engine --bot heuristic"


def _decision(seed=0, player=0):
    state, rng = GAME.new_initial_state(), random.Random(seed)
    while state.is_chance_node() or state.current_player() != player:
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()])
                           if state.is_chance_node() else rng.choice(state.legal_actions()))
    return state


def _serve(lines, spec="heuristic"):
    out = io.StringIO()
    assert serve(spec, io.StringIO("".join(json.dumps(x) + "\n" if not isinstance(x, str)
                                           else x for x in lines)), out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_server_answers_hello_new_game_and_act():
    state = _decision()
    view = state_io.to_json(state, 0)
    replies = _serve([{"type": "hello", "protocol": 1},
                      {"type": "new_game", "game": {}, "player": 0, "seed": 3},
                      {"type": "observe", "event": {"by": "chance", "action": None}},
                      {"type": "act", "state": view, "legal": state.legal_actions()},
                      {"type": "quit"}, {"type": "hello"}])
    assert [r["type"] for r in replies] == ["hello", "ready", "action"]   # nothing after quit
    assert replies[0]["protocol"] == 1 and replies[0]["bot"] == "heuristic"
    bot = make_bot("heuristic", 0, 3)
    assert replies[2]["action"] == bot.analyse(state_io.from_json(view, seed=3))["action"]


def test_the_server_reports_bad_messages_and_goes_on():
    state = _decision()
    replies = _serve(["{not json\n", [1, 2], {"type": "dance"},
                      {"type": "act", "state": {}, "legal": [0]},
                      {"type": "new_game", "game": {}, "player": 2},
                      {"type": "new_game", "game": {"turns": 99}, "player": 0},
                      {"type": "new_game", "game": {}, "player": 1, "seed": 0},
                      {"type": "act", "state": state_io.to_json(state, 0),
                       "legal": state.legal_actions()},
                      {"type": "hello"}])
    kinds = [r["type"] for r in replies]
    assert kinds == ["error"] * 6 + ["ready", "error", "hello"]
    messages = [r["message"] for r in replies if r["type"] == "error"]
    assert all("\n" not in m for m in messages)
    assert "expected a JSON object" in messages[1]
    assert "expected hello, new_game" in messages[2]
    assert "no game in progress" in messages[3]
    assert "new_game.player" in messages[4] and "turns" in messages[5]
    assert "polish is not to move" not in messages[6] and "german is not to move" in messages[6]


@pytest.mark.slow
def test_a_line_nested_100000_deep_or_a_boolean_player_is_a_one_line_error():
    """Issue 46 point 17: the engine command (a process, as a tournament
    meets it) answers a line nested 100,000 deep, and ``"player": true``,
    with a one-line error, and goes on answering."""
    state = _decision()
    lines = ["[" * 100_000 + "]" * 100_000,
             '{"type": "act", "state": ' + '{"a":' * 100_000 + "1" + "}" * 100_000 + "}",
             json.dumps({"type": "new_game", "game": {}, "player": True}),
             json.dumps({"type": "new_game", "game": {}, "player": 0, "seed": 1}),
             json.dumps({"type": "act", "state": state_io.to_json(state, 0),
                         "legal": [True] + state.legal_actions()[1:]}),
             json.dumps({"type": "hello", "protocol": 1}), json.dumps({"type": "quit"})]
    r = subprocess.run([sys.executable, "-m", "apps.cli", "engine", "--bot", "random"],
                       input="\n".join(lines) + "\n", capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr[-300:]
    replies = [json.loads(line) for line in r.stdout.splitlines()]
    assert [x["type"] for x in replies] == ["error", "error", "error", "ready", "error", "hello"]
    assert replies[0]["message"] == "input line 1: not a message (nested too deeply)"
    assert replies[1]["message"] == "input line 2: not a message (nested too deeply)"
    assert "new_game.player" in replies[2]["message"] and "got true" in replies[2]["message"]
    assert "act.legal" in replies[4]["message"]


def _valuer(tmp_path, value: str) -> str:
    """An engine that plays its first legal action and answers ``value``
    (JSON text, as written on the wire)."""
    path = tmp_path / "valuer.py"
    path.write_text("import sys, json\n"
                    "for line in sys.stdin:\n"
                    "    m = json.loads(line)\n"
                    "    t = m['type']\n"
                    "    if t == 'hello': print(json.dumps({'type': 'hello', 'protocol': 1}))\n"
                    "    elif t == 'new_game': print(json.dumps({'type': 'ready'}))\n"
                    "    elif t == 'act': print('{\"type\": \"action\", \"action\": %d, "
                    "\"value\": %s}' % (m['legal'][0], " + repr(value) + "))\n"
                    "    elif t == 'quit': break\n"
                    "    sys.stdout.flush()\n")
    return f"cmd:{sys.executable} {path}"


@pytest.mark.parametrize("value", ["[NaN, Infinity]", "[1e308, -5]", "[0.5]", '"0.5"',
                                   "[true, 0]", "[1.5, 0.2]"])
def test_a_value_outside_0_1_is_refused_when_received(tmp_path, value):
    """Issue 46 point 18: a value that is not two probabilities is the
    engine's protocol error, refused at once (it used to reach values.csv
    and break the calibration figure of every report of the folder)."""
    bot = EngineBot(_valuer(tmp_path, value), 0, 1, GAME)
    try:
        with pytest.raises(EngineError, match=r"answered act with value .*each a probability "
                                              r"in \[0, 1\]"):
            bot.analyse(_decision())
    finally:
        bot.close()
    good = EngineBot(_valuer(tmp_path, "[0.25, 1]"), 0, 1, GAME)
    try:
        assert good.analyse(_decision())["value"] == [0.25, 1.0]
    finally:
        good.close()


@pytest.mark.slow
def test_a_tournament_with_a_nan_valuer_stops_in_one_line_and_its_folder_reports(tmp_path):
    """Issue 46 point 18 as a tournament meets it: one line, exit 2, no
    value row written; the folder's games so far still give standings."""
    out = tmp_path / "t"
    r = subprocess.run([sys.executable, "-m", "apps.cli", "tournament", "--bots",
                        f"{_valuer(tmp_path, '[NaN, Infinity]')};random", "--games", "2",
                        "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-500:]
    assert len(r.stderr.strip().splitlines()) == 1 and "each a probability" in r.stderr
    values = out / "values.csv"
    assert not values.exists() or "nan" not in values.read_text().lower()


def test_events_hide_the_opponents_draws_and_redraw_choice():
    state, rng = GAME.new_initial_state(), random.Random(4)
    seen = {0: [], 1: []}
    while not state.is_terminal() and len(seen[0]) < 400:
        action = (rng.choice([a for a, _ in state.chance_outcomes()]) if state.is_chance_node()
                  else rng.choice(state.legal_actions()))
        for p in (0, 1):
            event = event_for(state, action, p)
            if event is not None:
                seen[p].append(event)
        state.apply_action(action)
    for p in (0, 1):
        draws = [e for e in seen[p] if e["kind"] == "draw"]
        assert draws and all((e["action"] is None) == (e["side"] != ("polish", "german")[p])
                             for e in draws)
        redraws = [e for e in seen[p] if e["kind"] == "redraw"]
        assert redraws and all((e["action"] is None) == (e["by"] != ("polish", "german")[p])
                               for e in redraws)
        assert all(e["action"] is not None for e in seen[p] if e["kind"] in ("roll", "rocket"))


def _settled_view(core, p):
    """``p``'s observation of ``core`` (the core's information state string)
    as the player at the table has it: while the opponent decides in a
    private reaction window, nothing is shown, so the view is the one after
    the decline (R29: declining looks like no window at all)."""
    while (not core.is_terminal() and not core.is_chance() and core.current_player() != p
           and core.phase in PRIVATE_WINDOWS):
        core = core.copy()
        core.apply(next(a for a in core.legal_actions()
                        if core.action_string(core.current_player(), a) in DECLINE_TEXTS))
    return core.info_string(p)


def test_an_engine_is_told_exactly_what_its_player_observes():
    """Issue 46 point 16: an event is sent to a seat exactly when its player's
    observation (the core's information state string, as the table shows
    it) changes; the opponent's declines of Escort, Ambush!, Witnesses,
    Nurses and Motorcycle changed nothing the player sees, but were sent,
    and a window opens only for a side holding such a card.  Checked on
    every step of 20 seeded games, through the client's own sending."""
    sent_total = withheld = 0
    for seed in range(20):
        state, rng = GAME.new_initial_state(), random.Random(seed)
        seats = []
        for p in (0, 1):
            seat = EngineBot.__new__(EngineBot)          # the client, without a process
            seat.player, seat.shadow, seat.told, seat.out = p, GAME.new_initial_state(), 0, []
            seat.send = seat.out.append
            seats.append(seat)
        while not state.is_terminal():
            action = (rng.choice([a for a, _ in state.chance_outcomes()])
                      if state.is_chance_node() else rng.choice(state.legal_actions()))
            before = state.core.copy()
            state.apply_action(action)
            for seat in seats:
                count = len(seat.out)
                seat.catch_up(state)
                sent = len(seat.out) - count
                observed = _settled_view(before, seat.player) != \
                    _settled_view(state.core, seat.player)
                assert sent == int(observed), (seed, before.phase, seat.player,
                                               seat.out[count:])
                sent_total += sent
                withheld += not sent
    assert sent_total > 5_000 and withheld > 50   # the windows were met, and withheld


@pytest.mark.slow
def test_an_engine_plays_the_same_games_as_the_built_in_bot(tmp_path):
    summary = T.run([ENGINE, "random"], games=4, seed=1, out=str(tmp_path),
                    echo=lambda _: None)
    assert summary["games"] == 4
    for row in T.read_games(tmp_path):
        task = T.GameTask(row["game"], 0, row["deal"], row["deal_seed"],
                          "heuristic" if row["polish"] == ENGINE else "random",
                          "heuristic" if row["german"] == ENGINE else "random",
                          "heuristic", "random", "keyed")
        ref = T.play_game(task)["row"]
        for key in ("winner_side", "moves", "fragments_polish", "fragments_german"):
            assert ref[key] == row[key], (row["game"], key)
    assert summary["bots"][ENGINE]["mean_seconds_per_move"] > 0


def test_a_malformed_engine_reply_is_a_one_line_error(tmp_path):
    liar = tmp_path / "liar.py"
    liar.write_text("import sys, json\n"
                    "for line in sys.stdin:\n"
                    "    t = json.loads(line)['type']\n"
                    "    if t == 'hello': print(json.dumps({'type': 'hello', 'protocol': 1}))\n"
                    "    elif t == 'new_game': print(json.dumps({'type': 'ready'}))\n"
                    "    elif t == 'act': print('resign', flush=True)\n"
                    "    sys.stdout.flush()\n")
    with pytest.raises(EngineError, match=r"answered act with a line that is not JSON: 'resign'"):
        EngineBot(f"cmd:{sys.executable} {liar}", 0, 1, GAME).step(_decision())
    r = subprocess.run([sys.executable, "-m", "apps.cli", "tournament", "--bots",
                        f"cmd:{sys.executable} {liar};random", "--games", "2",
                        "--out", str(tmp_path / "t")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "not JSON" in r.stderr


def test_an_engine_that_dies_or_stalls_or_plays_illegally_is_named(tmp_path):
    with pytest.raises(EngineError, match=r"exit status 3.*its last error line: boom"):
        EngineBot(f"cmd:{sys.executable} -c \"import sys; sys.stderr.write('boom\\n'); "
                  f"sys.exit(3)\"", 0, 1, GAME)
    with pytest.raises(EngineError, match="no answer within 0.5 s"):
        EngineBot(f"cmd:{sys.executable} -c \"import time; time.sleep(30)\"", 0, 1, GAME,
                  start_timeout=0.5)
    illegal = tmp_path / "illegal.py"
    illegal.write_text("import sys, json\n"
                       "for line in sys.stdin:\n"
                       "    t = json.loads(line)['type']\n"
                       "    r = {'hello': {'type': 'hello'}, 'new_game': {'type': 'ready'},\n"
                       "         'act': {'type': 'action', 'action': 283}}.get(t)\n"
                       "    if r: print(json.dumps(r), flush=True)\n")
    bot = EngineBot(f"cmd:{sys.executable} {illegal}", 0, 1, GAME)
    with pytest.raises(EngineError, match="chose 283, not a legal action"):
        bot.step(_decision())
    bot.close()
    with pytest.raises(EngineError, match="cannot start"):
        EngineBot("cmd:/nonexistent/engine", 0, 1, GAME)
    with pytest.raises(ParameterError, match="expected a command"):
        external_command("cmd:  ")


def test_the_engine_command_refuses_a_bad_spec_and_answers_on_stdout():
    bad = subprocess.run([sys.executable, "-m", "apps.cli", "engine", "--bot", "nonsense"],
                         input="", capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown bot 'nonsense'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    ok = subprocess.run([sys.executable, "-m", "apps.cli", "engine", "--bot", "random"],
                        input='{"type": "hello", "protocol": 1}\n{"type": "quit"}\n',
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and json.loads(ok.stdout)["type"] == "hello"


LEGACY_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "legacy_engine.py"
LEGACY = f"cmd:{sys.executable} {LEGACY_SCRIPT} --bot heuristic"


def test_the_legacy_engine_script_plays_the_same_games_as_the_built_in_bot(tmp_path):
    """scripts/legacy_engine.py (the engine side for builds older than the
    protocol, run by that build's Python) speaks the same protocol: here on
    this build, the same games as the built-in heuristic."""
    summary = T.run([LEGACY, "random"], games=2, seed=3, out=str(tmp_path), echo=lambda _: None)
    assert summary["games"] == 2
    for row in T.read_games(tmp_path):
        task = T.GameTask(row["game"], 0, row["deal"], row["deal_seed"],
                          "heuristic" if row["polish"] == LEGACY else "random",
                          "heuristic" if row["german"] == LEGACY else "random",
                          "heuristic", "random", "keyed")
        ref = T.play_game(task)["row"]
        for key in ("winner_side", "moves", "fragments_polish", "fragments_german"):
            assert ref[key] == row[key], (row["game"], key)


def test_the_legacy_engine_script_refuses_a_bad_spec_in_one_line():
    bad = subprocess.run([sys.executable, str(LEGACY_SCRIPT), "--bot", "nonsense"],
                         input="", capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown bot 'nonsense'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
