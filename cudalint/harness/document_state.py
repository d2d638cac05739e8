"""What the harness rules share about the document being linted (`state_of`): the solution, its forward
flow, the parsed CUDA units seen so far (`record_unit`), its reference problem (`reference_of`) and what that
reference's forward computes (`reference_operations`).
"""

from __future__ import annotations

import os
from functools import lru_cache

from cudalint.harness.forward import ForwardFlow
from cudalint.harness.kernelbench import RunEntry, Solution, parse_solution, problem_of_path
from cudalint.harness.statements import statements_in_order
from cudalint.harness.torch_compute import _CONTAINER_MODULES


class DocumentState:
    """What the harness rules share about the document being linted: the solution, its forward flow,
    and the parsed CUDA units seen so far (unit-scope rules collect them, one call per unit)."""

    def __init__(self, document) -> None:
        self.document = document
        self.units: list = []  # UnitFacts, in document order
        self.cache: dict = {}
        self._solution: Solution | None = None
        self._flow: ForwardFlow | None = None
        self._recorded: set[int] = set()  # ids of `units`: each rule records each unit
        self._by_text: dict[tuple[str, str], object] = {}  # (text, language) -> the first unit of `units`
        self._by_text_count = 0  # how many of `units` `_by_text` holds

    def record(self, facts) -> None:
        if id(facts) not in self._recorded:
            self._recorded.add(id(facts))
            self.units.append(facts)

    def unit_with_text(self, text: str, language: str):
        """The first recorded unit (UnitFacts) of that text and language, or None."""
        for facts in self.units[self._by_text_count:]:
            self._by_text.setdefault((facts.unit.text, facts.unit.language), facts)
        self._by_text_count = len(self.units)
        return self._by_text.get((text, language))

    @property
    def solution(self) -> Solution | None:
        document = self.document
        if document.kind != "python" or document.python_module is None:
            return None
        if self._solution is None:
            self._solution = parse_solution(document.python_module, document.text, document.path)
        return self._solution

    @property
    def flow(self) -> ForwardFlow | None:
        if self._flow is None and self.solution is not None:
            self._flow = ForwardFlow(self.solution)
        return self._flow


def state_of(document) -> DocumentState:
    return document.analysis(DocumentState)


def record_unit(ctx) -> tuple[DocumentState, bool]:
    """Record the unit a unit-scope rule is looking at; returns the state and whether this is the
    document's last unit (then every unit that parsed has been recorded)."""
    state = state_of(ctx.document)
    facts = ctx.facts
    state.record(facts)
    return state, facts.unit is ctx.document.units[-1]


def reference_of(ctx):
    """The reference problem of the document being linted: `options.reference`, else the problem found
    in `options.problems` by the file's run-directory name, else the `get_inputs` of the file itself;
    None when none is known."""
    from cudalint.harness.kernelbench import parse_reference, reference_for, reference_from_module

    state = state_of(ctx.document)
    if "reference" not in state.cache:
        options = ctx.options
        found = None
        path = reference_for(ctx.document.path, getattr(options, "reference", None),
                             getattr(options, "problems", None))
        if path is not None:
            found = parse_reference(path)
        if found is None and ctx.document.python_module is not None:
            found = reference_from_module(ctx.document.python_module, ctx.document.path)
        state.cache["reference"] = found
    return state.cache["reference"]


def problem_of(ctx) -> RunEntry | None:
    """The KernelBench level and problem of the document being linted: from its reference's path when a
    reference is known, else from the document's own path; None when neither names a level."""
    reference = reference_of(ctx)
    for path in (reference.path if reference is not None else None, ctx.document.path):
        entry = problem_of_path(path) if path else None
        if entry is not None:
            return entry
    return None


def reference_operations(ctx) -> frozenset[str] | None:
    """The torch operations (`Typing.operation` names) the reference's `Model.forward` computes; None
    without a reference file, or when forward reaches something whose operations cannot be named (a
    torch container, a call that cannot be followed)."""
    reference = reference_of(ctx)
    if reference is None or os.path.abspath(reference.path) == os.path.abspath(ctx.document.path):
        return None
    try:
        mtime = os.path.getmtime(reference.path)
    except OSError:
        return None
    return _reference_operations(os.path.abspath(reference.path), mtime)


@lru_cache(maxsize=64)
def _reference_operations(path: str, mtime: float) -> frozenset[str] | None:
    from cudalint.harness.kernelbench import read_python

    parsed = read_python(path, mtime)
    if parsed is None:
        return None
    module, text = parsed
    solution = parse_solution(module, text, path)
    model = solution.classes.get("Model")
    flow = ForwardFlow(solution, model) if model is not None else None
    if flow is None or flow.forward is None or flow.unresolved_calls() or any(
            kind in _CONTAINER_MODULES for kind in flow.attr_torch_modules.values()):
        return None
    found = set()
    for info in flow.functions:
        typing = flow.typing(info)
        for statement in statements_in_order(info.node):
            found.update(typing.operation(node) for node in typing.compute_nodes(statement))
    return frozenset(found) or None
