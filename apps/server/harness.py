"""The server in a thread and headless Chromium, for the browser tests
(tests/test_browser.py) and the screenshots (scripts/screenshots.py).

Chromium is Debian's ``/usr/bin/chromium`` (``apt-get install chromium``),
driven by Playwright through ``executable_path`` (``playwright install`` is
never needed).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any, Iterator

import uvicorn

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve_in_thread(app: Any, port: int | None = None) -> Iterator[str]:
    """Serves ``app`` on 127.0.0.1 at ``port`` (default a free one) in a
    thread; yields its URL."""
    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(1000):  # until it listens
        if server.started or not thread.is_alive():
            break
        time.sleep(0.02)
    if not server.started:
        raise RuntimeError("the server did not start")
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(10)


def launch_chromium(playwright: Any) -> Any:
    """Headless Chromium from the operating system (a Playwright Browser)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                      headless=True)
