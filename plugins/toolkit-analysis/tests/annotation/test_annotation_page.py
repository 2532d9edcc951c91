"""The annotation page in headless Chromium (Debian's, driven by Playwright) against the real
``refig annotate`` process: two annotators at once, votes by click and by key, undo; then the
stored votes must match what the page showed (read from the DOM), and ``refig report`` must show
the Elo standings and the agreement between the two annotators."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest
from refig.cli import run as cli
from refig.models import Attempt, Configuration, Preference
from refig.store import RunStore
from refig_toolkit_analysis.annotation.agreement import outcome
from refig_toolkit_testing import chromium_launch
from sklearn.metrics import cohen_kappa_score

BROWSER = chromium_launch()
#: How each vote is cast, in turn: a click, a letter key, an arrow key.
CLICK = {"A": "#vote-a", "B": "#vote-b", "tie": "#vote-tie"}
LETTER = {"A": "a", "B": "b", "tie": "t"}
ARROW = {"A": "ArrowLeft", "B": "ArrowRight", "tie": "ArrowDown"}


@pytest.fixture
def server(make_run) -> Iterator[tuple[str, RunStore, subprocess.Popen]]:
    if BROWSER is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")
    store = make_run()
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from refig.cli import main; main()",
            "annotate",
            str(store.root),
            "--port",
            "0",
            "--no-open",
            "--seed",
            "4",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("serving http://127.0.0.1:"), (line, process.stderr.read())
        yield line.split()[1], store, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        process.wait(30)


def _choose(rank: dict[str, float], annotator: str, index: int, left: str, right: str) -> str:
    """A reproducible human: mostly the better configuration, some ties and upsets."""
    if index % 4 == 3:
        return "tie"
    better_left = rank[left] > rank[right]
    upset = index % 5 == 2 if annotator == "alice" else index % 3 == 1
    return "A" if better_left != upset else "B"


class Annotator:
    """One browser context: reads the pair from the DOM, votes, undoes."""

    def __init__(self, page, name: str, owners: dict[str, tuple[str, str]], rank: dict):
        self.page, self.name, self.owners, self.rank = page, name, owners, rank
        self.cast: list[dict[str, str]] = []

    def shown(self) -> dict[str, str]:
        left = self.page.get_attribute("#left-image", "src").removeprefix("/img/")
        right = self.page.get_attribute("#right-image", "src").removeprefix("/img/")
        (task, left_config), (task_b, right_config) = self.owners[left], self.owners[right]
        assert task == task_b and left_config != right_config
        return {"task": task, "left": left_config, "right": right_config}

    def token(self) -> str:
        return self.page.evaluate("document.body.dataset.item")

    def start_vote(self, how: int) -> tuple[str, dict[str, str]]:
        """Vote on the pair on screen (click, letter or arrow); return the old token."""
        token, pair = self.token(), self.shown()
        choice = _choose(self.rank, self.name, len(self.cast), pair["left"], pair["right"])
        if how % 3 == 0:
            self.page.click(CLICK[choice])
        else:
            self.page.keyboard.press((LETTER if how % 3 == 1 else ARROW)[choice])
        self.cast.append({**pair, "choice": choice})
        return token, pair

    def wait_for_next(self, token: str) -> None:
        self.page.wait_for_function(
            "t => document.body.dataset.item !== t && document.body.dataset.state === 'ready'",
            arg=token,
        )

    def vote(self, how: int) -> None:
        token, _ = self.start_vote(how)
        self.wait_for_next(token)

    def undo(self, by_key: bool) -> None:
        token = self.token()
        if by_key:
            self.page.keyboard.press("u")
        else:
            self.page.click("#undo")
        self.wait_for_next(token)
        undone = self.cast.pop()
        assert self.shown() == {k: undone[k] for k in ("task", "left", "right")}

    def progress(self) -> str:
        return self.page.inner_text("#progress")


def test_two_annotators_in_chromium_then_report(server, owners, quality, capsys) -> None:
    url, store, process = server
    from playwright.sync_api import sync_playwright

    by_png = owners(store)
    assert len(set(by_png.values())) == len(by_png)  # every rendering is told apart
    names = [c.id for c in store.iter(Configuration)]
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**BROWSER)
        try:
            pages = []
            for _ in range(2):
                page = browser.new_context().new_page()
                page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                page.on("pageerror", lambda e: errors.append(str(e)))
                pages.append(page)
            alice = Annotator(pages[0], "alice", by_png, quality)
            alice.page.goto(url + "?annotator=alice")
            alice.page.wait_for_selector("body[data-state=ready]")
            bob = Annotator(pages[1], "bob", by_png, quality)
            bob.page.goto(url)
            bob.page.wait_for_selector("#login:not([hidden])")  # no name yet: the page asks
            bob.page.fill("#annotator-input", "bob")
            bob.page.press("#annotator-input", "Enter")
            bob.page.wait_for_selector("body[data-state=ready]")
            planned = int(alice.progress().split("/")[1])
            assert alice.progress() == f"0 / {planned}" and planned > 20

            # blinded: no configuration name anywhere on the page
            for page in pages:
                html = page.content()
                assert not [n for n in names if n in html]
            for ann in (alice, bob):
                loaded = ann.page.eval_on_selector_all(
                    "#source, #left-image, #right-image",
                    "els => els.map(e => e.complete && e.naturalWidth > 0)",
                )
                assert loaded == [True, True, True]

            # alice: a click, a letter and an arrow; undo by click; bob alongside
            for how in range(3):
                alice.vote(how)
                bob.vote(how + 1)
            assert alice.progress() == f"3 / {planned}"
            alice.undo(by_key=False)
            assert alice.progress() == f"2 / {planned}"
            bob.undo(by_key=True)

            # bob reloads: his name is remembered in this browser
            bob.page.reload()
            bob.page.wait_for_selector("body[data-state=ready]")
            assert bob.page.inner_text("#annotator-name") == "bob"

            # both vote at the same moment, then through the rest of the plan
            step = 3
            while True:
                live = [a for a in (alice, bob) if a.token()]
                if not live:
                    break
                started = [(a, a.start_vote(step)[0]) for a in live]
                for ann, token in started:
                    ann.wait_for_next(token)
                step += 1
            for ann in (alice, bob):
                assert ann.progress() == f"{planned} / {planned}"
                assert "Nothing left to compare" in ann.page.inner_text("#finished-message")
        finally:
            browser.close()
    assert errors == []
    process.send_signal(signal.SIGINT)
    assert process.wait(30) == 0
    stopped = " ".join(process.stderr.read().split())
    assert f"{2 * planned + 2} votes stored in this session" in stopped

    # the stored votes are exactly what the page showed, in the order shown
    votes = list(store.iter(Preference))
    active = [v for v in votes if v.active]
    assert len(votes) == 2 * planned + 2 and len(active) == 2 * planned
    stored = sorted((v.annotator, v.task_id, v.left, v.right, v.choice) for v in active)
    expected = sorted(
        (ann.name, c["task"], c["left"], c["right"], c["choice"])
        for ann in (alice, bob)
        for c in ann.cast
    )
    assert stored == expected
    assert len({v.left for v in active}) == len(names)  # every configuration was shown left
    orders: dict[tuple[str, ...], dict[str, str]] = {}
    for v in active:
        orders.setdefault((v.task_id, *sorted((v.left, v.right))), {})[v.annotator] = v.left
    # counterbalanced: the two annotators saw every pair in opposite orders
    assert all(o["alice"] != o["bob"] for o in orders.values()) and len(orders) == planned
    retracted = [v for v in votes if not v.active]
    assert sorted(v.annotator for v in retracted) == ["alice", "bob"]
    slides = {a.output("slide"): (a.task_id, a.config_id) for a in store.iter(Attempt)}
    for vote in active:
        assert vote.seconds is not None and vote.seconds >= 0
        assert slides[vote.left_artifact] == (vote.task_id, vote.left)
        assert slides[vote.right_artifact] == (vote.task_id, vote.right)

    # the report: Elo standings and agreement between alice and bob
    assert (
        cli(["report", str(store.root), "--json", "--resamples", "400", "--elo-resamples", "200"])
        == 0
    )
    tables = json.loads(capsys.readouterr().out)["tables"]
    elo = tables["elo"]
    assert elo["insufficient"] is None, elo["insufficient"]
    assert elo["rows"][0]["config"] == max(quality, key=quality.get)
    assert {r["config"] for r in elo["rows"]} == set(names)
    agreement = tables["annotator_agreement"]
    assert agreement["insufficient"] is None
    (row,) = agreement["rows"]
    assert row["annotators"] == "alice vs bob" and row["items"] == planned
    answers = {
        who: {
            (v.task_id, *sorted((v.left, v.right))): outcome(v)
            for v in active
            if v.annotator == who
        }
        for who in ("alice", "bob")
    }
    keys = sorted(answers["alice"])
    reference = cohen_kappa_score(
        [answers["alice"][k] for k in keys], [answers["bob"][k] for k in keys]
    )
    assert row["kappa"]["estimate"] == pytest.approx(reference, abs=1e-12)
    assert row["kappa"]["low"] < reference < row["kappa"]["high"]
    per_annotator = {r["annotator"]: r for r in tables["annotator_votes"]["rows"]}
    assert per_annotator["alice"]["votes"] == planned and per_annotator["alice"]["undone"] == 1
