"""The `html` reporter: the viewer's pages written as a static folder that opens offline."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from refig.plugin import UsageError


class HtmlReporter:
    """Writes ``index.html`` (the sample list), ``summary.html``, ``configs/``, ``tasks/``,
    ``data/rows.js``, ``files/`` (the stored files the pages link) and ``img/``."""

    def report(self, run_dir: Path, out: Path | None, options: Mapping[str, Any]) -> Path | None:
        from refig.plugin import err, track
        from refig.plugin.analysis import analysis_for

        from refig_reporter_html.site import NotFound, Site
        from refig_reporter_html.snapshot import snapshot_of

        if out is None:
            raise UsageError("the html reporter needs a directory", fix="pass --html DIR")
        snap = snapshot_of(analysis_for(run_dir, options))
        site = Site(lambda: snap, live=False)
        data = snap.data
        quiet = bool(options.get("quiet"))
        out.mkdir(parents=True, exist_ok=True)
        pages = 5 + len(data.task_order) + len(data.config_order)
        missing = []
        with track("html report", pages, quiet=quiet) as tracker:
            for path in site.paths():
                if path.endswith(".html"):
                    tracker.start()
                try:
                    resource = site.get(path)
                except NotFound:
                    missing.append(path)
                    continue
                finally:
                    if path.endswith(".html"):
                        tracker.finish()
                _write(out / path, resource.body)
        if missing and not quiet:
            err.print(f"html report: {len(missing)} linked files could not be made "
                      f"(unreadable images), e.g. {missing[0]}")
        return out / "index.html"


def _write(target: Path, body: bytes | Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(body, Path):
        shutil.copyfile(body, target)
    else:
        target.write_bytes(body)
