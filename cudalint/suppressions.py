"""Inline suppressions: `// cudalint: ignore[CODE,...]`, `ignore-next-line[...]`, `ignore-file[...]`, and
a range from `ignore-begin[...]` to `ignore-end` (`#` in Python, `/* ... */` too). Without a code list a
suppression covers every rule; the list takes what `--select` takes (codes, prefixes such as `CL2`,
names), in any case.

A range covers the lines from its `ignore-begin` through its `ignore-end`. An `ignore-end` closes the
latest open `ignore-begin` (with a code list, the latest one with the same list), so ranges nest. A begin
that no end closes, or an end with no begin to close, covers nothing and is reported (CL902), as clang-tidy
does with NOLINTBEGIN/NOLINTEND."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cudalint.checks.registry import all_rules, find_rule, matches
from cudalint.findings import Finding, Location

_COMMENT = re.compile(
    r"(?://|#|/\*)\s*cudalint:\s*(?P<kind>ignore-next-line|ignore-file|ignore-begin|ignore-end|ignore)\b"
    r"(?:\[(?P<codes>[^\]]*)\])?",
    re.IGNORECASE,
)


@dataclass
class Suppression:
    kind: str  # "ignore", "ignore-next-line", "ignore-file", "ignore-begin", "ignore-end" (an unmatched one)
    codes: tuple[str, ...] | None  # selectors; None (no list): every rule
    location: Location
    lines: tuple[int, int] | None  # the first and last line covered; None for the whole file
    used_codes: set[str] = field(default_factory=set)
    unmatched: str | None = None  # why a range's begin or end covers nothing

    def covers(self, finding: Finding) -> bool:
        if self.unmatched is not None:
            return False
        if self.lines is not None and not self.lines[0] <= finding.line <= self.lines[1]:
            return False
        if self.codes is None:
            return True
        rule_ = find_rule(finding.code)
        return rule_ is not None and any(matches(selector, rule_) for selector in self.codes)


def parse_suppressions(path: str, text: str) -> list[Suppression]:
    found = []
    open_ranges: list[Suppression] = []  # begins not closed yet, innermost last
    for number, line in enumerate(text.splitlines(), start=1):
        if "cudalint:" not in line.lower():
            continue
        for match in _COMMENT.finditer(line):
            kind = match.group("kind").lower()
            listed = match.group("codes")
            codes = None if listed is None else tuple(c.strip() for c in listed.split(",") if c.strip())
            location = Location(path, number, match.start() + 1, number, match.end() + 1)
            if kind == "ignore-end":
                begin = next((s for s in reversed(open_ranges) if listed is None or _same(s.codes, codes)), None)
                if begin is None:
                    found.append(Suppression(kind, codes, location, None, unmatched=(
                        "`ignore-end` without an open `ignore-begin`" + (" of the same codes" if listed else "")
                        + " above it: it ends nothing")))
                else:
                    open_ranges.remove(begin)
                    begin.lines = (begin.lines[0], number)
                continue
            lines = {"ignore": (number, number), "ignore-next-line": (number + 1, number + 1), "ignore-file": None,
                     "ignore-begin": (number, number)}[kind]
            found.append(Suppression(kind, codes, location, lines))
            if kind == "ignore-begin":
                open_ranges.append(found[-1])
    for begin in open_ranges:
        begin.unmatched = "`ignore-begin` without a matching `ignore-end` below it: it suppresses nothing"
    return found


def _same(a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> bool:
    return a is not None and b is not None and sorted(c.lower() for c in a) == sorted(c.lower() for c in b)


def apply_suppressions(findings: list[Finding], suppressions: list[Suppression]) -> list[Finding]:
    """The findings no suppression covers (each suppression records the codes it covered). Each finding is
    checked against the suppressions of its own line, the ranges open at it and the file-wide ones only,
    so that a file with many findings and comments is not checked all against all."""
    by_line: dict[int, list[Suppression]] = {}
    ranges, whole_file = [], []
    for suppression in suppressions:
        if suppression.unmatched is not None:
            continue
        if suppression.lines is None:
            whole_file.append(suppression)
        elif suppression.lines[0] == suppression.lines[1]:
            by_line.setdefault(suppression.lines[0], []).append(suppression)
        else:
            ranges.append(suppression)
    ranges.sort(key=lambda s: s.lines[0])
    covered: set[int] = set()
    active: list[Suppression] = []
    next_range = 0
    for index in sorted(range(len(findings)), key=lambda i: findings[i].line):
        finding = findings[index]
        while next_range < len(ranges) and ranges[next_range].lines[0] <= finding.line:
            active.append(ranges[next_range])
            next_range += 1
        active = [s for s in active if s.lines[1] >= finding.line]
        for suppression in by_line.get(finding.line, []) + active + whole_file:
            if suppression.covers(finding):
                suppression.used_codes.add(finding.code)
                covered.add(index)
    return [finding for index, finding in enumerate(findings) if index not in covered]


def problems(suppression: Suppression, active_codes: set[str]) -> list[str]:
    """What is wrong with `suppression` once the rules in `active_codes` ran: a range's begin or end left
    unmatched, an empty list, a name that is no rule, or codes (or, for a blanket one, anything at all) it
    suppressed nothing of."""
    if suppression.unmatched is not None:
        return [suppression.unmatched]
    if suppression.codes is None:
        return [] if suppression.used_codes else ["unused suppression of every rule: no such finding here"]
    if not suppression.codes:
        return ["an empty code list suppresses nothing (leave out the brackets to cover every rule)"]
    found = []
    for selector in suppression.codes:
        selected = [r for r in all_rules() if matches(selector, r)]
        if not selected:
            found.append(f"`{selector}` names no rule")
        elif any(r.code in active_codes for r in selected) and \
                not any(r.code in suppression.used_codes for r in selected):
            found.append(f"unused suppression of {selector}: no such finding here")
    return found
