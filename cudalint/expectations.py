"""Expectation markers in fixture and corpus files (semgrep style, on the line before):
`// expect: CL201, CL202` in CUDA (also inside a .py's CUDA strings), `# expect: CL400` in Python."""

from __future__ import annotations

import re

_MARKER = re.compile(r"^\s*(?://|#)\s*expect:\s*(CL\d{3}(?:\s*,\s*CL\d{3})*)\s*$")


def expected_findings(text: str) -> set[tuple[int, str]]:
    """(line, code) pairs the file's markers expect; a marker labels the next line that is not a marker."""
    expected: set[tuple[int, str]] = set()
    pending: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _MARKER.match(line)
        if match:
            pending += [c.strip() for c in match.group(1).split(",")]
            continue
        for code in pending:
            expected.add((number, code))
        pending = []
    return expected
