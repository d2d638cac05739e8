"""benchmarks/symbolic_engines.py: capturing the product's feasibility questions and comparing engines on
them, with the shipped Omega test alone (z3 and islpy are not dependencies)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cudalint.analysis import conflicts, omega
from tests.benchmark_scripts import load_script

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
RACY = ("py/transpose/transpose_missing_sync.py", "py/scan/cumsum_missing_sync.py")


@pytest.fixture(scope="module")
def bench():
    return load_script("symbolic_engines")


@pytest.fixture(scope="module")
def sources(bench):
    chosen = [s for s in bench.corpus_sources(str(CORPUS)) if s.filename in RACY]
    assert len(chosen) == len(RACY)
    return chosen


def test_capture_records_every_call_and_the_shipped_answers(bench, sources) -> None:
    shipped = conflicts.feasible
    capture = bench.lint_all(sources, shipped)
    assert conflicts.feasible is shipped  # the wrapper is gone after the lint
    assert capture.calls >= len(capture.answers) > 0
    for key, answer in capture.answers.items():
        assert conflicts.feasible(bench.constraints_of(key)) is answer
    assert all(any(f[0] == "CL101" for f in capture.findings[s.label]) for s in sources)

    systems = list(capture.answers)
    run, = bench.solve_all([("Omega test", bench.omega)], systems)
    assert run.answers == capture.answers
    assert len(run.times) == len(systems)
    assert run.count(True) + run.count(False) + run.count(None) == len(systems)
    assert bench.disagreements([run, run]) == []


def test_an_engine_that_decides_nothing_changes_the_race_verdicts(bench, sources) -> None:
    shipped = bench.lint_all(sources, conflicts.feasible)
    undecided = bench.lint_all(sources, lambda constraints: None)
    changed = bench.changed_findings(shipped, undecided)
    assert {label for label, _, _ in changed} == {s.label for s in sources}
    assert all(any(f[0] == "CL101" for f in gone) for _, gone, _ in changed)
    assert bench.changed_findings(shipped, shipped) == []


def test_interleaved_lints_give_each_engine_every_file(bench, sources) -> None:
    captures = bench.lint_interleaved(sources, [("shipped", conflicts.feasible), ("cold", bench.memoized(bench.omega))])
    shipped, cold = captures["shipped"], captures["cold"]
    assert set(shipped.lint_ms) == set(cold.lint_ms) == {s.label for s in sources}
    assert shipped.calls == cold.calls > 0
    assert bench.changed_findings(shipped, cold) == []


def test_disagreements_name_the_engines_that_decided_differently(bench) -> None:
    key = bench.system_key([({"x": 1, "y": 0}, -1, False)])
    assert key == bench.system_key([({"x": 1}, -1, False)])
    runs = [bench.EngineRun("a", {key: True}, [0.1]), bench.EngineRun("b", {key: False}, [0.2]),
            bench.EngineRun("c", {key: None}, [0.3])]
    assert bench.disagreements(runs) == [(key, {"a": True, "b": False, "c": None})]
    assert bench.disagreements(runs[:1] + runs[2:]) == []
    assert bench.describe(key) == "x - 1 >= 0"


def test_libraries_not_installed_are_left_out(bench, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "z3", None)
    monkeypatch.setitem(sys.modules, "islpy", None)
    assert bench.z3_engine(100) is None
    assert bench.isl_engine(1000) is None


def test_fallback_asks_the_second_engine_only_when_the_first_is_undecided(bench) -> None:
    asked = []

    def second(constraints):
        asked.append(constraints)
        return False

    assert bench.with_fallback(lambda c: True, second)([]) is True
    assert asked == []
    assert bench.with_fallback(lambda c: None, second)([]) is False
    assert len(asked) == 1
    remembered = bench.memoized(second)
    system = [({"x": 1}, 0, False)]
    assert remembered(system) is False and remembered(list(system)) is False
    assert len(asked) == 2


@pytest.mark.parametrize("library, make", [("z3", lambda b: b.z3_engine(2000)),
                                           ("islpy", lambda b: b.isl_engine(5_000_000))])
def test_library_engines_answer_over_the_integers(bench, library, make) -> None:
    pytest.importorskip(library)
    engine = make(bench)
    x, y = omega.Lin.var("x"), omega.Lin.var("y")
    # Pugh's example: rational solutions, no integer one
    shadows = [omega.ge(x.scale(11) + y.scale(13) - omega.Lin.of(27)),
               omega.ge(omega.Lin.of(45) - x.scale(11) - y.scale(13)),
               omega.ge(x.scale(7) - y.scale(9) + omega.Lin.of(10)),
               omega.ge(omega.Lin.of(4) - x.scale(7) + y.scale(9))]
    assert engine(shadows) is False
    assert engine(shadows[:2]) is True
    assert engine([omega.eq(x.scale(2) - y.scale(2) - omega.Lin.of(1))]) is False
