"""The `html` reporter: a static folder that opens offline (no CDN, local CSS only)."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from refig.plugin import UsageError


def environment() -> Any:
    """The jinja2 environment: package templates, autoescaping on, undefined names an error."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("refig_reporter_html", "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env


class HtmlReporter:
    """Writes ``index.html``, ``configs/*.html``, ``tasks/*.html``, ``img/``, ``figures/``."""

    def report(self, run_dir: Path, out: Path | None, options: Mapping[str, Any]) -> Path | None:
        from refig.plugin import track
        from refig.plugin.analysis import analysis_for
        from refig_reporter_figures.plots import Figure, write_figures

        from refig_reporter_html.pages import PageBuilder, slug

        if out is None:
            raise UsageError("the html reporter needs a directory", fix="pass --html DIR")
        quiet = bool(options.get("quiet"))
        analysis = analysis_for(run_dir, options)
        out.mkdir(parents=True, exist_ok=True)
        (out / "assets").mkdir(exist_ok=True)
        css = resources.files("refig_reporter_html").joinpath("static/style.css").read_text()
        (out / "assets" / "style.css").write_text(css, encoding="utf-8")
        env = environment()
        pages = PageBuilder(analysis, out)
        data = analysis.data
        drawn = write_figures(analysis, out / "figures")
        figures = [f for f in drawn if isinstance(f, Figure)]
        skipped = [f for f in drawn if not isinstance(f, Figure)]
        common = {"analysis": analysis, "slug": slug}
        with track(
            "html report", len(data.task_order) + len(data.config_order) + 1, quiet=quiet
        ) as tracker:
            for template, ids, href, build in (
                ("config.html", data.config_order, pages.config_href, pages.config_page),
                ("task.html", data.task_order, pages.task_href, pages.task_page),
            ):
                for page_id in ids:  # written where the links point
                    tracker.start()
                    html = env.get_template(template).render(root="../", **common, **build(page_id))
                    _write(out / href(page_id), html)
                    tracker.finish()
            tracker.start()
            index = env.get_template("index.html").render(
                root="",
                **common,
                figures=[
                    {
                        "title": f.title,
                        "caption": f.caption,
                        "png": f.png.relative_to(out).as_posix(),
                        "svg": f.svg.relative_to(out).as_posix(),
                    }
                    for f in figures
                ],
                skipped=skipped,
                configs=[(c, pages.config_href(c)) for c in data.config_order],
                tasks=[(t, pages.task_href(t)) for t in data.task_order],
            )
            _write(out / "index.html", index)
            tracker.finish()
        return out / "index.html"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
