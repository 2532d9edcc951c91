"""The `html` reporter: the viewer's pages written as a static folder that opens offline."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from refig.plugin import Reporter, UsageError


class HtmlReporter(Reporter):
    """Writes ``index.html`` (the sample list), ``summary.html``, ``configs/``, ``tasks/``,
    ``data/rows.js``, ``files/`` (the stored files the pages link) and ``img/``."""

    def report(self, run_dir: Path, out: Path | None, options: Mapping[str, Any]) -> Path | None:
        """Write the site of ``run_dir``, a run or a folder of runs (one collection)."""
        from refig.plugin import err, track
        from refig_toolkit_analysis import Unreadable, analysis_for, collection_runs, runs_without

        from refig_reporter_html.collection import HOME, CollectionSite, member
        from refig_reporter_html.site import NotFound, Site
        from refig_reporter_html.snapshot import snapshot_of

        if out is None:
            raise UsageError("the html reporter needs a directory", fix="pass --html DIR")
        quiet = bool(options.get("quiet"))
        runs = collection_runs(run_dir)

        def static(run: Path, name: str | None = None, judge: str | None = None) -> Site:
            analysis = analysis_for(run, {**options, "judge": judge} if name else options)
            snap = snapshot_of(analysis)
            return Site(lambda: snap, live=False, name=name, home=HOME if name else None)

        site: Site | CollectionSite
        if runs is None:
            site = static(run_dir)
            datas = [site.state().snap.data]
        else:
            judge = options.get("judge")
            runs_without(run_dir, runs, judge)  # exit 2 when the judge judged none of them
            # `refig report` ends with exit 1 naming the runs left out, after this site is written
            unreadable = options.get("unreadable") or Unreadable(run_dir)
            members = [m for run in runs if (m := unreadable.attempt(run, lambda r=run: member(
                run_dir, r, lambda name, j: static(r, name, j), judge))) is not None]
            if not members:
                unreadable.raise_if_any(len(runs))
            site = CollectionSite(run_dir.name, lambda: members, live=False)
            datas = [m.site.state().snap.data for m in members]
        out.mkdir(parents=True, exist_ok=True)
        pages = sum(2 + len(d.task_order) + len(d.config_order) for d in datas)
        pages += 2 if runs is not None else 0
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
