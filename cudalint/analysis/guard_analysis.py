"""GuardAnalysis: the guards, memory accesses and provenance of every function of a program, cached.

`GuardAnalysis.of(program)` is the one instance per program; it computes, on first request and once per
function, its dominating conditions (`FunctionGuards`, `guards.py`), its memory accesses (`Access`,
`pointer_accesses.py`) and the provenance of its values (`ProvenanceAnalysis`, `provenance.py`).
"""

from __future__ import annotations

from cudalint.analysis.guards import FunctionGuards
from cudalint.analysis.pointer_accesses import Access, PointerAccessCollector
from cudalint.analysis.provenance import ProvenanceAnalysis
from cudalint.model import ir
from cudalint.model.program import Program


# ------------------------------------------------------------------------------------------- analysis


class GuardAnalysis:
    """Guards, accesses and provenance for every function of a program, computed on demand."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._guards: dict[int, FunctionGuards] = {}
        self._accesses: dict[int, list[Access]] = {}
        self._provenance: dict[int, ProvenanceAnalysis] = {}

    @staticmethod
    def of(program: Program) -> GuardAnalysis:
        return program.analysis(GuardAnalysis)

    def guards(self, function: ir.Function) -> FunctionGuards:
        key = id(function)
        if key not in self._guards:
            self._guards[key] = FunctionGuards(function, self.program.env(function))
        return self._guards[key]

    def accesses(self, function: ir.Function) -> list[Access]:
        key = id(function)
        if key not in self._accesses:
            self._accesses[key] = PointerAccessCollector(self.program, function, self.program.env(function)).collect()
        return self._accesses[key]

    def provenance(self, function: ir.Function) -> ProvenanceAnalysis:
        key = id(function)
        if key not in self._provenance:
            self._provenance[key] = ProvenanceAnalysis(self.program, function, self.guards(function))
        return self._provenance[key]
