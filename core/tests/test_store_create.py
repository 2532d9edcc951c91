"""Many processes creating and opening one new run at the same instant all get the same, whole
run: none sees a half-made database (once: "has no tables, but ... holds a refig run")."""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from pathlib import Path

from refig.store import DB_NAME, RunStore
from refig.store_marks import MARKER

RACERS = 12
ROUNDS = 20


def _race(root: Path, me: int, start: multiprocessing.synchronize.Barrier,
          results: multiprocessing.queues.Queue) -> None:
    """Create the run (odd racers) or open it once it exists (even ones), and write to it."""
    start.wait()
    try:
        if me % 2:
            store = RunStore.create(root)
        else:
            deadline = time.monotonic() + 60
            while not (root / MARKER).exists() and time.monotonic() < deadline:
                pass  # open what a creator has made (spinning: the creators run loaded)
            store = RunStore.open(root)
        store.set_meta(f"racer-{me}", "here")
        results.put((me, "ok"))
    except BaseException as exc:  # reported to the test, which names it
        results.put((me, f"{type(exc).__name__}: {exc}"))


def test_racing_creators_and_openers_share_one_whole_run(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")  # fork: the racers start at once, imported
    failures: list[str] = []
    for round_ in range(ROUNDS):
        root = tmp_path / f"run-{round_}"
        start = context.Barrier(RACERS)
        results = context.Queue()
        racers = [context.Process(target=_race, args=(root, me, start, results))
                  for me in range(RACERS)]
        for racer in racers:
            racer.start()
        outcomes = dict(results.get(timeout=120) for _ in racers)
        for racer in racers:
            racer.join(timeout=120)
        failures += [f"round {round_} racer {me}: {what}" for me, what in outcomes.items()
                     if what != "ok"]
        db = sqlite3.connect(root / DB_NAME)
        written = {key for (key,) in db.execute("SELECT key FROM meta WHERE key LIKE 'racer-%'")}
        db.close()
        if not failures:
            assert written == {f"racer-{me}" for me in range(RACERS)}
    assert failures == []
    assert not list(tmp_path.glob(f"run-*/.{DB_NAME}*"))  # no half-made database left behind
