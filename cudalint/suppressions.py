"""Inline suppressions: `// cudalint: ignore[CODE,...]`, `ignore-next-line[...]`, `ignore-file[...]`
(`#` instead of `//` in Python). Without a code list a suppression covers every rule."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cudalint.findings import Finding, Location

_COMMENT = re.compile(
    r"(?://|#)\s*cudalint:\s*(?P<kind>ignore-next-line|ignore-file|ignore)\b(?:\[(?P<codes>[^\]]*)\])?"
)


@dataclass
class Suppression:
    kind: str  # "ignore", "ignore-next-line", "ignore-file"
    codes: tuple[str, ...]  # empty: every rule
    location: Location
    target_line: int | None  # None for ignore-file
    used_codes: set[str] = field(default_factory=set)

    def covers(self, finding: Finding) -> bool:
        if self.target_line is not None and finding.line != self.target_line:
            return False
        return not self.codes or any(finding.code == c or finding.name == c for c in self.codes)


def parse_suppressions(path: str, text: str) -> list[Suppression]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "cudalint:" not in line:
            continue
        for match in _COMMENT.finditer(line):
            kind = match.group("kind")
            codes = tuple(c.strip() for c in (match.group("codes") or "").split(",") if c.strip())
            target = {"ignore": number, "ignore-next-line": number + 1, "ignore-file": None}[kind]
            location = Location(path, number, match.start() + 1, number, match.end() + 1)
            found.append(Suppression(kind, codes, location, target))
    return found


def apply_suppressions(findings: list[Finding], suppressions: list[Suppression]) -> list[Finding]:
    kept = []
    for finding in findings:
        covering = [s for s in suppressions if s.covers(finding)]
        for suppression in covering:
            suppression.used_codes.add(finding.code)
        if not covering:
            kept.append(finding)
    return kept


def unused(suppression: Suppression, active_codes: set[str]) -> list[str]:
    """The codes of `suppression` that suppressed nothing, among rules that ran ("*" for a blanket one)."""
    if not suppression.codes:
        return [] if suppression.used_codes else ["*"]
    from cudalint.checks.registry import find_rule

    result = []
    for code in suppression.codes:
        rule = find_rule(code)
        if rule is None:
            result.append(code)  # names no rule at all
        elif rule.code in active_codes and rule.code not in suppression.used_codes:
            result.append(code)
    return result
