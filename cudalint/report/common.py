"""What the report formats share: the findings of the results in order, their counts per rule, and the
source lines they show.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from cudalint.engine import FileResult, InputError, read_source
from cudalint.findings import Finding
from cudalint.positions import split_lines


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
