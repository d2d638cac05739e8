"""Inline suppressions: `// cudalint: ignore[CODE,...]`, `ignore-next-line[...]`, `ignore-file[...]`
(`#` in Python, `/* ... */` too). Without a code list a suppression covers every rule; the list takes
what `--select` takes (codes, prefixes such as `CL2`, names), in any case."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cudalint.checks.registry import all_rules, find_rule, matches
from cudalint.findings import Finding, Location

_COMMENT = re.compile(
    r"(?://|#|/\*)\s*cudalint:\s*(?P<kind>ignore-next-line|ignore-file|ignore)\b(?:\[(?P<codes>[^\]]*)\])?",
    re.IGNORECASE,
)


@dataclass
class Suppression:
    kind: str  # "ignore", "ignore-next-line", "ignore-file"
    codes: tuple[str, ...] | None  # selectors; None (no list): every rule
    location: Location
    target_line: int | None  # None for ignore-file
    used_codes: set[str] = field(default_factory=set)

    def covers(self, finding: Finding) -> bool:
        if self.target_line is not None and finding.line != self.target_line:
            return False
        if self.codes is None:
            return True
        rule_ = find_rule(finding.code)
        return rule_ is not None and any(matches(selector, rule_) for selector in self.codes)


def parse_suppressions(path: str, text: str) -> list[Suppression]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "cudalint:" not in line.lower():
            continue
        for match in _COMMENT.finditer(line):
            kind = match.group("kind").lower()
            listed = match.group("codes")
            codes = None if listed is None else tuple(c.strip() for c in listed.split(",") if c.strip())
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


def problems(suppression: Suppression, active_codes: set[str]) -> list[str]:
    """What is wrong with `suppression` once the rules in `active_codes` ran: an empty list, a name that
    is no rule, or codes (or, for a blanket one, anything at all) it suppressed nothing of."""
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
