"""Time to first paint of the viewer's pages on a run of 10,000 artifacts, against the same pages
written by ``refig report --html`` and served as static files.

    uv run python benchmarks/viewer/run.py [--configs 4] [--tasks 2500] [--repeats 5] [--json FILE]

A synthetic run (``refig_toolkit_testing.synthetic``: attempts, inspections, renders, metrics, two
judges with two repeats each, votes) of ``configs x tasks`` artifacts is written once. Then, in the
same process and the same headless Chromium:

- **live**: ``refig view``'s server (:class:`ViewServer` over a read-only :class:`LiveRun`);
- **static**: the folder ``refig report --html`` wrote, served by Python's ``http.server``.

For the sample list the time is to the list drawn (the page's ``refig-list-drawn`` mark: rows
fetched, filtered, sorted and the first page in the DOM) and to first contentful paint; for a
task page to first contentful paint and to the load event. The first visit is reported apart
(the live viewer builds the list's rows then), then the median of ``--repeats`` visits.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from refig.models import Configuration
from refig_reporter_html.server import ViewServer
from refig_reporter_html.site import live_site
from refig_reporter_html.slugs import slug
from refig_reporter_html.snapshot import LiveRun
from refig_toolkit_testing import chromium_launch
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def make_run(root: Path, configs: int, tasks: int) -> Path:
    spec = SyntheticSpec(
        configs=[Configuration(model=f"m{c}", harness="h", workflow="direct")
                 for c in range(configs)],
        quality=[[0.4 + 0.1 * c] * 5 for c in range(configs)],
        tasks=tasks, repeats=2, votes=200, gate_failures=0.1,
    )
    return synthetic_run(root / "run", spec).root


def visit(page: Any, url: str, ready: str) -> dict[str, float]:
    page.goto(url, wait_until="load")
    if ready == "list":
        page.wait_for_selector("#samples tbody tr")
        # polled with evaluate: wait_for_function evaluates strings, which the viewer's CSP bars
        while not page.evaluate("() => performance.getEntriesByName('refig-list-drawn').length"):
            time.sleep(0.01)
    deadline = time.monotonic() + 10  # paint entries are recorded a frame after they happen
    while time.monotonic() < deadline and not page.evaluate(
            "() => performance.getEntriesByName('first-contentful-paint').length"):
        time.sleep(0.01)
    timing = page.evaluate("""() => {
        const paint = performance.getEntriesByName('first-contentful-paint')[0];
        const drawn = performance.getEntriesByName('refig-list-drawn')[0];
        const nav = performance.getEntriesByType('navigation')[0];
        return {fcp: paint ? paint.startTime : null, drawn: drawn ? drawn.startTime : null,
                load: nav.loadEventEnd};
    }""")
    return {k: v for k, v in timing.items() if v is not None}


def measure(page: Any, base: str, task_path: str, repeats: int) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, path, ready in (("list", "index.html", "list"), ("task", task_path, "task")):
        first = visit(page, base + path, ready)
        later = [visit(page, base + path, ready) for _ in range(repeats)]
        result[name] = {"first": first,
                        "median": {k: statistics.median(v[k] for v in later) for k in first}}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=2500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    launch = chromium_launch()
    if launch is None:
        raise SystemExit("needs Debian's chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.monotonic()
        run = make_run(root, args.configs, args.tasks)
        made = time.monotonic() - started
        started = time.monotonic()
        subprocess.run([str(Path(sys.executable).parent / "refig"), "report", str(run),
                        "--html", str(root / "html"), "--resamples", "200", "--elo-resamples",
                        "20", "-q"], check=True, stdout=subprocess.DEVNULL)
        written = time.monotonic() - started
        started = time.monotonic()
        source = LiveRun(run)
        site = live_site(source)  # as `refig view` does: read the run, ready the list's rows
        opened = time.monotonic() - started
        task_path = f"tasks/{slug(source.snapshot().data.task_order[args.tasks // 2])}.html"
        static = ThreadingHTTPServer(("127.0.0.1", 0),
                                     functools.partial(Quiet, directory=str(root / "html")))
        threading.Thread(target=static.serve_forever, daemon=True).start()
        results: dict[str, Any] = {
            "artifacts": args.configs * args.tasks, "configs": args.configs,
            "tasks": args.tasks, "seconds_to_generate_run": round(made, 1),
            "seconds_refig_report_html": round(written, 1),
            "seconds_refig_view_open": round(opened, 2),
        }
        try:
            with ViewServer(site) as live, sync_playwright() as pw:
                browser = pw.chromium.launch(**launch)
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                results["live"] = measure(page, live.url, task_path, args.repeats)
                results["static"] = measure(
                    page, f"http://127.0.0.1:{static.server_address[1]}/", task_path,
                    args.repeats)
                browser.close()
        finally:
            static.shutdown()
    for name in ("list", "task"):
        for when in ("first", "median"):
            live_t, static_t = results["live"][name][when], results["static"][name][when]
            key = "drawn" if name == "list" else "fcp"
            results[f"{name}_{when}_{key}_ratio_live_to_static"] = round(
                live_t[key] / static_t[key], 2)
    text = json.dumps(results, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
