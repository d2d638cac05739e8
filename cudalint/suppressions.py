"""Inline suppressions: `// cudalint: ignore[CODE,...]`, `ignore-next-line[...]`, `ignore-file[...]`, and
a range from `ignore-begin[...]` to `ignore-end` (`#` in Python, `/* ... */` too). Without a code list a
suppression covers every rule; the list takes what `--select` takes (codes, prefixes such as `CL2`,
names), in any case.

A range covers the lines from its `ignore-begin` through its `ignore-end`. An `ignore-end` closes the
latest open `ignore-begin` (with a code list, the latest one with the same list), so ranges nest. A begin
that no end closes, or an end with no begin to close, covers nothing and is reported (CL902), as clang-tidy
does with NOLINTBEGIN/NOLINTEND."""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field

from cudalint.checks.registry import all_rules, find_rule, matches
from cudalint.findings import Finding, Location
from cudalint.positions import split_lines
from cudalint.sources import SourceDocument

_COMMENT = re.compile(
    r"(?://|#|/\*)\s*cudalint:\s*(?P<kind>ignore-next-line|ignore-file|ignore-begin|ignore-end|ignore)\b"
    r"(?:\[(?P<codes>[^\]]*)\])?",
    re.IGNORECASE,
)

# findings no suppression comment hides, and why: an incomplete analysis (a file whose code was not all checked
# never passes, and the comments are the checked code's author's) and CL902 itself (reported after suppressions
# are applied)
UNSUPPRESSIBLE = {"CL900": "a file whose analysis did not complete never passes",
                  "CL904": "a file with code no rule checked never passes",
                  "CL902": "it reports the suppressions themselves"}


@dataclass
class Suppression:
    kind: str  # "ignore", "ignore-next-line", "ignore-file", "ignore-begin", "ignore-end" (an unmatched one)
    codes: tuple[str, ...] | None  # selectors; None (no list): every rule
    location: Location
    lines: tuple[int, int] | None  # the first and last line covered; None for the whole file
    used_codes: set[str] = field(default_factory=set)
    unmatched: str | None = None  # why a range's begin or end covers nothing

    def covers(self, finding: Finding) -> bool:
        if self.unmatched is not None or finding.code in UNSUPPRESSIBLE:
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
    for number, line in enumerate(split_lines(text), start=1):
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
        elif all(r.code in UNSUPPRESSIBLE for r in selected):
            found.append(f"`{selector}` cannot be suppressed: "
                         + "; ".join(UNSUPPRESSIBLE[r.code] for r in selected))
        elif any(r.code in active_codes for r in selected) and \
                not any(r.code in suppression.used_codes for r in selected):
            found.append(f"unused suppression of {selector}: no such finding here")
    return found


# ------------------------------------------------------------------------------------- adding suppressions


@dataclass
class AddedSuppressions:
    text: str  # the file with the suppressions inserted
    added: int  # suppression comments written or extended
    unplaced: list[int] = field(default_factory=list)  # lines no comment can be put on (inside a Python string)


def add_suppressions(document: SourceDocument, findings: list[Finding], reason: str = "") -> AddedSuppressions:
    """`document` with an `ignore[CODES]` comment on each line that has findings (its codes added to an
    `ignore[...]` already there), `reason` after the codes: in CUDA a `//` comment at the end of the line (a
    `/* */` one before a line-continuation backslash); in a Python file, inside the CUDA string for a line
    of embedded CUDA (a `/* */` comment where more CUDA follows on that line), else a `#` comment at the
    end of the Python line."""
    codes_by_line: dict[int, set[str]] = {}
    for finding in findings:
        if finding.code not in UNSUPPRESSIBLE and finding.path == document.path:
            codes_by_line.setdefault(finding.line, set()).add(finding.code)
    lines = split_lines(document.text, keepends=True)
    ends = _cuda_line_ends(document) if document.kind == "python" else {}
    strings = _python_string_lines(document.text) if document.kind == "python" else set()
    result = AddedSuppressions(document.text, 0)
    for number, codes in sorted(codes_by_line.items()):
        if not 1 <= number <= len(lines):
            continue
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        merged = _merged(body, codes)
        if merged is not None:
            lines[number - 1] = merged + line[len(body):]
        elif document.kind == "cuda" or number in ends:
            column, block = ends.get(number, (len(body) - 1 if body.endswith("\\") else len(body),
                                              body.endswith("\\")))
            comment = _comment(codes, reason, "/*" if block else "//")
            lines[number - 1] = line[:column] + comment + line[column:]
        elif number in strings or body.endswith("\\"):
            result.unplaced.append(number)
            continue
        else:
            lines[number - 1] = body + "  " + _comment(codes, reason, "#").lstrip() + line[len(body):]
        result.added += 1
    result.text = "".join(lines)
    return result


def checked_suppressions(document: SourceDocument, findings: list[Finding], reason: str,
                         lint: Callable[[str, str], list[Finding]]) -> AddedSuppressions | None:
    """`add_suppressions`, kept only when the file re-lints (`lint(text, path)`) with no finding left but on
    the lines no comment could be put on and no new unused suppression (CL902) or incomplete analysis: a
    comment that is not honoured, or that breaks the code, is never written. None when it is not kept."""
    added = add_suppressions(document, findings, reason)
    if not added.added:
        return added
    after = lint(added.text, document.path)
    unused = sum(f.code == "CL902" for f in findings)
    if any(f.code == "CL900" for f in after) or sum(f.code == "CL902" for f in after) > unused:
        return None
    if any(f.code not in UNSUPPRESSIBLE and f.line not in added.unplaced for f in after):
        return None
    return added


def _comment(codes: set[str], reason: str, opener: str) -> str:
    text = f"cudalint: ignore[{', '.join(sorted(codes))}]" + (f" {reason}" if reason else "")
    return f" /* {text} */" if opener == "/*" else f" {opener} {text}"


def _merged(line: str, codes: set[str]) -> str | None:
    """`line` with `codes` added to its `ignore[...]` suppression; None when it has none with a code list."""
    for match in _COMMENT.finditer(line):
        if match.group("kind").lower() == "ignore" and match.group("codes") is not None:
            listed = [c.strip() for c in match.group("codes").split(",") if c.strip()]
            known = {c.upper() for c in listed}
            joined = ", ".join(listed + sorted(c for c in codes if c not in known))
            start, end = match.span("codes")
            return line[:start] + joined + line[end:]
    return None


def _cuda_line_ends(document: SourceDocument) -> dict[int, tuple[int, bool]]:
    """For each line of the Python file that holds embedded CUDA: the 0-based column after the CUDA text of
    that line (before its newline, raw or escaped), and whether more CUDA follows on the same file line
    (the comment must then be a `/* */` one)."""
    lines = split_lines(document.text, keepends=True)
    found: dict[int, tuple[int, bool]] = {}
    for unit in document.units:
        positions = unit.char_positions
        if positions is None:
            continue
        last: dict[int, int] = {}  # file line -> index of the unit's last character on it
        bounds = positions.starts[1:] + [len(positions)]
        for start, end, (line, _) in zip(positions.starts, bounds, positions.places):
            last[line] = max(last.get(line, -1), end - 1)
        for line, index in last.items():
            file_line = lines[line - 1] if line <= len(lines) else ""
            column = positions[index][1] - 1  # 0-based column of the character in the file
            newline = unit.text[index] == "\n"
            escaped = file_line[column:column + 1] == "\\"
            if newline and index > 0 and unit.text[index - 1] == "\\" and positions[index - 1][0] == line:
                found[line] = (positions[index - 1][1] - 1, True)  # before a CUDA line continuation
            elif newline:
                found[line] = (column, escaped)  # before the newline; an escaped one has CUDA after it on the line
            else:  # the string ends on this line (or goes on in another literal): after the character
                found[line] = (column + _escape_length(file_line, column), True)
    return found


def _escape_length(line: str, column: int) -> int:
    """The length in the file of the string character at `column`: 1, or its escape sequence's."""
    if line[column:column + 1] != "\\":
        return 1
    from cudalint.string_resolver import _ESCAPE

    escaped = _ESCAPE.match(line, column + 1)
    return 1 + (len(escaped.group(0)) if escaped else 1)


def _python_string_lines(text: str) -> set[int]:
    """Lines of a Python file whose end is inside a string (a multi-line string token). Where the tokenizer
    stops (an unterminated string or bracket), the lines from there on count as such: nothing tells."""
    found: set[int] = set()
    multi_line = (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING))
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in multi_line and token.end[0] > token.start[0]:
                found.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError) as error:
        stopped = error.args[1][0] if isinstance(error, tokenize.TokenError) else (error.lineno or 1)
        found.update(range(stopped, text.count("\n") + 2))
    return found
