"""Play a game against a bot in the terminal: ``wildhorn-solve play``.

The table is drawn with :mod:`rich` on a console at most 80 columns wide;
when stdout is not a terminal rich writes plain text (no colours, no
escape codes), so the game can be driven through a pipe.

Your decisions are a numbered list of the legal actions: type a number, or
(part of) an action's text ("search PL04" picks "PL04 Scouts: search").
Commands: ``help``, ``hint``, ``undo``, ``save [FILE]``, ``quit``.

Reaction windows (escort, ambush, witnesses, nurses, motorcycle, modifiers):
the engine itself skips every window in which you hold nothing but
"decline" (rulings R29/R30), so you are asked exactly when you hold a legal
reaction.  With ``--ask-all`` the game is driven with ``Core.apply_raw``
(no automatic moves): a window where you can only decline or pass priority
is shown and you confirm it ("1" or Enter; the commands still work); every
other single-option node (forced pass, chance with one outcome, the bot's
forced moves, a single target) is applied silently, without drawing on the
random stream, so the game unfolds as it would without ``--ask-all``.

Chance (draws, Rocket cards, dice) is sampled from ``random.Random(seed)``;
the bot gets, for each decision, a seed derived from the game seed and the
length of the event log, so a saved game replays the same way after
``--load`` or ``undo``.  Only what the human player may know is shown: the
bot's hand and its draws stay hidden.

Save files (JSON, written atomically)::

    {"format": "wildhorn-game/1", "game": {game parameters}, "core": base64,
     "rng": [version, [state...], gauss], "human_side": "polish"|"german",
     "bot": spec, "seed": N, "events": [{"who", "text"}...],
     "undo": [{"core", "rng", "events"}...]}
"""

from __future__ import annotations

import base64
import json
import os
import random
import sys
import tempfile
from typing import Any, Callable, TextIO

import pyspiel

import solver  # noqa: F401  (registers the game)
from apps.advise import advise
from bots import make_bot, parse_spec
from solver._core import Core
from solver.errors import SerializationError

FORMAT = "wildhorn-game/1"
SIDES = ("polish", "german")
TITLES = ("Polish", "German")
DEFAULT_BOT = "ismcts:time=1.0"
HINT_ITERATIONS = 3000
EVENTS_SHOWN = 8
# reaction windows: with --ask-all the human confirms even a lone "decline"
WINDOW_PHASES = ("escort", "ambush", "witnesses", "nurses", "motorcycle", "modifiers")
DECLINE_TEXTS = ("decline", "pass priority")

HELP = """\
Type the number of an action, or part of its text ("search PL04").
Commands:
  help         this text
  hint         ask the search what it would do here, with win probabilities
  undo         take back your last decision (and the bot's replies since)
  save [FILE]  save the game (default: the --save / --load file)
  quit         leave the game (saved first when a save file is set)
Reaction windows (escort, ambush, witnesses, nurses, motorcycle, modifiers)
only stop for you when you hold a legal reaction: the engine skips the others.
With --ask-all they also stop when you can only decline: Enter or 1 confirms.
The bot's hand and draws stay hidden; its rating of the game is shown
as a win probability after each of its moves."""


class EndOfInput(Exception):
    """The input ended (a pipe ran dry): the game stops cleanly."""


def _rng_state(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _set_rng_state(rng: random.Random, state: Any) -> None:
    version, internal, gauss = state
    rng.setstate((version, tuple(internal), gauss))


def write_atomic(path: str, data: str) -> None:
    """Writes ``data`` to ``path`` atomically (a temporary file, then rename);
    SerializationError if it cannot."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".wildhorn-", suffix=".tmp", dir=folder)
    except OSError as err:
        raise SerializationError(f"{path}: cannot save: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise SerializationError(f"{path}: cannot save: {err.strerror or err}") from None
        raise


class PlaySession:
    """One game between a human (reading ``inp``) and a bot."""

    def __init__(self, *, game_params: dict[str, Any], human: int, bot_spec: str, seed: int,
                 save_path: str | None = None, ask_all: bool = False,
                 inp: TextIO | None = None, out: TextIO | None = None):
        parse_spec(bot_spec)  # a bad spec fails before the game starts
        self.game_params = dict(game_params)
        self.game = pyspiel.load_game("wildhorn", self.game_params)
        self.config = self.game.core_config
        self.core = self.game.new_initial_state().core.copy()
        self.human = human
        self.bot_side = 1 - human
        self.bot_spec = bot_spec
        self.seed = seed
        self.rng = random.Random(seed)
        self.events: list[dict[str, str]] = []
        self.undo_stack: list[dict[str, Any]] = []
        self.save_path = save_path
        self.ask_all = ask_all
        self.inp = inp or sys.stdin
        self.out = out or sys.stdout
        self.shown_events = 0
        self.cards = {c.global_index: c for c in self.config.card_set.cards}
        from rich.console import Console

        tty = self.out.isatty()
        width = 80
        if tty:
            try:
                width = min(80, os.get_terminal_size(self.out.fileno()).columns)
            except OSError:
                width = 80
        self.console = Console(file=self.out, width=width, force_terminal=tty,
                               no_color=not tty, highlight=False, emoji=False,
                               soft_wrap=False)

    # ---- save / load ---------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "game": self.game_params,
                "core": base64.b64encode(self.core.to_bytes()).decode("ascii"),
                "rng": _rng_state(self.rng), "human_side": SIDES[self.human],
                "bot": self.bot_spec, "seed": self.seed, "events": self.events,
                "undo": self.undo_stack}

    def save(self, path: str) -> None:
        """Writes the game to ``path`` atomically (a temporary file, then rename)."""
        write_atomic(path, json.dumps(self.to_json()))

    @classmethod
    def load(cls, path: str, **kwargs: Any) -> "PlaySession":
        """A session restored from a save file; SerializationError if it is bad."""
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as err:
            raise SerializationError(f"{path}: cannot read: {err.strerror or err}") from None
        except (ValueError, UnicodeDecodeError) as err:
            raise SerializationError(f"{path}: not a usable saved game: invalid JSON "
                                     f"({str(err).splitlines()[0]})") from None
        return cls.from_json(data, path, **kwargs)

    @classmethod
    def from_json(cls, data: Any, source: str, **kwargs: Any) -> "PlaySession":
        """A session restored from a parsed save file (``source`` names it in
        the messages); SerializationError if it is bad."""
        def bad(why: str) -> SerializationError:
            return SerializationError(f"{source}: not a usable saved game: {why}")

        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise bad(f"expected format {FORMAT!r}")
        try:
            if data["human_side"] not in SIDES:
                raise ValueError("human_side")
            if not isinstance(data["game"], dict) or not isinstance(data["bot"], str) \
                    or not isinstance(data["seed"], int):
                raise ValueError("game/bot/seed")
            session = cls(game_params=data["game"], human=SIDES.index(data["human_side"]),
                          bot_spec=data["bot"], seed=data["seed"], **kwargs)
            session.core = Core.from_bytes(session.config,
                                           base64.b64decode(data["core"], validate=True))
            _set_rng_state(session.rng, data["rng"])
            events = data["events"]
            if not isinstance(events, list) or not all(
                    isinstance(e, dict) and isinstance(e.get("who"), str)
                    and isinstance(e.get("text"), str) for e in events):
                raise ValueError("events")
            session.events = events
            undo = data["undo"]
            if not isinstance(undo, list):
                raise ValueError("undo")
            for snap in undo:  # every snapshot must restore
                Core.from_bytes(session.config, base64.b64decode(snap["core"], validate=True))
                random.Random().setstate((snap["rng"][0], tuple(snap["rng"][1]), snap["rng"][2]))
                if not isinstance(snap["events"], int) or not 0 <= snap["events"] <= len(events):
                    raise ValueError("undo events")
            session.undo_stack = undo
        except SerializationError as err:
            raise bad(str(err)) from None
        except Exception as err:  # any malformed field
            raise bad(f"malformed field ({type(err).__name__}: {err})") from None
        session.shown_events = max(0, len(session.events) - EVENTS_SHOWN)
        return session

    # ---- output -------------------------------------------------------------
    def say(self, text: str = "", **kwargs: Any) -> None:
        self.console.print(text, markup=False, **kwargs)

    def card_label(self, g: int, with_state: bool = True) -> str:
        card = self.cards[g]
        text = f"{card.number} {card.type.name}"
        if card.type.kind in ("unit", "support"):
            b = card.type.bullets
            text += f" [{b} bullet{'s' if b != 1 else ''}]"
            if with_state:
                text += " exhausted" if self.core.location(g)[1] else " fresh"
        return text

    def log(self, who: str, text: str) -> None:
        self.events.append({"who": who, "text": text})

    def flush_events(self) -> None:
        """Prints the events not yet printed."""
        for e in self.events[self.shown_events:]:
            self.say(f"  {e['text']}")
        self.shown_events = len(self.events)

    def render(self) -> None:
        """The whole table as the human sees it."""
        from rich import box
        from rich.table import Table

        core = self.core
        frags = core.fragments
        phase = core.phase
        if core.is_terminal():
            status = "game over"
        else:
            who = core.current_player()
            status = f"{phase}, " + ("you to decide" if who == self.human else
                                     f"{TITLES[who]} to decide")
        self.say()
        self.say(f"=== Turn {core.turn}/{self.config.turns} ({status}) "
                 f"- you play {TITLES[self.human]} ===")
        revealed = core.rockets_revealed
        self.say(f"Rocket cards revealed: {' '.join(map(str, revealed)) or 'none'}"
                 f"   Fragments in the pool: {frags['pool']}")
        polish, german = core.scores()
        self.say(f"Hands: Polish {core.hand_size(0)} (deck {core.deck_size(0)}), "
                 f"German {core.hand_size(1)} (deck {core.deck_size(1)})   "
                 f"Score: Polish {polish}, German {german}")
        table = Table(box=box.ASCII, show_lines=True, expand=True, padding=(0, 1))
        table.add_column("Zone", width=16, no_wrap=False)
        table.add_column("Polish cards", ratio=1)
        table.add_column("German cards", ratio=1)
        zones = (("base", "Rocket Base\n(German home)", f"{frags['base']} fragments"),
                 ("periphery", "Periphery", f"{frags['periphery']} fragments"),
                 ("forest", "Forest\n(Polish home)",
                  f"{frags['forest']} fragments"
                  + (f"\n+{frags['wildhorn']} on Wildhorn" if frags["wildhorn"] else "")
                  + (f"\n({frags['hidden']} hidden)" if frags["hidden"] else "")))
        for place, title, count in zones:
            cols = ["\n".join(self.card_label(g) for g in core.cards_at(place, side)) or "-"
                    for side in (0, 1)]
            table.add_row(f"{title}\n{count}", *cols)
        self.console.print(table)
        events_in_play = core.cards_at("event")
        if events_in_play:
            self.say("In play: " + ", ".join(self.card_label(g, False) for g in events_in_play))
        pend = core.pending
        if pend:
            self.say("Under way: " + self.pending_text(pend))
        hand = core.cards_at("hand", self.human)
        self.say(f"Your hand ({len(hand)}):")
        if hand:
            grid = Table.grid(padding=(0, 1), expand=True)
            grid.add_column(width=29, no_wrap=True)
            grid.add_column(ratio=1)
            for g in hand:
                card = self.cards[g]
                grid.add_row(f"  {card.number} {card.type.name}", card.type.text or card.type.kind)
            self.console.print(grid)
        recent = self.events[-EVENTS_SHOWN:]
        if recent:
            self.say("Recent events:")
            for e in recent:
                self.say(f"  {e['text']}")
        self.shown_events = len(self.events)

    def pending_text(self, pend: dict[str, Any]) -> str:
        names = self.config.card_name
        text = f"{TITLES[pend['actor']]} {pend['kind'].replace('_', ' ')}"
        if pend["card"] >= 0:
            text += f" by {names(pend['card'])}"
        if pend["target"] >= 0:
            text += f" against {names(pend['target'])}"
        if pend["defender"] >= 0 and pend["defender"] != pend["target"]:
            text += f", escorted by {names(pend['defender'])}"
        if pend["zone"]:
            text += f", to the {pend['zone']}"
        for k, d in enumerate(pend["dice"]):
            mod = pend["modifiers"][k]
            text += f", {'attack ' if k == 0 and len(pend['dice']) > 1 else ''}" \
                    f"{'defence ' if k == 1 else ''}die {d}" + (f"{mod:+d}" if mod else "")
        return text

    # ---- the game loop ------------------------------------------------------
    def play(self) -> int:
        self.say(f"Operation Wildhorn III: you play {TITLES[self.human]} against "
                 f"the bot ({self.bot_spec}), seed {self.seed}. Type 'help' for help.")
        try:
            while not self.core.is_terminal():
                if self.ask_all and self.single_step():
                    continue
                if self.core.is_chance():
                    self.chance_step()
                elif self.core.current_player() == self.human:
                    self.human_step()
                else:
                    self.bot_step()
        except _Quit:
            return 0
        except EndOfInput:
            self.say()
            self.say("Input ended: the game stops here"
                     + (f" (saved in {self.save_path})." if self.save_path else "."))
            return 0
        self.finish()
        return 0

    def chance_step(self) -> None:
        core = self.core
        actions, probs = zip(*core.chance_outcomes())
        action = self.rng.choices(actions, probs)[0]
        text = core.action_string(-1, action)
        phase = core.phase
        if phase == "draw":
            side = core.draw_info()["side"]
            if side == self.human:
                self.log("chance", f"You draw {text.removeprefix('draw ')}")
            else:
                self.log("chance", f"{TITLES[side]} draws a card")
        elif phase == "rocket":
            self.log("chance", f"Rocket card revealed: {text.removeprefix('rocket ')}")
        else:
            pend = core.pending
            about = ""
            if pend:
                about = f" ({TITLES[pend['actor']]} {pend['kind'].replace('_', ' ')}"
                if pend["card"] >= 0:
                    about += f" by {self.config.card_name(pend['card'])}"
                about += ")"
            self.log("chance", f"Die roll: {text.removeprefix('die ')}{about}")
        self.apply(action)

    def apply(self, action: int) -> None:
        """One step: ``apply_raw`` under --ask-all (the loop then handles the
        single-option nodes), else ``apply`` with the engine's automatic moves."""
        if self.ask_all:
            self.core.apply_raw(action)
        else:
            self.core.apply(action)

    def is_lone_decline(self) -> bool:
        """A reaction window of the human in which the only option is to decline."""
        core = self.core
        if core.is_chance() or core.current_player() != self.human \
                or core.phase not in WINDOW_PHASES:
            return False
        legal = core.legal_actions()
        return len(legal) == 1 and core.action_string(self.human, legal[0]) in DECLINE_TEXTS

    def single_step(self) -> bool:
        """Under --ask-all: applies a single-option node silently (True), unless it
        is a window where the human can only decline, which is asked (False)."""
        core = self.core
        if core.is_chance():
            outcomes = core.chance_outcomes()
            if len(outcomes) != 1:
                return False
            core.apply_raw(outcomes[0][0])
            return True
        legal = core.legal_actions()
        if len(legal) != 1 or self.is_lone_decline():
            return False
        core.apply_raw(legal[0])
        return True

    def bot_seed(self) -> int:
        """The bot's seed for its next decision: from the game seed and the
        length of the event log, so a saved game replays the same way."""
        return (self.seed * 1_000_003 + len(self.events) * 7919 + 17) & 0x7FFFFFFF

    def bot_step(self) -> None:
        core = self.core
        side = self.bot_side
        legal = core.legal_actions()
        value = None
        if len(legal) == 1:
            action = legal[0]
        else:
            bot = make_bot(self.bot_spec, side, self.bot_seed())
            self.flush_events()
            if self.out.isatty():
                with self.console.status("Bot is thinking..."):
                    result = bot.analyse(core)
            else:
                self.say("Bot is thinking...")
                result = bot.analyse(core)
            action = result["action"]
            value = result.get("value")
        text = f"{TITLES[side]} (bot): {core.action_string(side, action)}"
        if value is not None:
            text += f"  [bot rates its chance to win at {value[side]:.0%}]"
        self.log(SIDES[side], text)
        self.apply(action)
        self.flush_events()

    def ask(self, prompt: str) -> str:
        self.console.print(prompt, end="", markup=False)
        self.console.file.flush()
        line = self.inp.readline()
        if not line:
            raise EndOfInput
        if not self.out.isatty():
            self.say(line.rstrip("\n"))  # echo piped input so the transcript reads well
        return line.strip()

    def human_step(self) -> None:
        core = self.core
        if self.save_path:
            self.save(self.save_path)
        legal = core.legal_actions()
        texts = [core.action_string(self.human, a) for a in legal]
        confirm = len(legal) == 1 and self.is_lone_decline()  # only under --ask-all
        if confirm:  # the window, briefly: what is under way and the new events
            self.flush_events()
            self.say()
            self.say(f"--- Reaction window ({core.phase}), turn {core.turn}: "
                     f"you hold no legal reaction ---")
            if core.pending:
                self.say("Under way: " + self.pending_text(core.pending))
        else:
            self.render()
            self.say(f"Your decision ({core.phase}):")
        for i, t in enumerate(texts, 1):
            self.say(f"  {i:2d}. {t}")
        prompt = ("Press Enter or 1 to confirm, or a command (help): " if confirm
                  else f"Choose 1-{len(legal)} or a command (help): ")
        while True:
            line = self.ask(prompt)
            if not line:
                if confirm:
                    self.decide(legal[0], texts[0])
                    return
                continue
            word, _, rest = line.partition(" ")
            word = word.lower()
            if word in ("help", "?"):
                self.say(HELP)
            elif word == "hint" and not rest:
                if len(legal) == 1:
                    self.say(f"Hint: {texts[0]} (the only option here).")
                else:
                    self.hint()
            elif word == "undo" and not rest:
                if self.undo():
                    return
            elif word == "save":
                path = rest.strip() or self.save_path
                if not path:
                    self.say("save: give a file name (save FILE), or start with --save FILE.")
                    continue
                try:
                    self.save(path)
                    self.say(f"Saved to {path}.")
                except SerializationError as err:
                    self.say(f"save: {err}")
            elif word in ("quit", "exit") and not rest:
                if self.save_path:
                    self.save(self.save_path)
                    self.say(f"Game saved in {self.save_path}. Goodbye.")
                else:
                    self.say("Goodbye.")
                raise _Quit
            else:
                choice = self.match(line, texts)
                if choice is None:
                    continue
                self.decide(legal[choice], texts[choice])
                return

    def match(self, line: str, texts: list[str]) -> int | None:
        """Index of the action meant by ``line``, or None (with a message)."""
        if line.isdigit():
            n = int(line)
            if 1 <= n <= len(texts):
                return n - 1
            self.say(f"There is no action {n}: choose a number from 1 to {len(texts)}.")
            return None
        want = " ".join(line.lower().split())
        lowered = [" ".join(t.lower().split()) for t in texts]
        exact = [i for i, t in enumerate(lowered) if t == want]
        if len(exact) == 1:
            return exact[0]
        words = want.replace(":", " ").split()
        hits = [i for i, t in enumerate(lowered)
                if t.startswith(want) or want in t
                or all(w in t.replace(":", " ").split() or w in t for w in words)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            self.say(f"{line!r} is ambiguous: it matches "
                     + ", ".join(f"{i + 1}. {texts[i]}" for i in hits[:6])
                     + (" ..." if len(hits) > 6 else "") + ". Be more precise.")
        else:
            self.say(f"Unknown command or action {line!r}: type a number from 1 to "
                     f"{len(texts)}, part of an action's text, or 'help'.")
        return None

    def decide(self, action: int, text: str) -> None:
        self.undo_stack.append({"core": base64.b64encode(self.core.to_bytes()).decode("ascii"),
                                "rng": _rng_state(self.rng), "events": len(self.events)})
        self.log(SIDES[self.human], f"You ({TITLES[self.human]}): {text}")
        self.apply(action)
        self.flush_events()

    def undo(self) -> bool:
        if not self.undo_stack:
            self.say("Nothing to undo: you have made no decision yet.")
            return False
        snap = self.undo_stack.pop()
        self.core = Core.from_bytes(self.config, base64.b64decode(snap["core"]))
        _set_rng_state(self.rng, snap["rng"])
        del self.events[snap["events"]:]
        self.shown_events = len(self.events)
        self.say("Undone: back to your previous decision.")
        return True

    def hint(self) -> None:
        self.say(f"Thinking about your position ({HINT_ITERATIONS} iterations)...")
        a = advise(self.core, bot_spec="ismcts", iterations=HINT_ITERATIONS,
                   seed=self.seed + len(self.events))
        self.say(f"Hint: {a['recommended']}")
        for r in a["actions"][:5]:
            value = "" if r["value"] is None else f", value {r['value']:.2f}"
            self.say(f"  {r['action']}: played {r['frequency']:.0%}{value}")
        if a["value"]:
            self.say(f"Win probability: Polish {a['value']['polish']:.0%}, "
                     f"German {a['value']['german']:.0%}")

    def finish(self) -> None:
        if self.save_path:
            self.save(self.save_path)
        self.render()
        core = self.core
        polish, german = core.scores()
        winner = core.winner
        self.say()
        self.say(f"Game over. Winner: {TITLES[winner]} "
                 f"({'you win' if winner == self.human else 'the bot wins'}).")
        self.say(f"Fragments: Polish {polish} (Forest and Wildhorn), German {german} "
                 f"(Rocket Base); {core.fragments['periphery']} left in the Periphery.")
        mine = sum(1 for e in self.events if e["who"] == SIDES[self.human])
        theirs = sum(1 for e in self.events if e["who"] == SIDES[self.bot_side])
        self.say(f"Summary: {core.turn} turns; you took {mine} decisions, the bot "
                 f"{theirs}; rolls: {sum(1 for e in self.events if e['text'].startswith('Die roll'))}.")


class _Quit(EndOfInput):
    pass


def run(*, side: str = "polish", bot: str = DEFAULT_BOT, seed: int | None = None,
        save: str | None = None, load: str | None = None, ask_all: bool = False,
        variant: str = "full", inp: TextIO | None = None, out: TextIO | None = None) -> int:
    """The ``play`` command: returns the exit status."""
    if load:
        session = PlaySession.load(load, ask_all=ask_all, inp=inp, out=out)
        session.save_path = save or load
    else:
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 31)
        if side == "random":
            side = random.Random(seed ^ 0x5EED).choice(SIDES)
        session = PlaySession(game_params={"variant": variant}, human=SIDES.index(side),
                              bot_spec=bot, seed=seed, save_path=save, ask_all=ask_all,
                              inp=inp, out=out)
    try:
        return session.play()
    except _Quit:
        return 0
