"""`wildhorn-solve play`, driven through a pipe as a user would type it."""
import io
import json
import re

import pytest

from apps.play import PlaySession
from apps.record import new_record
from bots.spec import BotSpec
from conftest import run_cli

BASE = ["play", "--bot", "heuristic", "--seed", "3", "--side", "polish"]
V1 = __import__("pathlib").Path(__file__).parent / "data" / "saves-v1"


def play(*args, lines=(), timeout=120):
    return run_cli(*args, input="".join(f"{line}\n" for line in lines), timeout=timeout)


def test_a_whole_game_through_a_pipe():
    r = play(*BASE, lines=["1"] * 3000)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert "Game over. Winner:" in r.stdout
    assert "Summary:" in r.stdout and "Fragments: Polish" in r.stdout
    # the table: three zones, the hand with card text, the event log
    assert "Rocket Base" in r.stdout and "Periphery" in r.stdout and "Forest" in r.stdout
    assert "Your hand" in r.stdout and "Recent events:" in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    # the log (apps.narration) tells outcomes, turn ends with the score, the bot's moves
    assert "German places " in r.stdout and "End of turn 1: " in r.stdout
    assert "Score: Polish " in r.stdout and re.search(r"The (attack|search|spy) (succeeds|fails)",
                                                      r.stdout)
    # and nothing the human may not know: the bot's draws and declines (R26, R29)
    assert "German draws 5 cards." in r.stdout and not re.search(r"German draws DE\d", r.stdout)
    assert "German declines" not in r.stdout


def screens(out: str) -> list[list[str]]:
    """The compact screens of a transcript: from the blank line before "Turn "
    to the prompt, inclusive."""
    lines = out.splitlines()
    found = []
    for i, line in enumerate(lines):
        if line.startswith("Turn ") and i and not lines[i - 1]:
            end = next((j for j in range(i, len(lines)) if lines[j].startswith("Choose 1-")
                        or lines[j].startswith("Game over.")), len(lines) - 1)
            found.append(lines[i - 1:end + 1])
    return found


def test_compact_screens_fit_80x24():
    r = play(*BASE, "--compact", lines=["1"] * 3000)
    assert r.returncode == 0, r.stderr
    assert "Game over. Winner:" in r.stdout
    shown = screens(r.stdout)
    assert len(shown) > 20
    for screen in shown:
        assert len(screen) <= 24, "\n".join(screen)
        assert max(len(line) for line in screen) <= 80
        assert any(line.startswith("Hand (") for line in screen)
        assert any(line.startswith("Events:") for line in screen)
    # the full screen is longer: the compact one is not the default through a pipe
    full = play(*BASE, lines=["1", "quit"])
    assert "Your hand" in full.stdout and "Hand (" not in full.stdout


def test_bad_commands_get_a_message_and_the_prompt_again():
    r = play(*BASE, lines=["frobnicate", "999", "search PL99", "1", "quit"])
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert "Unknown command or action 'frobnicate'" in r.stdout
    assert "There is no action 999" in r.stdout
    assert "Unknown command or action 'search PL99'" in r.stdout
    # each answer is followed by the prompt, and the game went on to the next decision
    assert r.stdout.count("Choose 1-2 or a command") >= 4
    assert "You keep your hand." in r.stdout


def test_an_action_by_its_text_and_an_ambiguous_one():
    r = play(*BASE, lines=["KEEP", "place", "PL01 place", "quit"])
    assert r.returncode == 0, r.stderr
    assert "You keep your hand." in r.stdout
    assert "'place' is ambiguous" in r.stdout
    assert "You place PL01 Scouts in the Forest." in r.stdout


def test_undo_restores_the_position(tmp_path):
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    r = play(*BASE, "--save", str(before), lines=["quit"])
    assert r.returncode == 0, r.stderr
    r = play(*BASE, "--save", str(after), lines=["1", "1", "undo", "undo", "undo", "quit"])
    assert r.returncode == 0, r.stderr
    assert "Undone" in r.stdout and "Nothing to undo" in r.stdout
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    assert a == b  # same position, random state, events and (empty) undo stack


@pytest.mark.parametrize("bot", ["heuristic", "ismcts:iterations=60"])
def test_save_and_load_round_trip(tmp_path, bot):
    """Against the heuristic and against the default bot (ISMCTS, on a small
    budget, whose log entries carry its ratings): saved, loaded, continued
    to the same end as the unbroken game."""
    base = ["play", "--bot", bot, "--seed", "3", "--side", "polish"]
    path = tmp_path / "game.json"
    moves = ["1", "PL01 place", "1", "1"]
    r = play(*base, "--save", str(path), lines=[*moves, "quit"])
    assert r.returncode == 0, r.stderr
    saved = json.loads(path.read_text())
    assert saved["format"] == "wildhorn-game/2" and saved["bot"] == bot
    assert [s["by"] for s in saved["steps"]].count("human") == len(moves)
    last_screen = r.stdout[r.stdout.rindex("=== Turn"):r.stdout.rindex("Choose")]
    # loading shows the same position and continues to the end like the unbroken game
    r2 = play("play", "--load", str(path), lines=["quit"])
    assert r2.returncode == 0, r2.stderr
    assert last_screen in r2.stdout
    kept = tmp_path / "kept.json"
    kept.write_bytes(path.read_bytes())
    r3 = play("play", "--load", str(path), lines=["1"] * 3000)
    whole = play(*base, lines=[*moves, *["1"] * 3000])
    assert r3.returncode == 0 and "Game over. Winner:" in r3.stdout
    tail = lambda out: out[out.rindex("Game over."):]  # noqa: E731
    assert tail(r3.stdout) == tail(whole.stdout)
    # advise and export read the save too
    exported = run_cli("export", str(kept), timeout=120)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["format"] == "wildhorn-state/1"
    advised = run_cli("advise", str(kept), "--iterations", "200", "--json", timeout=120)
    assert advised.returncode == 0, advised.stderr
    assert json.loads(advised.stdout)["recommended"]


def test_a_corrupt_save_file_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    for content in ("{not json", json.dumps({"format": "wildhorn-game/1", "core": "AAAA"}),
                    json.dumps([1, 2])):
        bad.write_text(content)
        r = play("play", "--load", str(bad))
        assert r.returncode == 2
        assert "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and str(bad) in r.stderr
    r = play("play", "--load", str(tmp_path / "missing.json"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_help_and_hint():
    r = play(*BASE, lines=["help", "hint", "quit"])
    assert r.returncode == 0, r.stderr
    assert "Commands:" in r.stdout and "undo" in r.stdout
    assert "Hint: " in r.stdout and "Win probability: Polish" in r.stdout
    # each action's win chance, and the search's frequency named as one
    assert re.search(r": your win chance \d+%, searched \d+% of the time", r.stdout)
    assert "value 0." not in r.stdout and "played " not in r.stdout


def test_eof_ends_cleanly_and_a_searching_bot_rates_the_game():
    r = play("play", "--bot", "ismcts:iterations=200", "--seed", "5", "--side", "german",
             lines=[])
    assert r.returncode == 0, r.stderr
    assert "Input ended" in r.stdout and "Traceback" not in r.stderr
    r = play("play", "--bot", "ismcts:iterations=200", "--seed", "5", "--side", "polish",
             lines=["1", "PL01 place"])
    assert r.returncode == 0, r.stderr
    assert "Bot is thinking..." in r.stdout
    assert "bot rates its chance to win at" in r.stdout


WINDOW = "Reaction window (modifiers)"
CONFIRM = "Press Enter or 1 to confirm"


def test_ask_all_stops_at_windows_with_nothing_to_play():
    # seed 3: the German bot's searches open modifier windows where Polish holds nothing
    asked = play(*BASE, "--ask-all", lines=["1"] * 3000)
    assert asked.returncode == 0, asked.stderr
    assert "Traceback" not in asked.stdout + asked.stderr
    assert WINDOW in asked.stdout and "1. pass priority" in asked.stdout
    assert CONFIRM in asked.stdout and "Game over. Winner:" in asked.stdout
    plain = play(*BASE, lines=["1"] * 3000)
    assert plain.returncode == 0, plain.stderr
    assert "Reaction window" not in plain.stdout and CONFIRM not in plain.stdout
    # the confirmations are extra decisions only: the game itself is the same
    windows = asked.stdout.count(CONFIRM)
    result = lambda out: out[out.rindex("Game over."):out.rindex("Summary:")]  # noqa: E731
    assert result(asked.stdout) == result(plain.stdout)
    took = lambda out: int(out.split("you took ")[-1].split()[0])  # noqa: E731
    assert took(asked.stdout) == took(plain.stdout) + windows


def test_ask_all_window_enter_undo_save_and_load(tmp_path):
    # the first window comes after 6 decisions; Enter confirms it like "1"
    r = play(*BASE, "--ask-all", lines=["1"] * 6 + ["", "quit"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.count(CONFIRM) == 1 and "You pass priority." in r.stdout
    # saved at the window (a raw single-option position), then undone back to it
    at_window, undone = tmp_path / "window.json", tmp_path / "undone.json"
    r = play(*BASE, "--ask-all", "--save", str(at_window), lines=["1"] * 6 + ["quit"])
    assert r.returncode == 0, r.stderr
    r = play(*BASE, "--ask-all", "--save", str(undone), lines=["1"] * 7 + ["undo", "quit"])
    assert r.returncode == 0, r.stderr
    assert "Undone" in r.stdout
    assert json.loads(at_window.read_text()) == json.loads(undone.read_text())
    # loading continues at the window, and to the same end as the unbroken game
    r = play("play", "--load", str(at_window), "--ask-all", lines=["1"] * 3000)
    assert r.returncode == 0, r.stderr
    assert r.stdout.index(CONFIRM) < r.stdout.index("Choose 1-")
    whole = play(*BASE, "--ask-all", lines=["1"] * 3000)
    tail = lambda out: out[out.rindex("Game over."):]  # noqa: E731
    assert tail(r.stdout) == tail(whole.stdout)


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("lines,compact", [("24", True), ("60", False)])
def test_a_small_terminal_gets_the_compact_screen(monkeypatch, lines, compact):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", lines)
    out = FakeTerminal()
    record = new_record(human=0, bot=BotSpec.parse("random"), seed=3)
    session = PlaySession(record, inp=io.StringIO(""), out=out)
    assert session.compact is compact
    session.render(["pass"])
    screen = out.getvalue()
    # a new game is at its first decision: the hands are dealt (3 cards to start, 5 drawn)
    assert ("Hand (8): " in screen) is compact and ("Your hand (8):" in screen) is not compact
    if compact:
        assert len(screen.splitlines()) <= 24 - 1  # and the prompt
    forced = PlaySession(record, compact=True, inp=io.StringIO(""), out=io.StringIO())
    assert forced.compact


def test_a_save_whose_events_have_no_kind_still_loads(tmp_path):
    """Saves of the first format written before the narrator held events as
    {"who", "text"} only."""
    path = tmp_path / "old.json"
    data = json.loads((V1 / "play-random.json").read_text())
    assert all({"who", "text", "kind", "details"} <= set(e) for e in data["events"])
    data["events"] = [{"who": e["who"], "text": e["text"]} for e in data["events"]]
    path.write_text(json.dumps(data))
    r = play("play", "--load", str(path), "--compact", lines=["undo", "1", "1", "quit"])
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "Undone" in r.stdout  # its history came back
    assert "Summary" not in r.stdout and "Game saved in" in r.stdout
    assert json.loads(path.read_text())["format"] == "wildhorn-game/2"


@pytest.mark.parametrize("name", ["play-random", "play-askall", "play-over", "server-ismcts"])
def test_every_save_of_the_first_format_loads(tmp_path, name):
    path = tmp_path / f"{name}.json"
    path.write_bytes((V1 / f"{name}.json").read_bytes())
    r = play("play", "--load", str(path), lines=["1", "1", "quit"])
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert ("Game over" in r.stdout) is (name == "play-over")


def test_undo_says_what_it_took_back():
    r = play(*BASE, lines=["1", "PL01 place", "undo", "quit"])
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    line = out[out.index("Undone: "):out.index("Back to that decision.") + 22]
    assert 'your decision "You place PL01 Scouts in the Forest."' in line
    assert re.search(r"and the bot's \d+ decisions? after it \(\d+ log entr(y|ies) taken back\)",
                     line), line
    assert line.endswith("Back to that decision.")


@pytest.mark.parametrize("screen", [[], ["--compact"]])
def test_card_shows_a_cards_text_on_either_screen(screen):
    r = play(*BASE, *screen, lines=["card PL07", "card de22", "card motorcycle", "card PL99",
                                    "card", "quit"])
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    assert "PL07 Partisans (Polish Unit, 2 bullets, one of 4 copies): Unit, 2 bullets." in out
    assert out.count("DE22 Motorcycle (German Immediate, one of 2 copies): Immediate:") == 2
    assert "card: no card 'PL99': give a card's number (PL01 to DE23) or part of its name" in out
    assert "card: give a card's number or part of its name, e.g. card PL07." in out
    assert "Traceback" not in r.stdout + r.stderr
    help_text = play(*BASE, *screen, lines=["help", "quit"]).stdout
    assert "card PL07" in help_text


@pytest.mark.parametrize("compact", [False, True])
def test_a_unit_waiting_on_the_motorcycle_is_drawn_where_it_goes(compact):
    """The log says "German moves DE02 Soldiers from the Rocket Base to the
    Periphery" before the Motorcycle window: the table, drawn from the
    record, shows DE02 in the Periphery (marked moving), not at the Base."""
    from apps.narration import Narrator
    from tests.helpers import act, build
    record = new_record(human=1, bot=BotSpec.parse("random"), seed=3)
    core = build(places={"DE02": "base", "DE22": "hand", "PL01": "forest"}, actor=1)
    before = core.copy()
    core.apply(act("MOVE", "DE02"))
    assert core.phase == "motorcycle" and core.location(24)[0] == "base"
    told = [e.text for e in Narrator(core.config, 1).step(before, act("MOVE", "DE02"), core)]
    assert "You move DE02 Soldiers from the Rocket Base to the Periphery." in told
    record.core = core
    out = io.StringIO()
    session = PlaySession(record, compact=compact, inp=io.StringIO(""), out=out)
    session.render(["decline", "DE22 Motorcycle: play"])
    lines = out.getvalue().splitlines()
    if compact:
        base = next(x for x in lines if x.startswith("Base "))
        periphery = next(x for x in lines if x.startswith("Periphery "))
        assert "DE02" not in base and "DE02 Soldiers:2*>" in periphery
        assert any(">moving" in x for x in lines)
    else:
        def row(zone):  # the table's row of a zone, from its title to the next rule
            i = next(k for k, x in enumerate(lines) if x.startswith(f"| {zone}"))
            j = next(k for k in range(i, len(lines)) if lines[k].startswith(("|---", "+---")))
            return " ".join(lines[i:j])
        assert "DE02" not in row("Rocket Base")
        assert "DE02 Soldiers [2 bullets]" in row("Periphery") and "moving" in row("Periphery")


def test_an_ask_all_window_draws_the_table():
    r = play("play", "--bot", "heuristic", "--seed", "12", "--side", "german", "--ask-all",
             lines=["1"] * 400 + ["quit"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    windows = [i for i, x in enumerate(lines) if x.startswith("Reaction window (")]
    assert windows
    for i in windows[:5]:  # the table was drawn just before the window's option
        above = "\n".join(lines[max(0, i - 60):i])
        assert "Your hand (" in above and "Rocket Base" in above
