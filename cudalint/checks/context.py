"""What a rule sees: the document, the unit's kernel model, options, and a way to make findings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cudalint.archs import Architecture
from cudalint.findings import Finding, Fix, Location, RelatedLocation
from cudalint.frontend import LoweredUnit
from cudalint.model import ir
from cudalint.model.program import Program
from cudalint.sources import CudaUnit, SourceDocument
from cudalint.checks.registry import Rule
from cudalint.dryrun.facts import DryRunFacts

if TYPE_CHECKING:
    from cudalint.config import LintOptions


@dataclass
class UnitFacts:
    """Everything known about one parsed unit, built once and shared by all rules."""

    unit: CudaUnit
    lowered: LoweredUnit  # what the frontend made of the unit: diagnostics, code in the IR
    program: Program


@dataclass
class RuleContext:
    rule: Rule
    document: SourceDocument
    arch: Architecture
    facts: UnitFacts | None = None  # set for unit-scope rules
    options: LintOptions | None = None  # the options of this run (reference problem, ...)
    harness: DryRunFacts | None = None  # what the dry run observed; None when it did not run

    @property
    def observed(self) -> DryRunFacts | None:
        """The dry run's facts when it completed: what rules may take as proof; None otherwise."""
        return self.harness if self.harness is not None and self.harness.completed else None

    @property
    def program(self) -> Program:
        assert self.facts is not None
        return self.facts.program

    def location(self, span: ir.Span, unit: CudaUnit | None = None) -> Location:
        unit = unit or (self.facts.unit if self.facts else None)
        if unit is None:
            return Location(self.document.path, span.line, span.column, span.end_line, span.end_column)
        start = unit.to_file(span.line, span.column)
        end = unit.to_file(span.end_line, max(span.end_column - 1, 1))
        end_column = end.column + 1 if (span.end_line, span.end_column) != (span.line, span.column) else end.column
        return Location(self.document.path, start.line, start.column, max(end.line, start.line), end_column)

    def finding(self, span: ir.Span, message: str, related: list[tuple[ir.Span, str]] = (),
                fix: Fix | None = None) -> Finding:
        return Finding(
            self.rule.code, self.rule.name, self.rule.severity, self.location(span), message,
            tuple(RelatedLocation(self.location(s), m) for s, m in related), fix,
        )

    def finding_at(self, location: Location, message: str) -> Finding:
        return Finding(self.rule.code, self.rule.name, self.rule.severity, location, message)
