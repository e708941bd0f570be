"""``advise --time`` and ``--iterations`` outside the bot specs' own ranges
(``bots.registry.TIME_LIMIT`` / ``ITERATION_LIMIT``) are refused with one
line, exit status 2, before any file is read or any search starts (issue 29:
``--time inf`` and ``--time 1e300`` never ended)."""

from __future__ import annotations

import pytest

from apps import cli
from bots.registry import ITERATION_LIMIT, TIME_LIMIT


@pytest.mark.parametrize("flag, value", [
    ("--time", "inf"), ("--time", "1e300"), ("--time", str(TIME_LIMIT * 2)), ("--time", "nan"),
    ("--time", "0"), ("--time", "-1"),
    ("--iterations", str(ITERATION_LIMIT + 1)), ("--iterations", str(10**30)),
    ("--iterations", "0")])
def test_an_out_of_range_budget_is_refused(capsys, flag, value):
    assert cli.main(["advise", "no-such-file.json", flag, value]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and "no-such-file" not in err, err


@pytest.mark.parametrize("flag, value", [("--time", str(TIME_LIMIT)),
                                         ("--iterations", str(ITERATION_LIMIT))])
def test_the_limits_themselves_pass_the_check(capsys, flag, value):
    """At the limit the flag is accepted: the next problem is the missing file."""
    assert cli.main(["advise", "no-such-file.json", flag, value]) == 2
    assert "no-such-file" in capsys.readouterr().err
