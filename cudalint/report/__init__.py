"""Reports: render lint results as text, JSON, SARIF, GitHub Actions workflow commands or JUnit XML.

Every renderer takes a list of `cudalint.engine.FileResult` (plus the file texts where it shows source)
and returns a string. Renderers never print, read configuration or choose exit codes: the CLI does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from cudalint.engine import FileResult, InputError, read_source
from cudalint.findings import Finding
from cudalint.positions import split_lines

FORMATS = ("text", "concise", "json", "json-files", "json-lines", "sarif", "github", "junit")


def all_findings(results: Iterable[FileResult]) -> list[Finding]:
    """Every finding of `results`, in file order and, within a file, by position."""
    return [f for result in results for f in sorted(result.findings, key=Finding.sort_key)]


def load_sources(results: Iterable[FileResult]) -> dict[str, str]:
    """The text of every file that has findings, for excerpts and fingerprints (unreadable ones skipped)."""
    sources: dict[str, str] = {}
    for result in results:
        if result.findings and result.path not in sources:
            try:
                sources[result.path] = read_source(result.path)
            except InputError:
                pass
    return sources


def source_line(sources: Mapping[str, str] | None, path: str, line: int) -> str | None:
    """Line `line` (1-based) of file `path`, without its line ending, or None when unknown."""
    if not sources or path not in sources or line < 1:
        return None
    lines = split_lines(sources[path])
    return lines[line - 1] if line <= len(lines) else None


def statistics(results: Iterable[FileResult]) -> list[tuple[int, str, str]]:
    """(count, code, name) per rule with findings, most frequent first, then by code."""
    counts = Counter((f.code, f.name) for f in all_findings(results))
    return sorted(((n, code, name) for (code, name), n in counts.items()), key=lambda row: (-row[0], row[1]))


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


__all__ = ["FORMATS", "all_findings", "load_sources", "render", "source_line", "statistics"]
