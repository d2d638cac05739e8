"""Built-in fixes: apply the edits that findings carry (`Finding.fix.edits`) to a file's text.

Positions are those of `cudalint.findings.Edit`: 1-based line and column in the input file, the end
exclusive; a column counts characters of its line (column len(line) + 1 is the end of the line, and
(last line + 1, 1) the end of a file that ends in a newline).

`apply_fixes` only edits text. A fix is all or nothing: its edits are applied together or not at all. The
findings are taken in position order; a fix whose edits overlap an edit already taken (or each other) is
skipped; two fixes making the identical edit share it. The edits taken are applied in one pass, in
position order, all positions being those of the original text; an insertion at the start of a replaced
range goes before the replacement.

`fix_source` is the checked version that `cudalint check --fix` and model-less `cudalint repair` use: it
lints, applies the fixes, and re-lints. A fix is kept only when the fixed text (1) has no more compile
errors (CL901) or Python syntax errors (CL400) than before, (2) is no longer reported for the fixed
finding (no finding of the same code on the lines the fixed finding maps to) and (3) has no new error
finding, except new error findings that carry a fix of their own (rounding a grid up can reveal an
unguarded access, whose guard the next pass adds). When all fixes together fail the check, each fix is
tried alone, in order, on top of the ones kept. Passes repeat until no fix is left to try, at most
`max_passes` times. The result is the text after the pass with the fewest error findings, then the fewest
warnings (the input, or the earliest such pass, on ties): fixes of later passes are undone, so a fix
whose revealed findings cannot be fixed in turn is not kept, and the result never has more error findings
than the input.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from cudalint.findings import Edit, Finding, Severity

PARSE_ERROR_CODES = frozenset({"CL901", "CL400"})

Linter = Callable[[str, str], list[Finding]]  # (text, path) -> findings


@dataclass
class EditOutcome:
    text: str
    applied: list[Finding] = field(default_factory=list)
    skipped: list[tuple[Finding, str]] = field(default_factory=list)  # (finding, why)
    edits: list[tuple[int, int, str]] = field(default_factory=list)  # applied edits as old-text offsets


class _Positions:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for index, ch in enumerate(text):
            if ch == "\n":
                self.starts.append(index + 1)

    def offset(self, line: int, column: int) -> int | None:
        """The offset of a 1-based (line, column), or None when it is outside the text."""
        if line < 1 or column < 1:
            return None
        if line > len(self.starts):
            return None
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)  # the line's "\n" or EOF
        if start + column - 1 > end:
            return None
        return start + column - 1

    def position(self, offset: int) -> tuple[int, int]:
        import bisect

        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def _conflicts(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    if a == b:
        return False
    (s1, e1, _), (s2, e2, _) = a, b
    if s1 < e2 and s2 < e1:
        return True
    if s1 == e1 == s2 == e2:  # two different insertions at one point: their order is unknown
        return True
    return (s1 == e1 and s2 < s1 < e2) or (s2 == e2 and s1 < s2 < e1)


def apply_fix_edits(text: str, findings: Iterable[Finding]) -> EditOutcome:
    """Apply the fixes of `findings` to `text`; see the module docstring for the rules."""
    positions = _Positions(text)
    taken: list[tuple[int, int, str]] = []
    outcome = EditOutcome(text)
    candidates = [f for f in findings if f.fix is not None and f.fix.edits]
    candidates.sort(key=lambda f: min((e.line, e.column) for e in f.fix.edits))
    for finding in candidates:
        edits: list[tuple[int, int, str]] = []
        problem = None
        for edit in finding.fix.edits:
            start = positions.offset(edit.line, edit.column)
            end = positions.offset(edit.end_line, edit.end_column)
            if start is None or end is None:
                problem = (f"edit {_where(edit)} is outside the file")
                break
            if end < start:
                problem = f"edit {_where(edit)} ends before it starts"
                break
            edits.append((start, end, edit.text))
        if problem is None and any(_conflicts(a, b) for i, a in enumerate(edits) for b in edits[i + 1:]):
            problem = "its edits overlap each other"
        if problem is None and any(_conflicts(a, b) for a in edits for b in taken):
            problem = "its edits overlap the fix of another finding"
        if problem is not None:
            outcome.skipped.append((finding, problem))
            continue
        taken.extend(e for e in edits if e not in taken)
        outcome.applied.append(finding)
    outcome.edits = sorted(taken, key=lambda e: (e[0], e[1]))
    pieces, position = [], 0  # joined once: a copy of the text per edit grows with the square of the size
    for start, end, replacement in outcome.edits:
        pieces += [text[position:start], replacement]
        position = end
    outcome.text = "".join(pieces) + text[position:]
    return outcome


def apply_fixes(text: str, findings: Iterable[Finding]) -> tuple[str, list[Finding]]:
    """The text with the fixes of `findings` applied, and the findings whose fixes were applied."""
    outcome = apply_fix_edits(text, findings)
    return outcome.text, outcome.applied


def _where(edit: Edit) -> str:
    return f"{edit.line}:{edit.column}-{edit.end_line}:{edit.end_column}"


def map_offset(offset: int, edits: Sequence[tuple[int, int, str]]) -> int:
    """Where the character at `offset` of the old text is in the new one (sorted, non-overlapping
    edits); a character inside a replaced range maps to the start of its replacement."""
    delta = 0
    for start, end, replacement in edits:
        if end <= offset:  # before it, or an insertion right at it: the character moves after the edit
            delta += len(replacement) - (end - start)
        elif start <= offset < end:
            return start + delta
        else:
            break
    return offset + delta


# -------------------------------------------------------------------------------------- checked fixing


@dataclass
class AppliedFix:
    finding: Finding  # as reported on the text of its pass
    pass_number: int  # 1 for fixes of the input's own findings


@dataclass
class FixReport:
    original: str
    text: str  # the text with every kept fix applied
    findings_before: list[Finding]
    findings_after: list[Finding]
    applied: list[AppliedFix] = field(default_factory=list)
    rejected: list[tuple[Finding, str]] = field(default_factory=list)  # fixes tried and not kept, and why
    passes: int = 0  # passes that kept at least one fix (before any was undone)

    @property
    def changed(self) -> bool:
        return self.text != self.original

    @property
    def unfixable(self) -> list[Finding]:
        """Findings left in the fixed text that carry no fix."""
        return [f for f in self.findings_after if f.fix is None or not f.fix.edits]


def default_linter(options=None) -> Linter:
    from cudalint.engine import lint_source

    def lint(text: str, path: str) -> list[Finding]:
        directory = os.path.dirname(os.path.abspath(path)) if os.path.exists(path) else None
        return lint_source(text, filename=path, options=options, directory=directory)

    return lint


def _errors_by_code(findings: Iterable[Finding]) -> Counter:
    return Counter(f.code for f in findings if f.severity == Severity.ERROR)


def _check(before: list[Finding], after: list[Finding], original: str, new_text: str,
           outcome: EditOutcome) -> dict[int, str]:
    """Problems of a fixed text, keyed by the index in `outcome.applied` of the fix to blame (-1: all)."""
    problems: dict[int, str] = {}
    parse_before = sum(1 for f in before if f.code in PARSE_ERROR_CODES)
    parse_after = [f for f in after if f.code in PARSE_ERROR_CODES]
    if len(parse_after) > parse_before:
        first = parse_after[0]
        problems[-1] = f"the fixed code does not parse ({first.code} at line {first.line}: {first.message})"
        return problems
    old, new = _Positions(original), _Positions(new_text)
    for index, finding in enumerate(outcome.applied):
        loc = finding.location
        start = old.offset(loc.line, loc.column)
        end = old.offset(loc.end_line, loc.end_column)
        if start is None:
            start = old.starts[min(max(loc.line, 1), len(old.starts)) - 1]
        end = start if end is None or end < start else end
        first_line = new.position(map_offset(start, outcome.edits))[0]
        last_line = new.position(map_offset(end, outcome.edits))[0]
        if any(f.code == finding.code and first_line <= f.line <= last_line for f in after):
            problems[index] = f"{finding.code} is still reported at line {first_line} after the fix"
    fixed_errors = _errors_by_code(outcome.applied)
    allowed = _errors_by_code(before) - fixed_errors
    grown = _errors_by_code(after) - allowed
    fixable = Counter(f.code for f in after if f.severity == Severity.ERROR and f.fix is not None and f.fix.edits)
    for code in sorted(grown):
        if fixable[code] < grown[code]:  # a new error that no fix of its own can take away in the next pass
            example = next(f for f in after if f.code == code and f.severity == Severity.ERROR
                           and (f.fix is None or not f.fix.edits))
            problems.setdefault(-1, f"the fix brings a new error that has no built-in fix: {code} at line "
                                    f"{example.line}: {example.message}")
            break
    return problems


def _score(findings: Iterable[Finding]) -> tuple[int, int]:
    findings = list(findings)
    return (sum(1 for f in findings if f.severity == Severity.ERROR),
            sum(1 for f in findings if f.severity == Severity.WARNING))


def fix_source(text: str, path: str, lint: Linter | None = None, max_passes: int = 10,
               unsafe: bool = False, findings: list[Finding] | None = None) -> FixReport:
    """Apply the checked built-in fixes to `text` (the content of `path`); see the module docstring. Fixes
    their rule marks unsafe (they can change what correct code does) only with `unsafe`. `findings`: the
    lint of `text`, when the caller has it (the fixes of pass 1 are then among these very objects)."""
    lint = lint or default_linter()
    findings = lint(text, path) if findings is None else findings
    report = FixReport(text, text, list(findings), list(findings))
    states: list[tuple[str, list[Finding], list[AppliedFix]]] = [(text, list(findings), [])]  # after each pass
    tried: set[tuple] = set()
    for pass_number in range(1, max_passes + 1):
        fixable = [f for f in findings
                   if f.fix is not None and f.fix.edits and (f.fix.safe or unsafe) and _key(f) not in tried]
        if not fixable:
            break
        outcome = apply_fix_edits(text, fixable)
        for finding, why in outcome.skipped:
            tried.add(_key(finding))
            report.rejected.append((finding, why))
        kept: list[Finding] = []
        after = lint(outcome.text, path) if outcome.applied else findings
        if outcome.applied and not _check(findings, after, text, outcome.text, outcome):
            kept = list(outcome.applied)
            new_text = outcome.text
        else:
            # one at a time, each on top of the ones kept so far
            new_text, after = text, findings
            for finding in outcome.applied:
                trial = apply_fix_edits(text, kept + [finding])
                if finding not in trial.applied:
                    report.rejected.append((finding, "its edits overlap the fix of another finding"))
                    continue
                trial_after = lint(trial.text, path)
                problems = _check(findings, trial_after, text, trial.text, trial)
                if problems:
                    index = trial.applied.index(finding)
                    report.rejected.append((finding, problems.get(index) or next(iter(problems.values()))))
                    continue
                kept.append(finding)
                new_text, after = trial.text, trial_after
        for finding in outcome.applied:
            tried.add(_key(finding))
        if not kept:
            break
        text, findings = new_text, after
        states.append((text, list(findings), states[-1][2] + [AppliedFix(f, pass_number) for f in kept]))
    # the result: the state after the pass with the fewest errors, then warnings; the earliest on ties
    best = min(range(len(states)), key=lambda i: (_score(states[i][1]), i))
    report.text, report.findings_after, report.applied = states[best]
    last = len(states) - 1
    for undone in states[-1][2][len(report.applied):]:
        if best == 0:
            why = "undone: the findings that the fixes brought could not all be fixed in turn"
        else:
            why = f"undone: the file lints worse after pass {last} than after pass {best}"
        report.rejected.append((undone.finding, why))
    report.passes = last
    return report


def carries_fix(finding: Finding) -> bool:
    return finding.fix is not None and bool(finding.fix.edits)


def fixability(text: str, path: str, findings: list[Finding], lint: Linter) -> dict[int, str]:
    """Which of `findings` (the lint of `text`) `fix_source` fixes, as `id(finding) -> "safe"` (by `--fix`) or
    `"unsafe"` (only by `--fix --unsafe-fixes`). A fix it would drop (the file would no longer parse, the
    finding would still be reported, ...) is not there: a finding is marked fixable only when it is."""
    marks: dict[int, str] = {}
    for unsafe in (False, True):
        if unsafe and not any(carries_fix(f) and not f.fix.safe for f in findings):
            break
        report = fix_source(text, path, lint, unsafe=unsafe, findings=findings)
        for applied in report.applied:
            if applied.pass_number == 1:
                marks.setdefault(id(applied.finding), "unsafe" if unsafe else "safe")
    return marks


def _key(finding: Finding) -> tuple:
    """Identifies a fix across passes: the code, the message and the edits' text (positions shift)."""
    return (finding.code, finding.message, tuple(e.text for e in finding.fix.edits) if finding.fix else ())


__all__ = ["AppliedFix", "EditOutcome", "FixReport", "Linter", "apply_fix_edits", "apply_fixes", "carries_fix",
           "default_linter", "fix_source", "fixability", "map_offset"]
