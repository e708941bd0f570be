"""Bot-vs-bot tournaments: paired games, ratings, SPRT, resume.

``wildhorn-solve tournament`` (see ``apps.cli``) calls :func:`run`.

* Every deal (one chance seed) is played twice with the sides swapped, on the
  same chance seed, so each pairing plays each side equally on the same luck
  (as cutechess-cli's ``-repeat``).  ``--games`` is the number of games per
  pairing and must be even.  With the ``keyed`` chance scheme (the default,
  :mod:`~apps.tournament.chance`) each side gets the same cards and dice in
  both games for as long as the same events happen (common random numbers).
* Statistics by pair: score, Elo and the SPRT (a GSPRT) are computed over
  deal pairs (the pentanomial model), and the SPRT never decides inside a
  deal.
* External bots: ``cmd:COMMAND ARGS`` plays a program that speaks the engine
  protocol (``docs/engine-protocol.md``) beside the built-in bots.
* Pairings: ``round-robin`` (every pair of bots), ``gauntlet`` (the first
  bot against each other one) or ``self-play`` (one bot on both sides, a new
  deal for every game: the balance of the game between the sides).
* Game ids run deal by deal over the pairings; a game's seeds derive from the
  tournament seed, the pairing and the deal only, and results are written in
  game-id order, so ``games.csv`` does not depend on ``--jobs``.
* Output folder: ``tournament.json`` (the parameters, written at the start),
  ``games.csv`` (a row per game, appended with one ``os.write`` and an fsync),
  ``values.csv`` (each bot's win-probability estimate at each of its moves,
  when the bot reports one), ``summary.json``, ``standings.md`` and the
  figures ``ratings.png`` (Elo with 95% intervals) and ``calibration.png``
  (a reliability diagram per bot that reports values).
* Resume: the same command on the same folder skips the finished games.
  Every row is checked when read (types, ranges, a winner that played, a
  value row of the game's own bot; :mod:`~apps.tournament.store`): a
  hand-edited or damaged one is a one-line error naming the file and line.
  Ctrl-C (SIGINT), or SIGTERM while games are played, stops the games in
  play, writes ``summary.json`` and ``standings.md`` for the finished ones
  (marked ``interrupted``) and raises :class:`TournamentInterrupted`; a
  kill -9 loses only the games in play.
* Backends: ``local`` (``--jobs`` worker processes) or ``ray`` (the same
  games as Ray tasks, on a local instance or a cluster); the results do not
  depend on the backend either.
* Luck (``--luck``): each game's luck for the Polish side, measured at each
  chance event by a frozen value function (:mod:`~apps.tournament.luck`),
  goes in ``games.csv`` (``luck_polish``) and the luck-adjusted scores in
  ``summary.json`` (``luck_adjusted``) and ``standings.md``.
* Progress: a line per finished game, and a progress bar with the running
  score on a terminal (rich) or a progress line every 5% otherwise.
* One run per folder: a second run on a folder in use is refused with the
  pid, start time and command of the running one (an OS lock on
  ``tournament.lock``, released when the run ends or is killed).

The modules, by job: :mod:`~apps.tournament.scheduling` (pairings, seeds,
:class:`GameTask`), :mod:`~apps.tournament.chance` (the chance schemes),
:mod:`~apps.tournament.luck` (the luck of a chance event, the value functions),
:mod:`~apps.tournament.execution` (one game, the local
and Ray backends), :mod:`~apps.tournament.stats` (pure functions: ratings,
intervals, SPRT, calibration), :mod:`~apps.tournament.store` (the folder's
files, resume, the lock), :mod:`~apps.tournament.report` (standings.md,
figures), :mod:`~apps.tournament.progress` (progress output) and
:mod:`~apps.tournament.runner` (:func:`run`).
"""

from apps.tournament.execution import BACKENDS, make_backend, play_game
from apps.tournament.progress import (BarProgress, LineProgress, game_line, progress_for,
                                      score_text)
from apps.tournament.report import (plot_calibration, plot_ratings, standings_md,
                                    write_figures, write_results)
from apps.tournament.runner import TournamentInterrupted, check_arguments, run
from apps.tournament.scheduling import FORMATS, GameTask, derive, pairings, schedule
from apps.tournament.chance import SCHEMES as CHANCE_SCHEMES
from apps.tournament.chance import KeyedChance, SequentialChance, make_stream
from apps.tournament.luck import (LUCK_FIELD, LuckMeter, NetValue, ScoreValue, ValueFunction,
                                  adjusted_results, default_value, event_luck, outcome_lucks)
from apps.tournament.stats import (BOOTSTRAP_SAMPLES, ELO_PER_NAT, PAIR_SCORES, Z95, analyse,
                                   bootstrap_intervals, bradley_terry, calibration,
                                   game_statistics, gsprt_llr, head_to_head, los,
                                   luck_adjusted, luck_check, luck_figures, luck_pair_scores,
                                   luck_summary, pair_scores, pair_scores_by_deal,
                                   pair_statistics, parse_sprt, pentanomial, ratings,
                                   side_balance, sprt, variance_ratio, wilson,
                                   within_deal_correlation)
from apps.tournament.store import (GAME_FIELDS, LOCK_NAME, VALUE_FIELDS, FolderLock,
                                   read_games, write_atomic)

__all__ = [
    "BACKENDS", "make_backend", "play_game",
    "BarProgress", "LineProgress", "game_line", "progress_for", "score_text",
    "plot_calibration", "plot_ratings", "standings_md", "write_figures", "write_results",
    "TournamentInterrupted", "check_arguments", "run",
    "FORMATS", "GameTask", "derive", "pairings", "schedule",
    "CHANCE_SCHEMES", "KeyedChance", "SequentialChance", "make_stream",
    "LUCK_FIELD", "LuckMeter", "NetValue", "ScoreValue", "ValueFunction", "adjusted_results",
    "default_value", "event_luck", "outcome_lucks",
    "BOOTSTRAP_SAMPLES", "ELO_PER_NAT", "PAIR_SCORES", "Z95", "analyse", "bootstrap_intervals",
    "bradley_terry", "calibration", "game_statistics", "gsprt_llr", "head_to_head", "los",
    "luck_adjusted", "luck_check", "luck_figures", "luck_pair_scores", "luck_summary",
    "pair_scores", "pair_scores_by_deal", "pair_statistics", "parse_sprt", "pentanomial",
    "ratings", "side_balance", "sprt", "variance_ratio", "wilson", "within_deal_correlation",
    "GAME_FIELDS", "LOCK_NAME", "VALUE_FIELDS", "FolderLock", "read_games", "write_atomic",
]
