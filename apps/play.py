"""Play a game against a bot in the terminal: ``wildhorn-solve play``.

The table is drawn with :mod:`rich` on a console at most 80 columns wide;
when stdout is not a terminal rich writes plain text (no colours, no
escape codes), so the game can be driven through a pipe.

Your decisions are a numbered list of the legal actions: type a number, or
(part of) an action's text ("search PL04" picks "PL04 Scouts: search").
Commands: ``help``, ``hint``, ``undo`` (it says what it took back),
``card PL07`` (a card's full text, on either screen), ``save [FILE]``,
``quit``.

The table is drawn from the record's position every time it is shown: a
unit whose movement waits on the Motorcycle window is drawn where it goes
(marked "moving"), as the log has told it (``narration.in_transit``), and
a reaction window shown under ``--ask-all`` draws the table too.

Reaction windows (escort, ambush, witnesses, nurses, motorcycle, modifiers):
the engine itself skips every window in which you hold nothing but
"decline" (rulings R29/R30), so you are asked exactly when you hold a legal
reaction.  With ``--ask-all`` the game is driven with ``Core.apply_raw``
(no automatic moves): a window where you can only decline or pass priority
is shown and you confirm it ("1" or Enter; the commands still work); every
other single-option node (forced pass, chance with one outcome, the bot's
forced moves, a single target) is applied silently, without drawing on the
random stream, so the game unfolds as it would without ``--ask-all``.

The event log comes from :mod:`apps.narration` (the narrator every
interface shares): each event with its outcome, told as the human player
may know it.  On a small terminal (fewer than 50 rows), or with
``--compact``, the screen fits 80x24: the table in three lines, the hand as
short labels, the last few events and the options in columns.

The game itself is an :class:`apps.record.GameRecord`, which the web table
views too: chance (draws, Rocket cards, dice) is sampled from
``random.Random(seed)``; the bot is the game's :class:`apps.gamebot.GameBot`,
built once with a seed derived from the game seed and kept for the whole
game; while the human decides it thinks on the human's time (``--no-ponder``
turns that off), and what it searched serves its next decision.  Only what the human
player may know is shown: the bot's hand and its draws stay hidden.  Save
files are the record's (``wildhorn-game/2``, see :mod:`apps.record` and
docs/play.md); saves of the first format load too.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import sys
import textwrap
import threading
from typing import Any, Iterator, TextIO

from apps.cardlist import describe_card
from apps.narration import Kind, condense, in_transit, option_notes, pending_text, undone_text
from apps.gamebot import HINT_ITERATIONS, GameBot, hint_search, hint_seed
from apps.record import DEFAULT_BOT, GameRecord, new_record, read_save
from bots.registry import available_cores
from bots.spec import BotSpec
from solver import CARDS_PER_SIDE, Core
from solver.errors import ParameterError, SerializationError
from solver.vocabulary import SIDE_TITLES
from solver.vocabulary import SIDES as VOCAB_SIDES

SIDES = VOCAB_SIDES
TITLES = SIDE_TITLES
EVENTS_SHOWN = 8
COMPACT_ROWS = 50   # a terminal with fewer rows gets the compact screen
SCREEN = (80, 24)   # what the compact screen fits
# the compact screen's names for the long ones of the default card set (others: cut)
SHORT_NAMES = {"Unseen and Silent": "Unseen&Silent", "SS Stormtroopers": "SS Troopers",
               "Operation Wildhorn III": "Wildhorn III", "Hidden Fragments": "Hidden Frags",
               "Motorized Column": "Motor Column"}

HELP = """\
Type the number of an action, or part of its text ("search PL04").
Commands:
  help         this text
  hint         ask the search what it would do here, with win probabilities
  undo         take back your last decision (and the bot's replies since)
  card PL07    the full text of a card (its number or part of its name)
  save [FILE]  save the game (default: the --save / --load file)
  quit         leave the game (saved first when a save file is set)
Reaction windows (escort, ambush, witnesses, nurses, motorcycle, modifiers)
only stop for you when you hold a legal reaction: the engine skips the others.
With --ask-all they also stop when you can only decline: Enter or 1 confirms.
The bot's hand and draws stay hidden; its rating of the game is shown
as a win probability after each of its moves (not in reaction windows,
where its deciding at all would tell what it holds).
The log tells each event with its outcome (dice, totals, the number needed).
On a terminal of fewer than 50 rows, or with --compact, the screen fits 80x24;
"(=PL05)" after an option: it stands for that identical card too (R27)."""


class EndOfInput(Exception):
    """The input ended (a pipe ran dry): the game stops cleanly."""


class PlaySession:
    """The terminal table: a view of one :class:`~apps.record.GameRecord`
    (the human reading ``inp``, the screen written to ``out``)."""

    def __init__(self, record: GameRecord, *, save_path: str | None = None,
                 compact: bool | None = None, resumed: bool = False,
                 inp: TextIO | None = None, out: TextIO | None = None, ponder: bool = True):
        self.record = record
        self.bot: GameBot | None = None  # the game's bot, built at its first decision, kept
        self.ponder = ponder             # the bot thinks on the human's time
        self.pondered: list[int] = []    # the iterations of each ponder
        self.save_path = save_path
        self.inp = inp or sys.stdin
        self.out = out or sys.stdout
        # a resumed game shows its last few events; a new one, all of them
        self.shown_events = max(0, len(record.events) - EVENTS_SHOWN) if resumed else 0
        self.cards = record.cards
        from rich.console import Console

        tty = self.out.isatty()
        width = 80
        rows = SCREEN[1]
        if tty:
            try:
                size = os.get_terminal_size(self.out.fileno())
            except OSError:
                size = shutil.get_terminal_size(SCREEN)
            width, rows = min(80, size.columns), size.lines
        # compact: asked for, or automatic on a small terminal (never for a pipe)
        self.compact = compact if compact is not None else (tty and rows < COMPACT_ROWS)
        self.rows = rows if tty else SCREEN[1]
        self.console = Console(file=self.out, width=width, force_terminal=tty,
                               no_color=not tty, highlight=False, emoji=False,
                               soft_wrap=False)

    # ---- the record, as the table reads it -------------------------------------
    @property
    def core(self) -> Core:
        return self.record.core

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.record.events

    @property
    def config(self) -> Any:
        return self.record.config

    @property
    def human(self) -> int:
        return self.record.human

    @property
    def bot_side(self) -> int:
        return self.record.bot_side

    @property
    def seed(self) -> int:
        return self.record.seed

    def save(self, path: str) -> None:
        """Writes the game to ``path`` atomically (a temporary file, then rename)."""
        self.record.save(path)

    # ---- output -------------------------------------------------------------
    def say(self, text: str = "", **kwargs: Any) -> None:
        self.console.print(text, markup=False, **kwargs)

    def cards_at(self, place: str, side: int) -> list[int]:
        """The cards the table draws at ``place`` for ``side``: the record's,
        with a unit under way to another zone drawn where it goes (the log
        has told the move; :func:`apps.narration.in_transit`)."""
        cards = list(self.core.cards_at(place, side))
        moving = in_transit(self.core)
        if moving is not None and moving[0] // CARDS_PER_SIDE == side:
            g, zone = moving
            if g in cards:
                cards.remove(g)
            if place == zone:
                cards.append(g)
        return cards

    def card_label(self, g: int, with_state: bool = True) -> str:
        card = self.cards[g]
        text = f"{card.number} {card.type.name}"
        if card.type.kind in ("unit", "support"):
            b = card.type.bullets
            text += f" [{b} bullet{'s' if b != 1 else ''}]"
            if with_state:
                text += " exhausted" if self.core.location(g)[1] else " fresh"
                moving = in_transit(self.core)
                if moving is not None and moving[0] == g:
                    text += ", moving"
        return text

    def event_lines(self, events: list[dict[str, Any]]) -> list[str]:
        """The texts of ``events``, a run of draws as one line."""
        return condense(events)

    def flush_events(self) -> None:
        """Prints the events not yet printed."""
        for line in self.event_lines(self.events[self.shown_events:]):
            self.say_event(line)
        self.shown_events = len(self.events)

    def say_event(self, line: str) -> None:
        for part in textwrap.wrap(line, 80, initial_indent="  ", subsequent_indent="    "):
            self.say(part)

    def recent_lines(self, count: int) -> list[str]:
        """The last ``count`` lines of the log (a run of draws is one line)."""
        lines = self.event_lines(self.events[-4 * count - 12:])
        return lines[-count:]

    def status(self) -> str:
        core = self.core
        if core.is_terminal():
            return "game over"
        who = core.current_player()
        return f"{core.phase}, " + ("you to decide" if who == self.human else
                                    f"{TITLES[who]} to decide")

    def render(self, options: list[str] | None = None, title: str | None = None) -> None:
        """The whole table as the human sees it (the compact one on a small
        terminal), drawn from the record's position; ``options`` are printed
        below it, numbered, under ``title`` (default "Your decision (step):")."""
        title = title or f"Your decision ({self.core.phase}):"
        if self.compact:
            self.render_compact(options or [], title)
            return
        self.render_full()
        if options:
            self.say(title)
            for i, t in enumerate(options, 1):
                self.say(f"  {i:2d}. {t}")

    def render_full(self) -> None:
        from rich import box
        from rich.table import Table

        core = self.core
        frags = core.fragments
        status = self.status()
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
            cols = ["\n".join(self.card_label(g) for g in self.cards_at(place, side)) or "-"
                    for side in (0, 1)]
            table.add_row(f"{title}\n{count}", *cols)
        self.console.print(table)
        events_in_play = core.cards_at("event")
        if events_in_play:
            self.say("In play: " + ", ".join(self.card_label(g, False) for g in events_in_play))
        if core.pending:
            self.say("Under way: " + pending_text(core, TITLES))
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
        recent = self.recent_lines(EVENTS_SHOWN)
        if recent:
            self.say("Recent events:")
            for line in recent:
                self.say_event(line)
        self.shown_events = len(self.events)

    # ---- the compact screen (80x24) -------------------------------------------
    def short_label(self, g: int) -> str:
        """'PL02 Partisans:2', with '*' when exhausted: the compact screen's card."""
        card = self.cards[g]
        name = SHORT_NAMES.get(card.type.name, card.type.name)
        if len(name) > 13:
            name = name[:12] + "."
        text = f"{card.number}\xa0{name}".replace(" ", "\xa0")  # wrapped as one word
        if card.type.kind == "unit":
            text += f":{card.type.bullets}"
        if card.type.kind in ("unit", "support") and self.core.location(g)[1]:
            text += "*"
        moving = in_transit(self.core)
        if moving is not None and moving[0] == g:
            text += ">"
        return text

    def compact_lines(self) -> list[str]:
        """The table in a few lines of at most 80 columns."""
        core = self.core
        frags = core.fragments
        polish, german = core.scores()
        lines = [f"Turn {core.turn}/{self.config.turns} ({self.status()}); you: "
                 f"{TITLES[self.human]}; score Polish {polish}, German {german}"]
        extra = [f"pool {frags['pool']}"]
        if frags["hidden"]:
            extra.append(f"{frags['hidden']} hidden")
        if frags["wildhorn"]:
            extra.append(f"{frags['wildhorn']} on Wildhorn")
        revealed = " ".join(map(str, core.rockets_revealed)) or "none"
        bot = self.bot_side
        lines.append(f"Fragments: {', '.join(extra)}; rockets {revealed}; {TITLES[bot]} hand "
                     f"{core.hand_size(bot)}, decks {core.deck_size(0)}/{core.deck_size(1)}")
        zones = (("base", "Base"), ("periphery", "Periphery"), ("forest", "Forest"))
        texts = [[" ".join(self.short_label(g) for g in self.cards_at(place, side)) or "-"
                  for side in (0, 1)] for place, _ in zones]

        def wrapped(width: int) -> list[list[list[str]]]:
            return [[textwrap.wrap(t, width - 1) or ["-"], textwrap.wrap(r, 65 - width) or ["-"]]
                    for t, r in texts]

        # the Polish column as wide as makes the fewest lines (nearest the middle on a tie)
        width = min(range(14, 53), key=lambda w: (sum(max(len(a), len(b))
                                                      for a, b in wrapped(w)), abs(w - 33)))
        marks = ":bullets *exhausted" + (" >moving" if in_transit(core) else "")
        legend = f"Polish ({marks})"
        lines.append(f"{'Zone  frags':14}{legend:{width}}German" if width > len(legend)
                     else f"{'Zone  frags':14}{'Polish':{width}}German ({marks})")
        for (place, title), cols in zip(zones, wrapped(width)):
            head = f"{title:10}{frags[place]:>2}  "
            for k in range(max(len(cols[0]), len(cols[1]))):
                left = cols[0][k] if k < len(cols[0]) else ""
                right = cols[1][k] if k < len(cols[1]) else ""
                lines.append(f"{head if k == 0 else '':14}{left:{width}}{right}".rstrip()
                             .replace("\xa0", " "))
        in_play = core.cards_at("event")
        hand = core.cards_at("hand", self.human)
        text = f"Hand ({len(hand)}): " + (self.compact_hand() or "-")
        if in_play:
            text += "; in play: " + ", ".join(self.short_label(g) for g in in_play)
        lines += [line.replace("\xa0", " ")
                  for line in textwrap.wrap(text, 80, subsequent_indent="  ")]
        if core.pending:
            lines += textwrap.wrap("Under way: " + pending_text(core, TITLES), 80,
                                   subsequent_indent="  ")
        return lines

    def option_lines(self, options: list[str], room: int) -> list[str]:
        """The numbered options in the fewest columns (up to 4) that keep
        them within ``room`` rows; cut to fit when even 4 columns do not."""
        cells = [f"{i:2d}. {t}" for i, t in enumerate(options, 1)]
        if not cells:
            return []
        longest = max(len(c) for c in cells)
        for cols in range(1, 5):
            width = 80 // cols
            rows = -(-len(cells) // cols)
            if longest < width and rows <= room:
                break
        else:
            cols = next((k for k in range(1, 5) if -(-len(cells) // k) <= room), 4)
            width = 80 // cols
            rows = -(-len(cells) // cols)
        out = []
        for r in range(rows):
            row = [cells[r + k * rows] for k in range(cols) if r + k * rows < len(cells)]
            out.append("".join((c if len(c) < width else c[:width - 2] + "~").ljust(width)
                               for c in row).rstrip())
        return out

    def short_text(self, text: str) -> str:
        """An action's text with the compact screen's card names."""
        for long, short in SHORT_NAMES.items():
            text = text.replace(long, short)
        return text

    def compact_hand(self) -> str:
        """The hand grouped by card type: "Scouts:1 PL01,04,05; Good Luck PL18"."""
        groups: dict[str, list[str]] = {}
        for g in self.core.cards_at("hand", self.human):
            label, number = self.short_label(g).split("\xa0", 1)[1], self.cards[g].number
            groups.setdefault(label, []).append(number)
        return "; ".join(f"{label} {numbers[0]}" + "".join(f",{n[2:]}" for n in numbers[1:])
                         for label, numbers in groups.items())

    def render_compact(self, options: list[str], title: str = "") -> None:
        """Table, hand, the last events and the options within 80x24: the
        events get the rows the rest leaves (the prompt keeps the last)."""
        top = self.compact_lines()
        # fixed rows: the blank line, "Events:", the options header and the prompt
        free = self.rows - len(top) - 4
        opts = self.option_lines(options, max(1, free - 1))
        room = max(1, free - len(opts))
        lines: list[str] = []
        for line in reversed(self.recent_lines(room)):
            part = textwrap.wrap(line, 80, initial_indent="  ", subsequent_indent="    ")
            if len(lines) + len(part) > room:
                if not lines:  # the last event alone is too long: its beginning
                    lines = [part[0][:76] + " ..."] if len(part) > 1 else part
                break
            lines = part + lines
        self.say()
        for line in top:
            self.say(line)
        self.say("Events:" if lines else "Events: none yet")
        for line in lines:
            self.say(line)
        if opts:
            self.say(title or f"Your decision ({self.core.phase}):")
            for line in opts:
                self.say(line)
        self.shown_events = len(self.events)

    # ---- the game loop ------------------------------------------------------
    def play(self) -> int:
        self.say(f"Operation Wildhorn III: you play {TITLES[self.human]} against "
                 f"the bot ({self.record.bot}), seed {self.seed}. Type 'help' for help.")
        try:
            return self._play()
        finally:
            if self.bot is not None:
                self.bot.close()

    def _play(self) -> int:
        try:
            while True:
                self.record.play_forced()
                status = self.record.status()
                if status == "over":
                    break
                if status == "human":
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

    def bot_step(self) -> None:
        record = self.record
        forced = record.bot_forced()
        if forced is not None:
            record.bot_act(forced, then_forced=False)
            self.flush_events()
            return
        silent = record.bot_is_silent()  # its deciding at all would tell what it holds (R29)
        self.flush_events()
        if self.bot is None:
            self.bot = GameBot.for_record(record)
        if self.out.isatty() and not silent:
            with self.console.status("Bot is thinking..."):
                result = self.bot.decide_record(record)
        else:
            if not silent:
                self.say("Bot is thinking...")
            result = self.bot.decide_record(record)
        record.bot_act(result["action"], result["value"], result["alternatives"],
                       then_forced=False)
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
        with self.pondering():
            self._human_step()

    @contextlib.contextmanager
    def pondering(self) -> Iterator[None]:
        """While the human decides, the bot thinks on the human's time
        (``GameBot.ponder``, on a thread of its own) until the decision is
        made, within its cap; a bot that does not ponder (no time budget,
        ``--no-ponder``) does nothing."""
        if not self.ponder:
            yield
            return
        if self.bot is None:
            self.bot = GameBot.for_record(self.record)
        if self.bot.ponder_cap() <= 0.0:
            yield
            return
        stop = threading.Event()
        core = self.record.core.copy()
        thread = threading.Thread(target=lambda: self.pondered.append(
            self.bot.ponder(core, stop.is_set)), name="ponder", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def _human_step(self) -> None:
        core = self.core
        if self.save_path:
            self.save(self.save_path)
        legal = core.legal_actions()
        texts = [core.action_string(self.human, a) for a in legal]
        notes = option_notes(core)
        if self.compact:  # short names, and "=" for the identical cards an option stands for
            shown = [self.short_text(t) + (f" (={','.join(notes[a])})" if a in notes else "")
                     for a, t in zip(legal, texts)]
        else:
            shown = [t + (f"  (stands for {', '.join(notes[a])} too: identical cards)"
                          if a in notes else "") for a, t in zip(legal, texts)]
        confirm = len(legal) == 1 and self.record.is_lone_decline()  # only under --ask-all
        # a window where you can only decline (--ask-all) shows the table as well
        self.render(shown, f"Reaction window ({core.phase}): you hold no legal reaction"
                    if confirm else None)
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
            elif word == "card":
                self.show_card(rest)
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
        self.record.human_act(action, then_forced=False)
        self.flush_events()

    def undo(self) -> bool:
        """Takes back the human's last decision and says what it took back:
        that decision as the log told it, and the bot's decisions since."""
        preview = self.record.undo_preview()
        if preview is None or not self.record.undo():
            self.say("Nothing to undo: you have made no decision yet.")
            return False
        entries, bot = preview
        self.shown_events = len(self.events)
        self.say(f"{undone_text(entries, bot, SIDES[self.human])} Back to that decision.")
        return True

    def show_card(self, query: str) -> None:
        """``card PL07``: a card's full text (any card of the set: their texts
        are public), wrapped to the screen."""
        if not query.strip():
            self.say("card: give a card's number or part of its name, e.g. card PL07.")
            return
        try:
            text = describe_card(self.config.card_set, query)
        except ValueError as err:
            self.say(f"card: {err}")
            return
        for line in textwrap.wrap(text, 80, subsequent_indent="  "):
            self.say(line)

    def hint(self) -> None:
        self.say(f"Thinking about your position ({HINT_ITERATIONS} iterations)...")
        a = hint_search(self.record.setup.params, self.core.to_bytes(), self.human,
                        hint_seed(self.record), HINT_ITERATIONS, available_cores())
        self.say(f"Hint: {a['recommended']}")
        for r in a["actions"][:5]:
            # value: the win chance of the side to move after it; frequency: how often
            # the search chose it (not a chance to win)
            value = "" if r["value"] is None else f"your win chance {r['value']:.0%}, "
            self.say(f"  {r['action']}: {value}searched {r['frequency']:.0%} of the time")
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
        # your decisions are those you can undo; the bot's, those you saw (R29)
        mine = len(self.record.human_steps())
        theirs = sum(1 for e in self.events if e["who"] == SIDES[self.bot_side]
                     and e.get("kind") == Kind.DECISION.value)
        rolls = sum(1 for e in self.events if e.get("kind") == Kind.ROLL.value)
        self.say(f"Summary: {core.turn} turns; you took {mine} decisions, the bot "
                 f"{theirs} that you saw; dice rolled: {rolls}.")


class _Quit(EndOfInput):
    pass


def run(*, side: str = "polish", bot: BotSpec | str = DEFAULT_BOT, seed: int | None = None,
        save: str | None = None, load: str | None = None, ask_all: bool = False,
        variant: str = "full", compact: bool | None = None,
        inp: TextIO | None = None, out: TextIO | None = None, ponder: bool = True) -> int:
    """The ``play`` command: returns the exit status.  ``compact``: the 80x24
    screen (None: automatic, on a terminal of fewer than COMPACT_ROWS rows)."""
    if load:
        record = read_save(load)
        if ask_all and not record.setup.ask_all:
            raise ParameterError(f"--ask-all: {load} is a game played without it (each game "
                                 f"keeps the way it began); start a new game with --ask-all")
        session = PlaySession(record, save_path=save or load, compact=compact, inp=inp,
                              out=out, resumed=True, ponder=ponder)
    else:
        spec = bot if isinstance(bot, BotSpec) else BotSpec.parse(bot)
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 31)
        if side == "random":
            side = random.Random(seed ^ 0x5EED).choice(SIDES)
        record = new_record(variant=variant, human=SIDES.index(side), bot=spec, seed=seed,
                            ask_all=ask_all)
        session = PlaySession(record, save_path=save, compact=compact, inp=inp, out=out,
                              ponder=ponder)
    try:
        return session.play()
    except _Quit:
        return 0
