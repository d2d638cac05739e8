"""The unit-wide indexes of `Program` (built once so that lint time stays linear in the file's size) give
exactly what a scan of the whole unit gives, on every corpus CUDA file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cudalint.frontend import lower_unit
from cudalint.model import ir
from cudalint.model.program import build_program
from cudalint.positions import with_lines
from cudalint.sources import CudaUnit

CORPUS = sorted((Path(__file__).resolve().parents[1] / "corpus" / "cu").rglob("*.cu"))


@pytest.mark.parametrize("path", CORPUS[::4], ids=lambda p: p.name)
def test_indexes_equal_scans_of_the_unit(path: Path) -> None:
    unit = CudaUnit(path.name, path.read_text(), "cuda", "file")
    lowered = lower_unit(unit)
    program = build_program(unit, lowered.functions, lowered.globals)
    assert program.shared_by_ref == {s.decl.ref: s for s in program.shared_arrays if s.decl.ref}
    assert program.globals_by_ref == {g.ref: g for g in program.globals if g.ref}
    for function in program.functions:
        reachable = program.reachable_functions(function)
        assert program.shared_arrays_of(function) == [s for s in program.shared_arrays if s.function in reachable]
        assert program.kernels_reaching(function) == [k for k in program.kernels
                                                       if function in program.reachable_functions(k)]
        assert program.launches_of(function.name) == [s for s in program.launches if s.kernel_name == function.name]
        assert program.calls_to(function.name) == [
            (caller, node) for caller in program.functions if caller.body is not None
            for node in caller.of_type(ir.Call) if node.receiver is None and node.callee == function.name]
    assert unit.lines == unit.text.splitlines()


def test_with_lines_numbers_each_match_by_its_first_line() -> None:
    text = "a\n#define X 1\n\n  #define Y 2\n#define Z 3"
    found = [(m.group(1), line) for m, line in with_lines(re.finditer(r"#define (\w)", text), text)]
    assert found == [("X", 2), ("Y", 4), ("Z", 5)]
