"""What the browser tests (test_browser.py, test_board_browser.py) share:
the server in a thread, one headless Chromium per module, and a fresh page
whose script errors fail the test.  The importing module skips itself when
Chromium or Playwright is missing (its own ``pytestmark`` and
``importorskip``), before these run."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import pytest

from apps.server.app import create_app
from apps.server.games import Limits
from apps.server.guard import Access
from apps.server.harness import launch_chromium, serve_in_thread


def server_fixture(folder: str):
    """A module-scoped ``server`` fixture: the app on a data folder named
    ``folder`` under pytest's temporary directory, behind its guard (a
    token), served in a thread; yields {"url", "app", "token"}, ``url`` the
    address `serve` prints (with the token, which the page trades for its
    cookie)."""
    @pytest.fixture(scope="module")
    def server(tmp_path_factory):
        access = Access()
        app = create_app(tmp_path_factory.mktemp(folder), Limits(review_iterations=30),
                         access=access)
        with serve_in_thread(app) as base:
            yield {"url": f"{base}?token={access.token}", "base": base, "app": app,
                   "token": access.token}
    return server


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (apps.server.harness.launch_chromium), one per module."""
    from playwright import sync_api  # the module's importorskip has checked it is there
    with sync_api.sync_playwright() as p:
        b = launch_chromium(p)
        yield b
        b.close()


@contextmanager
def open_page(browser, width: int, height: int) -> Iterator:
    """A page in a new context (downloads accepted) that records its script
    errors in ``page.errors``; on leaving, fails if there were any."""
    context = browser.new_context(viewport={"width": width, "height": height},
                                  accept_downloads=True)
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    assert not pg.errors, pg.errors
    context.close()
