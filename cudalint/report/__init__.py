"""Reports: render lint results as text, JSON, SARIF, GitHub Actions workflow commands or JUnit XML.

Every renderer takes a list of `cudalint.engine.FileResult` (plus the file texts where it shows source)
and returns a string. Renderers never print, read configuration or choose exit codes: the CLI does.
"""

from __future__ import annotations

from collections.abc import Mapping

from cudalint.engine import FileResult
from cudalint.report.common import load_sources

FORMATS = ("text", "concise", "json", "json-files", "json-lines", "sarif", "github", "junit")


def render(fmt: str, results: list[FileResult], sources: Mapping[str, str] | None = None, **options) -> str:
    """Render `results` in format `fmt` (one of FORMATS); `options` go to that format's renderer (text:
    `color`, `summary`; json-files: `fail_on`; sarif: `rules`). Text and SARIF show source lines: their
    files are read when `sources` is not given."""
    if fmt in ("text", "sarif") and sources is None:
        sources = load_sources(results)
    if fmt == "text":
        from cudalint.report.text import render_text

        return render_text(results, sources, **options)
    if fmt == "concise":
        from cudalint.report.text import render_concise

        return render_concise(results)
    if fmt == "json":
        from cudalint.report.json_format import render_json

        return render_json(results)
    if fmt == "json-files":
        from cudalint.report.json_format import render_json_files

        return render_json_files(results, **options)
    if fmt == "json-lines":
        from cudalint.report.json_format import render_json_lines

        return render_json_lines(results)
    if fmt == "sarif":
        from cudalint.report.sarif import render_sarif

        return render_sarif(results, sources, **options)
    if fmt == "github":
        from cudalint.report.github import render_github

        return render_github(results)
    if fmt == "junit":
        from cudalint.report.junit import render_junit

        return render_junit(results)
    raise ValueError(f"unknown report format {fmt!r}; known: {', '.join(FORMATS)}")


__all__ = ["FORMATS", "render"]
