"""The bot registry (bots.registry): one declaration per option drives the
parsing, the checks, the bots' construction and the documentation."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from bots import BOTS, SEARCH_BOTS, BotSpecError, make_bot, parse_spec, spec_help, valuenet
from bots.registry import FLAG, NUMBER, WHOLE, default_of, engine_options, max_nodes
from conftest import run_cli
from solver import N_FEATURES

ROOT = Path(__file__).resolve().parent.parent
OPTIONS = [(name, o) for name, entry in BOTS.items() for o in entry.options]


def _engine_attributes(engine) -> dict:
    return {k: getattr(engine, k) for k in dir(engine)
            if not k.startswith("_") and not callable(getattr(engine, k))}


@pytest.mark.parametrize("name", sorted(n for n in SEARCH_BOTS if not BOTS[n].players))
def test_registry_defaults_are_the_searchers_defaults(name):
    """The Cython searchers keep their own defaults for direct use; the
    registry's must be the same values."""
    engine_class = SEARCH_BOTS[name].engine()
    assert _engine_attributes(engine_class(seed=0, **engine_options(name, {}))) \
        == _engine_attributes(engine_class(seed=0))


def test_the_players_bot_is_the_interactive_ismcts_everywhere():
    """``default`` has the players' settings as its own defaults: its
    searcher is the one play, advise and serve build for ``ismcts``, and the
    same whether the host is interactive or not."""
    assert engine_options("default", {}) == engine_options("default", {}, interactive=True) \
        == engine_options("ismcts", {}, interactive=True)
    players, interactive = make_bot("default", 0), make_bot("ismcts", 0, interactive=True)
    assert (players.endgame, players.decided, players.time) == \
        (interactive.endgame, interactive.decided, interactive.time) == ("exact", "heuristic", 1.0)


def _other_value(option):
    default = default_of(option)      # a default may be a function of the machine
    if option.kind is FLAG:
        return "yes" if not default else "no"
    if option.kind is NUMBER:
        return repr((default or 1.0) * 0.5 if default else 0.5)
    if option.kind is WHOLE:
        return str(max(2, (default or 2) // 2) if default != 2 else 3)
    return next(v for v in option.kind.describe.split(" or ") if v != default)


@pytest.mark.parametrize("name, option", [(n, o) for n, o in OPTIONS if o.engine],
                         ids=lambda x: getattr(x, "name", x))
def test_every_engine_option_reaches_the_searcher(name, option, tmp_path, monkeypatch):
    value, extra = _other_value(option), ""
    if option.name in ("eval", "lambda", "net"):
        # a network to read: random weights as the packaged one, another as net=
        for file in ("packaged.npz", "other.npz"):
            weights, biases = valuenet.random_weights((N_FEATURES, 8, 1), len(file))
            valuenet.write(tmp_path / file, weights, biases, output="clip", meta={})
        monkeypatch.setattr(valuenet, "_PACKAGED", tmp_path / "packaged.npz")
        if option.name == "net":
            value, extra = str(tmp_path / "other.npz"), ",eval=net"
    bot = make_bot(f"{name}:{option.name}={value},iterations=10{extra}", 0, seed=1)
    default = make_bot(f"{name}:iterations=10{extra}", 0, seed=1)
    assert bot.options[option.engine] == option.kind.parse(value)
    assert _engine_attributes(bot.search_engine) != _engine_attributes(default.search_engine)


@pytest.mark.parametrize("name, option", [(n, o) for n, o in OPTIONS
                                          if o.kind in (NUMBER, WHOLE)],
                         ids=lambda x: getattr(x, "name", x))
def test_out_of_range_and_non_finite_values_are_refused(name, option):
    bad = ["nan", "inf", "-inf", "1e400", "x", "", str(10**20), "-1"]
    if option.low is not None:
        bad.append(str(option.low if option.open_low else option.low - 1))
    if option.upper() is not None:
        high = option.upper()
        bad.append(str(high if option.open_high else high * 2 + 1))
    for text in bad:
        if option.kind is WHOLE and text == "-1" and option.low is None:
            continue
        with pytest.raises(BotSpecError) as err:
            parse_spec(f"{name}:{option.name}={text}")
        message = str(err.value)
        assert "\n" not in message and option.name in message
        assert re.search(r"expects|must be", message), message


def test_messages_name_the_allowed_range():
    with pytest.raises(BotSpecError, match=r"epsilon must be in \(0, 1\], got 0"):
        parse_spec("oos:epsilon=0")
    with pytest.raises(BotSpecError, match=r"time expects a finite number, got 'nan'"):
        parse_spec("ismcts:time=nan")
    with pytest.raises(BotSpecError, match=r"iterations must be in \[1, 1000000000000\]"):
        parse_spec("ismcts:iterations=100000000000000000000")
    with pytest.raises(BotSpecError, match=r"memory"):
        parse_spec(f"ismcts:nodes={max_nodes() + 1}")
    with pytest.raises(BotSpecError, match="given twice"):
        parse_spec("ismcts:c=1,c=2")
    with pytest.raises(BotSpecError, match="unknown option 'depth=3' \\(options: time, "):
        parse_spec("ismcts:depth=3")


def test_long_specs_are_cut_in_messages():
    with pytest.raises(BotSpecError) as err:
        parse_spec("ismcts:" + "x" * 10_000)
    assert len(str(err.value)) < 300


def test_the_node_cap_follows_the_memory():
    assert 1 <= max_nodes() <= 2**31 // 64
    assert parse_spec(f"ismcts:nodes={max_nodes()}")[1]["nodes"] == max_nodes()


def test_spec_help_documents_every_option():
    text = spec_help()
    for name, entry in BOTS.items():
        assert re.search(rf"^{re.escape(name)}\b", text, re.M)
        for o in entry.options:
            assert f"{o.name}=" in text
    assert all(len(line) <= 79 for line in text.splitlines())


def test_docs_carry_the_generated_spec_help():
    """docs/bots.md's list of bots is spec_help() as printed by `wildhorn-solve
    bots` (regenerate it with that command when the registry changes)."""
    assert spec_help() in (ROOT / "docs" / "bots.md").read_text()


def test_bots_command_prints_the_help():
    r = run_cli("bots", module="apps")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.strip() == spec_help()


def test_numbers_are_finite():
    assert math.isfinite(parse_spec("ismcts:c=1e-3")[1]["c"])
