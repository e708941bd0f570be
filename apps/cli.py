"""The ``wildhorn-solve`` command.

Subcommands: ``demo`` (plays and narrates a seeded game), ``advise``
(what to do in a state.json position or a saved game), ``export`` (the
state.json of one side's view of a saved game), ``cards`` (the cards of a
card set), ``schema`` (the state.json JSON Schema), ``random-states`` (state.json files from seeded random games),
``play`` (a game against the bot in the terminal),
``bench core`` (speed against OpenSpiel references, results/bench-core.json),
``bench search`` (ISMCTS speed, results/bench-search.json), ``bench endgame``
(the exact last-turn solver, results/bench-endgame.json), ``bench advise``
(the advice's targets, results/bench-advise.json), ``bench
variants`` (size of the small presets, results/variant-sizes.json),
``tournament`` (bot-vs-bot games with ratings, apps.tournament),
``serve`` (the table in a web browser, apps.server), ``train`` (self-play
training of the value network, apps.train).
Bad input ends with a one-line message on stderr and exit status 2.
A closed standard output (``wildhorn-solve advise s.json | head -1``) ends
the command quietly with exit status 141 (128 + SIGPIPE, what a shell
reports for a Unix tool stopped by a closed pipe), without a message.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import textwrap
from pathlib import Path
from typing import NoReturn

from importlib import resources

import pyspiel

import solver  # noqa: F401  (registers the game)
from apps import bench, bench_cfr, engine
from apps import play as play_app
from apps import tournament
from apps.tournament import BACKENDS as BACKEND_CHOICES
from apps import bench_advise
from apps import bench_endgame
from apps import bench_players
from apps.gamebot import PONDER_CAP, PONDER_MOVES
from apps import train as train_app
from apps.advise import DEFAULT_TIME, advise, format_advice
from apps.cardlist import card_rows, format_cards
from apps.narration import Narrator, condense
from apps.saved import export_view, position_to_advise
from apps.server import app as server_app
from apps.record import DEFAULT_BOT
from bots import BotSpecError, parse_spec, spec_help
from bots.registry import ITERATION_LIMIT, TIME_LIMIT
from bots.spec import BotSpec
from solver import __version__
from solver.jsonio import write_atomic
from solver.cards import load_card_set
from solver.errors import ParameterError, WildhornError, one_line, with_rulings_pointer
from solver.state_io import write_random_states
from solver.vocabulary import SIDE_TITLES, SIDES


def _cmd_demo(args: argparse.Namespace) -> int:
    game = pyspiel.load_game("wildhorn", {"variant": args.variant})
    rng = random.Random(args.seed)
    state = game.new_initial_state()
    narrator = Narrator(game.core_config, viewer=-1)  # a spectator: the hands stay hidden
    print(textwrap.fill(f"A game of Operation Wildhorn III ({args.variant}), uniformly "
                        f"random play, seed {args.seed}, told as a spectator sees it", 80))
    print()
    entries = narrator.start(state.core)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            action = rng.choices(actions, probs)[0]
        else:
            action = rng.choice(state.legal_actions())
        before = state.core.copy()
        state.apply_action(action)
        entries += narrator.step(before, action, state.core)
        if not state.is_chance_node() or state.is_terminal():
            _print_entries(entries)
            entries = []
    _print_entries(entries)
    print()
    print("The final position:")
    for line in str(state).splitlines():
        print(textwrap.fill(line, 80, initial_indent="  ", subsequent_indent="    "))
    return 0


def _print_entries(entries: list) -> None:
    """Narrated entries as lines of at most 80 columns (a run of draws as one)."""
    for line in condense(entries):
        print(textwrap.fill(line, 80, initial_indent="  ", subsequent_indent="    "))


def _cmd_advise(args: argparse.Namespace) -> int:
    # the ranges of the bot specs' own time= and iterations= (bots.registry)
    if args.time is not None and not 0 < args.time <= TIME_LIMIT:
        raise ParameterError(f"--time: expected a positive number of seconds, at most "
                             f"{TIME_LIMIT:g}, got {args.time}")
    if args.iterations is not None and not 0 < args.iterations <= ITERATION_LIMIT:
        raise ParameterError(f"--iterations: expected a positive count, at most "
                             f"{ITERATION_LIMIT:g}, got {args.iterations}")
    position = position_to_advise(args.state, seed=args.seed, side=args.side)  # read once
    result = advise(position.state, bot_spec=args.bot, time=args.time, iterations=args.iterations,
                    seed=args.seed, responses=not args.no_responses, opponent=args.opponent,
                    opponent_plays=list(position.opponent_plays))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(format_advice(result))
    return 0


def _cmd_bots(args: argparse.Namespace) -> int:
    print(spec_help())
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    text, side = export_view(args.save, side=args.side)
    if args.out:
        write_atomic(args.out, text)  # a full disk leaves no partial file
        print(f"wrote the {side} view to {args.out}")
    else:
        print(text, end="")
    return 0


def _cmd_cards(args: argparse.Namespace) -> int:
    cards = load_card_set(args.card_set or "default")
    if args.json:
        print(json.dumps({"name": cards.name, "fragments": cards.fragments,
                          "rockets": list(cards.rockets), "cards": card_rows(cards)}, indent=2))
    else:
        print(format_cards(cards))
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    name = "advice.schema.json" if args.advice else "state.schema.json"
    print(resources.files("solver").joinpath(f"data/{name}").read_text(), end="")
    return 0


def _cmd_random_states(args: argparse.Namespace) -> int:
    if args.count <= 0:
        raise ParameterError(f"--count: expected a positive number, got {args.count}")
    paths = write_random_states(args.count, args.seed, args.out)
    print(f"wrote {len(paths)} state files to {args.out}")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    return play_app.run(side=args.side, bot=BotSpec.parse(args.bot), seed=args.seed,
                        save=args.save,
                        load=args.load, ask_all=args.ask_all,
                        compact=True if args.compact else None, ponder=not args.no_ponder)


def _cmd_serve(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise ParameterError(f"--port: expected a port number 0-65535, got {args.port}")
    if args.new_token and args.no_token:
        raise ParameterError("--new-token and --no-token: give one of them")
    return server_app.run(host=args.host, port=args.port, open_browser=args.open, data=args.data,
                          token=not args.no_token, new_token=args.new_token,
                          ponder=not args.no_ponder)


def _choices(flag: str, text: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """``--flag a,b`` -> ("a", "b"), each one of ``allowed``; ParameterError
    naming the flag if one is not, or none is given."""
    items = tuple(x.strip() for x in text.split(",") if x.strip())
    if not items or any(x not in allowed for x in items):
        raise ParameterError(f"{flag}: expected some of {','.join(allowed)} separated by "
                             f"commas, got {text!r}")
    return items


def _bot_specs(text: str) -> tuple[str, ...]:
    """``--bots "A;B"`` -> ("A", "B"), each a valid bot spec; ParameterError
    naming the first wrong one."""
    specs = tuple(b.strip() for b in text.split(";") if b.strip())
    if not specs:
        raise ParameterError("--bots: expected bot specs separated by ';'")
    for spec in specs:
        try:
            parse_spec(spec)
        except BotSpecError as err:
            raise ParameterError(f"--bots: {err}") from None
    return specs


def _budgets(text: str) -> tuple[int, ...]:
    """``--budgets 30,100,300`` -> (30, 100, 300); ParameterError if not positive counts."""
    try:
        budgets = tuple(int(b) for b in text.split(","))
    except ValueError:
        budgets = ()
    if not budgets or min(budgets) <= 0:
        raise ParameterError(f"--budgets: expected positive iteration counts separated by "
                             f"commas, e.g. 30,100,300; got {text!r}")
    return budgets


def _earlier_bench(out: str, suite: str, parts: tuple[str, ...]) -> dict:
    """The earlier ``bench endgame`` result in ``out`` whose parts other
    than ``parts`` a partial run keeps; ParameterError if there is none or
    it was measured on another suite or lacks a part."""
    try:
        before = json.loads(Path(out).read_text())
    except (OSError, ValueError) as err:
        raise ParameterError(f"--parts: {out} must hold an earlier full bench endgame "
                             f"result to keep the other parts ({err.__class__.__name__})") from None
    if not isinstance(before, dict) or before.get("suite") != str(Path(suite)):
        raise ParameterError(f"--parts: {out} was not measured on the suite {suite}")
    missing = [p for p in bench_endgame.PARTS if p not in parts and p not in before]
    if missing:
        raise ParameterError(f"--parts: {out} lacks {', '.join(missing)}; run without --parts")
    return before


def _cmd_bench(args: argparse.Namespace) -> int:
    if args.what == "advise":
        log = (lambda msg: print(msg, file=sys.stderr)) if args.json else print
        data = bench_advise.bench_advise(log=log)
        out = args.out or "results/bench-advise.json"
    elif args.what == "endgame":
        log = (lambda msg: print(msg, file=sys.stderr)) if args.json else print
        specs = bench_endgame.DEFAULT_BOTS
        if args.bots is not None:
            specs = _bot_specs(args.bots)
        if not Path(args.suite).is_file():
            raise ParameterError(f"--suite: no such file: {args.suite} (make it with "
                                 f"python scripts/make_endgame_suite.py)")
        if args.positions < 0:
            raise ParameterError(f"--positions: expected at least 0, got {args.positions}")
        out = args.out or "results/bench-endgame.json"
        parts, before = bench_endgame.PARTS, None
        if args.parts is not None:
            parts = _choices("--parts", args.parts, bench_endgame.PARTS)
            before = _earlier_bench(out, args.suite, parts)
        data = bench_endgame.bench_endgame(Path(args.suite), specs, args.positions, log=log,
                                           parts=parts, before=before)
    elif args.what == "players":
        log = (lambda msg: print(msg, file=sys.stderr)) if args.json else print
        specs = _bot_specs(args.bots) if args.bots is not None else [bench_players.DEFAULT_SPEC]
        if len(specs) != 1:
            raise ParameterError(f"--bots: bench players times one bot, got {len(specs)}")
        if args.decisions < 1:
            raise ParameterError(f"--decisions: expected at least 1, got {args.decisions}")
        if not 0.0 <= args.ponder <= 600.0:
            raise ParameterError(f"--ponder: expected seconds in [0, 600], got {args.ponder:g}")
        data = bench_players.bench_players(specs[0], args.decisions, args.seed, log=log,
                                           ponder=args.ponder)
        out = args.out or "results/bench-players.json"
    elif args.what == "core":
        data = bench.bench_core(repeats=args.repeats)
        out = args.out or "results/bench-core.json"
    elif args.what == "search":
        data = bench.bench_search(repeats=args.repeats)
        out = args.out or "results/bench-search.json"
    elif args.what == "cfr":
        budgets = _budgets(args.budgets) if args.budgets else bench_cfr.DEFAULT_BUDGETS
        seeds = bench_cfr.DEFAULT_SEEDS if args.seeds is None else args.seeds
        if seeds < 1:
            raise ParameterError(f"--seeds: expected a positive number of seed pairs, got {seeds}")
        if args.jobs < 1:
            raise ParameterError(f"--jobs: expected a positive number of processes, got {args.jobs}")
        bots = bench_cfr.BOTS
        if args.bots is not None:
            bots = _bot_specs(args.bots)
            for spec in bots:
                if not bench_cfr.is_search_bot(spec):
                    raise ParameterError(f"--bots: {spec!r} is not a search bot with an "
                                         f"iteration budget (ismcts or oos, with options)")
        log = (lambda msg: print(msg, file=sys.stderr)) if args.json else print
        if args.variants is not None:
            variants = _choices("--variants", args.variants, bench_cfr.VARIANTS)
            if args.out is None:
                raise ParameterError("--variants: give --out (the exploitability table alone "
                                     "does not replace results/cfr-tiny.json)")
            bench_cfr.check_networks(bots, variants)
            out = args.out
            data = bench_cfr.bench_exploitability(variants, bots, budgets, seeds=seeds,
                                                  jobs=args.jobs, log=log)
        else:
            out = args.out or "results/cfr-tiny.json"
            data = bench_cfr.bench_cfr(repeats=args.repeats, budgets=budgets, seeds=seeds,
                                       bots=bots, jobs=args.jobs,
                                       plot=str(Path(out).with_suffix(".png")), log=log)
    else:
        data = bench.bench_variants()
        out = args.out or "results/variant-sizes.json"
    bench.write_json(data, out)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        for key, value in data.items():
            print(f"{key}: {value}")
        print(f"(written to {out})")
    return 0


def _cmd_engine(args: argparse.Namespace) -> int:
    return engine.serve(args.bot, sys.stdin, sys.stdout)


def _cmd_tournament(args: argparse.Namespace) -> int:
    specs = [s.strip() for s in (args.bots or "").split(";") if s.strip()]
    specs += [s.strip() for s in args.bot or [] if s.strip()]
    try:
        summary = tournament.run(specs, fmt=args.format, games=args.games, jobs=args.jobs,
                                 seed=args.seed, out=args.out, sprt_text=args.sprt,
                                 progress=tournament.progress_for(sys.stdout),
                                 backend=args.backend, address=args.address,
                                 chance=args.chance, luck=args.luck)
    except tournament.TournamentInterrupted as stop:
        s = stop.summary
        print(f"interrupted after {s['games']} of {s['scheduled_games']} games; standings of "
              f"the finished games in {args.out}/standings.md; the same command continues",
              flush=True)
        return 130
    print(f"{summary['games']} games; standings in {args.out}/standings.md")
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    data = train_app.DataParams(
        bot=args.bot, seed=args.seed, positions=args.positions, playouts=args.playouts,
        exact_nodes=args.exact_nodes, chunk_games=args.chunk_games, holdout=args.holdout,
        variant=args.variant)
    fit = train_app.FitParams(target=args.target, hidden=train_app.parse_hidden(args.hidden),
                              l2=args.l2, epochs=args.epochs, seed=args.seed,
                              drop=train_app.parse_drop(args.drop_features))
    summary = train_app.train(args.out, args.games, data, fit, jobs=args.jobs,
                              backend=args.backend, address=args.address, install=args.install,
                              progress=train_app.Progress(sys.stdout), add_data=args.add_data)
    for line in train_app.report_lines(args.out, summary):
        print(line)
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose error line echoes no value whole: a quoted
    value longer than 40 characters (an invalid choice, a bad number) is cut
    there, so a 100 KB argument gives a short line."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        def cut(m: re.Match) -> str:
            text = m.group(0)
            return text if len(text) <= 42 else text[:41] + "'..."
        super().error(one_line(re.sub(r"'[^']*'", cut, message)))


PONDER_HELP = (f"the bot does not think on your time (by default it searches while you "
               f"decide, up to {PONDER_MOVES:g} of its moves' time or {PONDER_CAP:g} s, and "
               f"what it found serves its next move)")


def build_parser() -> argparse.ArgumentParser:

    parser = _Parser(
        prog="wildhorn-solve",
        description="Solver and AI opponent for Days of Honor: Operation Wildhorn III.")
    parser.add_argument("--version", action="version", version=f"wildhorn-solve {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    demo = sub.add_parser(
        "demo", help="play and narrate one seeded game with random play",
        description="Play one game with uniformly random decisions on both sides and tell it "
                    "as a spectator sees it (the narration of play and serve, apps.narration: "
                    "every move, die, total and outcome; the hands stay hidden), then print "
                    "the final position. The same seed gives the same game; the seed "
                    "defaults to 1.")
    demo.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    demo.add_argument("--variant", default="full", choices=("full", "small", "tiny"),
                      help="game preset (default full)")
    demo.set_defaults(func=_cmd_demo)

    adv = sub.add_parser(
        "advise", help="what to do now in a state.json position or a saved game",
        description="Advice for the side to move: every action with its win probability and "
                    "what it costs, and the responses (the opponent's replies before your "
                    "next decision, how likely each is, and your answer). Budget: --time or "
                    "--iterations win over the bot spec's own time=/iterations=; with none "
                    f"the main search runs {DEFAULT_TIME} s. The responses then search about "
                    "as many iterations again as the main search ran (each of their "
                    "searches at least 100). The searches are seeded: --seed, default 0 "
                    "(the same seed and --iterations give the same advice). docs/advice.md "
                    "explains the answer.")
    adv.add_argument("state", help="a state.json file (see `wildhorn-solve schema`) or a game "
                                   "saved by `wildhorn-solve play --save`")
    adv.add_argument("--bot", default="ismcts",
                     help="bot spec (default ismcts), see `wildhorn-solve bots`")
    budget = adv.add_mutually_exclusive_group()
    budget.add_argument("--time", type=float,
                        help=f"seconds of the main search (default {DEFAULT_TIME}, or the spec's "
                             "own time=/iterations=)")
    budget.add_argument("--iterations", type=int,
                        help="iterations of the main search (reproducible for a seed)")
    adv.add_argument("--side", choices=SIDES,
                     help="with a saved game: the side to advise (default the side to move; "
                          "it must be to move)")
    adv.add_argument("--opponent", choices=("search", "heuristic"), default="search",
                     help="model of the opponent's replies: its own search in sampled worlds "
                          "(default) or the heuristic bot (cheaper)")
    adv.add_argument("--no-responses", action="store_true",
                     help="only the actions and their values (no responses)")
    adv.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    adv.add_argument("--json", action="store_true", help="print one JSON object")
    adv.set_defaults(func=_cmd_advise)

    bots_cmd = sub.add_parser(
        "bots", help="list the bots and the options of their spec strings",
        description="Print every bot and every option of its spec string (name:key=value,...), "
                    "with the allowed values and the defaults, from the bot registry "
                    "(bots/registry.py); docs/bots.md holds a copy. A bot's seed is not part "
                    "of its spec: each command that runs bots takes --seed (play: a random "
                    "one by default; advise, tournament: 0).")
    bots_cmd.set_defaults(func=_cmd_bots)

    exp = sub.add_parser(
        "export", help="write the state.json of one side's view of a saved game",
        description="Write the state.json of a saved game (wildhorn-game/1 or /2, from play "
                    "--save or serve) as one side sees it: its own hand, the table, what it "
                    "saw of the opponent's plays; the opponent's hand and the decks are left "
                    "out. advise reads the file. No randomness: no seed.")
    exp.add_argument("save", help="a game saved by `wildhorn-solve play --save`")
    exp.add_argument("--side", choices=SIDES,
                     help="whose view (default the side to move)")
    exp.add_argument("--out", help="write to this file (default: print it)")
    exp.set_defaults(func=_cmd_export)

    cards = sub.add_parser(
        "cards", help="list every card of a card set",
        description="List every card of the built-in card set (or of --card-set FILE): "
                    "number, name, side, type, bullets, abilities or effect, whether it "
                    "starts in hand, copies, then each card type's text. No randomness: no "
                    "seed.")
    cards.add_argument("--card-set", metavar="FILE",
                       help="a card-set file (default: the built-in set)")
    cards.add_argument("--json", action="store_true", help="print one JSON object")
    cards.set_defaults(func=_cmd_cards)

    schema = sub.add_parser(
        "schema", help="print the JSON Schema of state.json",
        description="Print the JSON Schema of the state.json format (a position as one side "
                    "knows it, which advise reads), or with --advice that of advise --json's "
                    "answer. No randomness: no seed.")
    schema.add_argument("--advice", action="store_true",
                        help="print the JSON Schema of the answer of advise --json instead")
    schema.set_defaults(func=_cmd_schema)

    rs = sub.add_parser(
        "random-states", help="write state.json files from seeded random games",
        description="Play seeded games with random decisions and write state.json files of "
                    "positions met on the way (one side's view each), for advise and for "
                    "tests. The seed defaults to 0: the same seed and --count give the same "
                    "files.")
    rs.add_argument("--count", type=int, default=10, help="how many files (default 10)")
    rs.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    rs.add_argument("--out", default="states", help="output folder (default ./states)")
    rs.set_defaults(func=_cmd_random_states)

    play = sub.add_parser(
        "play", help="play a game against the bot in the terminal",
        description="Play Operation Wildhorn III against a bot. Type a number or part of an "
                    "action's text; commands: help, hint, undo, save [FILE], quit. Reaction "
                    "windows stop for you only when you hold a legal reaction (the engine "
                    "skips the others, rulings R29/R30). The game's seed (the draws, the dice "
                    "and the bot's searches) defaults to a random one, printed at the start "
                    "and kept in the save; --seed N replays a game.")
    play.add_argument("--side", choices=(*SIDES, "random"), default=SIDES[0],
                      help="your side (default polish)")
    play.add_argument("--bot", default=DEFAULT_BOT,
                      help=f"bot spec (default {DEFAULT_BOT}), see `wildhorn-solve bots`")
    play.add_argument("--seed", type=int, help="random seed of the game (default: a random one)")
    files = play.add_mutually_exclusive_group()
    files.add_argument("--save", metavar="FILE",
                       help="save the game to FILE at every one of your decisions")
    files.add_argument("--load", metavar="FILE",
                       help="continue a saved game (and keep saving to FILE)")
    play.add_argument("--ask-all", action="store_true",
                      help="also stop at reaction windows where you can only decline "
                           "(Enter or 1 confirms); normally they pass for you")
    play.add_argument("--no-ponder", action="store_true", help=PONDER_HELP)
    play.add_argument("--compact", action="store_true",
                      help="the screen that fits 80x24 (automatic on a terminal of fewer "
                           "than 50 rows)")
    play.set_defaults(func=_cmd_play)

    serve = sub.add_parser(
        "serve", help="play against the bot in a web browser",
        description="A local web server with the game table: open the address it prints, "
                    "which holds the server's token (http://127.0.0.1:8000/?token=...); "
                    "scripts send it as 'Authorization: Bearer TOKEN'. The token is kept in "
                    "the data folder (the file 'token', mode 0600), so a restart keeps an "
                    "open page working; --new-token makes a new one. One server per data "
                    "folder: a second is refused with the first's pid and address; a port in "
                    "use is refused before anything is made. Every move is saved "
                    "in the data folder before the server answers it: games survive a "
                    "restart. A new game's seed (draws, dice, the bot's searches) is a random "
                    "one unless the request gives one (POST /api/games {\"seed\": N}); it is "
                    "kept in the game's save. --open opens the table in the default browser "
                    "and says so when none can be opened.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--open", action="store_true", help="open the table in the default browser")
    serve.add_argument("--data", metavar="DIR",
                       help="folder of the autosaved games (default "
                            "~/.local/share/wildhorn-solve/games)")
    serve.add_argument("--no-ponder", action="store_true", help=PONDER_HELP)
    serve.add_argument("--new-token", action="store_true",
                       help="make a new token instead of the one kept in the data folder "
                            "(pages opened with the old one must be opened again)")
    serve.add_argument("--no-token", action="store_true",
                       help="serve without a token (for scripts on a machine you trust: any "
                            "program here, and any web page that reaches the port, can then "
                            "drive the server)")
    serve.set_defaults(func=_cmd_serve)

    bench = sub.add_parser(
        "bench", help="measure speed or size; writes results/*.json",
        description="Measure the engine and the bots and write the figures to a results "
                    "file (default results/<what>.json, or --out): core, search, variants, "
                    "cfr, advise, endgame or players. Timings are medians of --repeats runs. The "
                    "positions and searches are seeded with fixed seeds, so the figures "
                    "other than times are the same on every run; bench cfr takes --seeds N "
                    "seeded searcher pairs per figure (default 3).")
    bench.add_argument("what", choices=("core", "search", "variants", "cfr", "advise",
                                        "endgame", "players"),
                       help="core: speed vs OpenSpiel references; search: ISMCTS speed; "
                            "advise: the advice's targets (results/bench-advise.json); "
                            "variants: tree sizes; cfr: exact solving and exploitability "
                            "(results/cfr-tiny.json and .png); endgame: the exact last-turn "
                            "solver and the bots' choices on the frozen suite "
                            "(results/bench-endgame.json, docs/endgame.md); players: the "
                            "players' bot on the players' path, each move's wall time "
                            "against its budget (results/bench-players.json)")
    bench.add_argument("--budgets", metavar="N,N,...",
                       help="bench cfr: search iterations at which the online bots' "
                            "exploitability is measured (default 30,100,...,30000)")
    bench.add_argument("--bots", metavar="SPEC;SPEC...",
                       help="bench cfr: the search bots whose exploitability is measured "
                            "(default \"ismcts;oos;ismcts:prior=0;oos:prior=0\"); bench "
                            "endgame: the bots graded on the suite; bench players: the one "
                            "bot timed (default \"default\", 1 s a move)")
    bench.add_argument("--decisions", type=int, default=bench_players.DEFAULT_DECISIONS,
                       metavar="N",
                       help="bench players: the bot's searched decisions timed, at the least "
                            f"(default {bench_players.DEFAULT_DECISIONS})")
    bench.add_argument("--seed", type=int, default=1, metavar="N",
                       help="bench players: the first game's seed (default 1)")
    bench.add_argument("--ponder", type=float, default=0.0, metavar="S",
                       help="bench players: the human's seconds a decision, the bot thinking "
                            "on them (default 0: no pondering); the figures say what it gave")
    bench.add_argument("--suite", default=str(bench_endgame.SUITE), metavar="FILE",
                       help="bench endgame: the frozen suite of last-turn positions "
                            "(default results/endgame-suite.json)")
    bench.add_argument("--parts", default=None, metavar="PART,PART...",
                       help="bench endgame: measure only these parts (of "
                            + ",".join(bench_endgame.PARTS) + ") and keep the others "
                            "from the earlier result in --out (default: all)")
    bench.add_argument("--positions", type=int, default=60, metavar="N",
                       help="bench endgame: suite positions timed (evenly spaced; 0: all; "
                            "default 60)")
    bench.add_argument("--jobs", type=int, default=1, metavar="N",
                       help="bench cfr: processes for the exploitability searches "
                            "(default 1; the figures do not depend on it)")
    bench.add_argument("--seeds", type=int, metavar="N",
                       help="bench cfr: seeded searcher pairs per exploitability figure, "
                            "whose median is reported (default 3)")
    bench.add_argument("--variants", metavar="V,V",
                       help="bench cfr: only the online bots' exploitability, on these "
                            "variants (tiny, small), each bot with a value network beside the "
                            "same bot with playouts; needs --out (e.g. "
                            "results/cfr-small-net.json)")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--out", help="output file (default results/bench-core.json, "
                                     "results/bench-search.json, results/bench-endgame.json, "
                                     "results/bench-players.json, "
                                     "results/variant-sizes.json or "
                                     "results/cfr-tiny.json)")
    bench.add_argument("--repeats", type=int, default=5, help="repeats per figure (median)")
    bench.set_defaults(func=_cmd_bench)

    eng = sub.add_parser(
        "engine", help="play one bot through the engine protocol on stdin/stdout",
        description="Speak the engine protocol (JSON lines, docs/engine-protocol.md) on "
                    "standard input and output, playing the bot SPEC: a tournament plays it "
                    "as --bot \"cmd:wildhorn-solve engine --bot SPEC\" (from any install). "
                    "The seed of each game's bot comes from the protocol's new-game message "
                    "(default 0).")
    eng.add_argument("--bot", required=True, help="bot spec, see `wildhorn-solve bots`")
    eng.set_defaults(func=_cmd_engine)

    tour = sub.add_parser(
        "tournament", help="bot-vs-bot games with Elo ratings, SPRT and resume",
        description="Play paired games between bots (each deal twice, sides swapped, same "
                    "chance seed) and rate them. Bot specs contain commas, so separate them "
                    "with ';' in --bots or repeat --bot. Repeating the command with the same "
                    "--out continues an interrupted tournament; Ctrl-C writes the standings of the "
                    "finished games first. The folder gets games.csv, values.csv, "
                    "summary.json, standings.md, ratings.png and calibration.png. The "
                    "tournament seed (--seed, default 0) gives every deal and every bot's "
                    "seed: the same command plays the same games.")
    tour.add_argument("--bots", metavar="SPEC;SPEC...",
                      help="bot specs separated by ';', e.g. \"ismcts:time=1,c=1.4;heuristic\"")
    tour.add_argument("--bot", action="append", metavar="SPEC",
                      help="one bot spec (repeatable; added after --bots)")
    tour.add_argument("--format", choices=("round-robin", "gauntlet", "self-play"),
                      default="round-robin",
                      help="round-robin (every pair), gauntlet (first bot vs each other) or "
                           "self-play (one bot on both sides, a new deal every game)")
    tour.add_argument("--games", type=int, required=True,
                      help="games per pairing (even: each deal is played twice; any number "
                           "for self-play)")
    tour.add_argument("--jobs", type=int, default=1,
                      help="worker processes, or with --backend ray games in flight (and the "
                           "CPUs of a local Ray instance) (default 1); a bot searches with one "
                           "thread here unless its spec says threads=N (play, advise and serve "
                           "default to every core): the jobs fill the cores")
    tour.add_argument("--backend", choices=BACKEND_CHOICES, default="local",
                      help="local processes (default) or Ray tasks (pip install "
                           "'wildhorn-solve[ray]'); the results are the same")
    tour.add_argument("--address", metavar="ADDR",
                      help="with --backend ray: 'local' (default: start a local instance), "
                           "'auto' or HOST:PORT / ray://HOST:PORT of a cluster whose nodes "
                           "have wildhorn-solve installed")
    tour.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    tour.add_argument("--out", default="tournament",
                      help="output folder (default ./tournament); one run at a time per "
                           "folder, a second is refused")
    tour.add_argument("--sprt", metavar="elo0=0,elo1=10,alpha=0.05,beta=0.05",
                      help="stop a two-bot match when a GSPRT on deal pairs accepts a "
                           "hypothesis")
    tour.add_argument("--chance", choices=("keyed", "sequential"), default=None,
                      help="where chance outcomes come from: keyed (each deck, Rocket deck "
                           "and die keyed by what it is: common random numbers; default for "
                           "a new folder) or sequential (one generator in order, the scheme "
                           "of folders written before keyed existed); a folder keeps its own")
    tour.add_argument("--luck", nargs="?", const=True, default=False, metavar="FILE",
                      help="measure each game's luck with a frozen value function (each "
                           "chance event: the value after the outcome minus its mean over the "
                           "outcomes) and report luck-adjusted scores beside the raw ones "
                           "(docs/tournaments.md): the packaged value network, or the network "
                           "file FILE; a folder keeps its value function (the same file "
                           "name and sha256)")
    tour.set_defaults(func=_cmd_tournament)

    tr = sub.add_parser(
        "train", help="self-play training of the value network (scikit-learn: the train extra)",
        description="Make one generation of the value network in --out: self-play games of "
                    "--bot, positions drawn from each and labelled (game result, search root "
                    "value, heuristic playouts' mean, exact value where the last-turn solver "
                    "finishes), a multilayer perceptron fitted on the training games and "
                    "checked on held-out games (loss, Brier score and ECE against a "
                    "16-playout mean). Writes value_net.npz, train.json, loss.png and "
                    "README.md; raw data goes to --out/data. Repeating the command continues "
                    "a stopped run and gives the same files; more --games adds games. Every "
                    "random choice derives from --seed (default 0). Needs "
                    "pip install 'wildhorn-solve[train]' (docs/training.md).")
    tr.add_argument("--out", required=True,
                    help="output folder of the generation, e.g. results/training/gen1")
    tr.add_argument("--variant", default="full",
                    help="the game: full (default, the rulebook game) or a small preset "
                         "(small, tiny); recorded in the network's file, whose search refuses "
                         "it on another game")
    tr.add_argument("--games", type=int, default=2000,
                    help="self-play games (default 2000)")
    tr.add_argument("--bot", default="heuristic",
                    help="bot spec of the self-play (default heuristic; later generations e.g. "
                         "ismcts:iterations=200,eval=net,net=results/training/gen1/value_net.npz)")
    tr.add_argument("--positions", type=int, default=16,
                    help="decision positions drawn from each game (default 16)")
    tr.add_argument("--playouts", type=int, default=32,
                    help="heuristic playouts averaged per position (default 32)")
    tr.add_argument("--exact-nodes", type=int, default=20000,
                    help="node budget of the exact last-turn solver per position, 0: off "
                         "(default 20000)")
    tr.add_argument("--target", choices=train_app.TARGETS, default="exact-first",
                    help="training label: " + "; ".join(
                        f"{k}: {v}" for k, v in train_app.TARGET_HELP.items())
                    + " (default exact-first)")
    tr.add_argument("--hidden", default="64,64",
                    help="hidden layer widths (default 64,64)")
    tr.add_argument("--l2", type=float, default=0.001,
                    help="L2 penalty of the weights (scikit-learn's alpha; default 0.001)")
    tr.add_argument("--drop-features", default="", metavar="PARTS",
                    help="feature parts the network never sees, separated by commas, any "
                         "order (e.g. cards,pending; the parts are in docs/value-network.md): "
                         "zeros in the fit and zero weights in the file, to measure what a "
                         "part is worth (default none)")
    tr.add_argument("--epochs", type=int, default=40,
                    help=f"epochs at most; the fit stops after {train_app.PATIENCE} without a "
                         "better held-out loss and keeps the best (default 40)")
    tr.add_argument("--holdout", type=float, default=0.1,
                    help="share of the games held out, drawn by game (default 0.1)")
    tr.add_argument("--chunk-games", type=int, default=100,
                    help="games per data shard, the unit of resume and of a worker's task "
                         "(default 100)")
    tr.add_argument("--seed", type=int, default=0, help="seed of everything (default 0)")
    tr.add_argument("--jobs", type=int, default=1,
                    help="worker processes, or with --backend ray tasks in flight (default 1)")
    tr.add_argument("--backend", choices=BACKEND_CHOICES, default="local",
                    help="local processes (default) or Ray tasks, as for tournament; the data "
                         "are the same")
    tr.add_argument("--address", metavar="ADDR",
                    help="with --backend ray: 'local' (default), 'auto' or the address of a "
                         "cluster whose nodes have wildhorn-solve installed")
    tr.add_argument("--add-data", action="append", default=[], metavar="FOLDER",
                    help="also train on the positions of an earlier generation's finished "
                         "run in FOLDER (all its games; this run's held-out games stay the "
                         "check); repeatable")
    tr.add_argument("--install", action="store_true",
                    help="copy the network to the packaged bots/data/value_net.npz")
    tr.set_defaults(func=_cmd_train)
    return parser


EXIT_CLOSED_STDOUT = 141
"""Exit status when standard output was closed (128 + SIGPIPE)."""


def _closed_stdout() -> int:
    """The reader of our output went away (``| head``): end quietly.  As the
    Python documentation recommends (signal module, "Note on SIGPIPE"),
    standard output is pointed at devnull so that the flush at exit does
    not raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout has no file descriptor (a test's StringIO)
        pass
    return EXIT_CLOSED_STDOUT


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return status
    except BrokenPipeError:
        return _closed_stdout()
    except WildhornError as err:
        print(f"wildhorn-solve: error: {with_rulings_pointer(str(err))}", file=sys.stderr)
        return 2
    except OSError as err:  # an output that cannot be written, a file that cannot be read
        where = f" ({err.filename})" if getattr(err, "filename", None) else ""
        print(f"wildhorn-solve: error: {err.strerror or err}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
