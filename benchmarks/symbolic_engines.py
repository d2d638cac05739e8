"""The feasibility questions cudalint asks while linting, answered by its Omega test, by z3 and by isl (issue #21).

    python benchmarks/symbolic_engines.py [--corpus corpus] [--runs ../shared/data/realkernels] [--gv /tmp/gv]
                                          [--timeout-ms 2000] [--verdicts] [--lint-speed]

Every call the product makes to `conflicts.feasible` (the Omega test of `omega.py`, under the name the
conflict test's `decide` calls) during a lint of the given files is captured (the function is wrapped in
this process only) and the systems are deduplicated. Each unique system is then
solved cold by the Omega test as shipped (its memo cleared first), by z3 (QF_LIA, `--timeout-ms` per
query) and by isl (islpy: one BasicSet, `is_empty()`, with a bound on its operations), and the table
gives, per engine: systems decided feasible / infeasible, undecided (budget, timeout), disagreements with
the other engines (each listed), and time per query. An engine that is not installed is reported as such
and left out.

`--verdicts` lints the same files again with the Omega test's undecided answers decided by z3 (then by
isl), and counts the findings that change: whether exactness matters to a rule's verdict. `--lint-speed`
lints each file once more with each installed library (memoized, as a product would) in place of the
Omega test and compares the per-file lint time and the findings.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from cudalint.analysis import conflicts  # noqa: E402
from cudalint.analysis import omega as omega_test  # noqa: E402
from cudalint.config import LintOptions  # noqa: E402
from cudalint.engine import lint_source  # noqa: E402
from cudalint.evaluation.corpus import load_corpus  # noqa: E402
from cudalint.evaluation.run import percentile  # noqa: E402
from cudalint.evaluation.runs import load_labels  # noqa: E402
from gpuverify_races import kernels as gpuverify_kernels  # noqa: E402
from gpuverify_races import with_launch  # noqa: E402

Answer = bool | None
Engine = Callable[[list[omega_test.Constraint]], Answer]
SystemKey = frozenset


@dataclasses.dataclass(frozen=True)
class Source:
    """One file to lint: a name for the tables, its text, and the options the product's evaluation uses."""

    label: str
    text: str
    filename: str
    options: LintOptions


def system_key(constraints: Iterable[omega_test.Constraint]) -> SystemKey:
    """The system as a set of constraints with their zero coefficients dropped: equal keys, equal systems."""
    return frozenset((tuple(sorted((v, a) for v, a in c.items() if a)), k, is_eq) for c, k, is_eq in constraints)


def constraints_of(key: SystemKey) -> list[omega_test.Constraint]:
    return [(dict(coeffs), k, is_eq) for coeffs, k, is_eq in key]


# ------------------------------------------------------------------------------------------------ sources


def corpus_sources(root: str) -> list[Source]:
    return [Source(f"corpus/{c.path}", c.text, c.path, LintOptions()) for c in load_corpus(root)]


def runs_sources(root: str) -> list[Source]:
    """The development set's kernels, each with its reference problem and architecture as `cudalint eval
    --runs` lints them."""
    out = []
    for kernel in load_labels(root):
        options = dataclasses.replace(LintOptions(), arch=kernel.arch or LintOptions().arch,
                                      reference=kernel.reference)
        out.append(Source(f"runs/{kernel.path}", Path(kernel.file).read_text(encoding="utf-8"), kernel.file, options))
    return out


def gpuverify_sources(root: str) -> list[Source]:
    return [Source(f"gv/{p.name}", with_launch(p.read_text(encoding="utf-8", errors="replace")), p.name, LintOptions())
            for p in gpuverify_kernels(Path(root))]


# ---------------------------------------------------------------------------------------------- capture


@dataclasses.dataclass
class Capture:
    """The feasibility calls made while linting: how many, the unique systems, the shipped engine's answer
    to each (as the lint got it, memo included), and each file's findings and lint time."""

    calls: int = 0
    answers: dict[SystemKey, Answer] = dataclasses.field(default_factory=dict)
    findings: dict[str, list[tuple]] = dataclasses.field(default_factory=dict)
    lint_ms: dict[str, float] = dataclasses.field(default_factory=dict)
    solver_ms: dict[str, float] = dataclasses.field(default_factory=dict)


@contextmanager
def engine_in_place(engine: Engine) -> Iterator[None]:
    """`conflicts.feasible` replaced by `engine` while the block runs (`decide` looks it up at each call)."""
    shipped = conflicts.feasible
    conflicts.feasible = engine
    try:
        yield
    finally:
        conflicts.feasible = shipped


def finding_key(finding) -> tuple:
    return (finding.code, finding.line, finding.message)


def lint_all(sources: list[Source], engine: Engine, capture: Capture | None = None) -> Capture:
    """Lint every source with `engine` answering the feasibility questions, recording each question (into
    `capture`, when given)."""
    capture = capture if capture is not None else Capture()
    current = [""]

    def recording(constraints):
        constraints = list(constraints)
        start = time.perf_counter()
        answer = engine(constraints)
        capture.solver_ms[current[0]] += (time.perf_counter() - start) * 1000
        capture.calls += 1
        capture.answers.setdefault(system_key(constraints), answer)
        return answer

    with engine_in_place(recording):
        for source in sources:
            current[0] = source.label
            capture.solver_ms[source.label] = 0.0
            start = time.perf_counter()
            findings = lint_source(source.text, filename=source.filename, options=source.options)
            capture.lint_ms[source.label] = (time.perf_counter() - start) * 1000
            capture.findings[source.label] = sorted(finding_key(f) for f in findings)
    return capture


def lint_interleaved(sources: list[Source], engines: list[tuple[str, Engine]]) -> dict[str, Capture]:
    """`lint_all` with each engine, file by file in turn, so that a shared machine's changing load falls on
    every engine alike."""
    captures = {name: Capture() for name, _ in engines}
    for source in sources:
        for name, engine in engines:
            lint_all([source], engine, captures[name])
    return captures


# ----------------------------------------------------------------------------------------------- engines


SHIPPED = conflicts.feasible  # taken before any lint here puts a wrapper in its place


def omega(constraints: list[omega_test.Constraint]) -> Answer:
    """The shipped Omega test, cold: its memo cleared so that the time is the solving, not a look-up."""
    omega_test._MEMO.clear()
    return SHIPPED(constraints)


def z3_engine(timeout_ms: int) -> Engine | None:
    """z3 over the integers (QF_LIA), unknown (a timeout) as None; None when z3 is not installed."""
    try:
        import z3
    except ImportError:
        return None

    def solve(constraints: list[omega_test.Constraint]) -> Answer:
        solver = z3.SolverFor("QF_LIA")
        solver.set("timeout", timeout_ms)
        variables: dict[str, z3.ArithRef] = {}
        for coeffs, k, is_eq in constraints:
            terms = [a * variables.setdefault(v, z3.Int(f"v{len(variables)}")) for v, a in coeffs.items() if a]
            total = z3.Sum(terms) + k if terms else z3.IntVal(k)
            solver.add(total == 0 if is_eq else total >= 0)
        result = solver.check()
        return True if result == z3.sat else False if result == z3.unsat else None

    return solve


def isl_engine(max_operations: int) -> Engine | None:
    """isl (islpy): the constraints as one integer BasicSet, empty or not; None when islpy is not installed.
    Past `max_operations` isl stops with an error, taken as undecided."""
    try:
        import islpy as isl
    except ImportError:
        return None
    context = isl.Context()
    context.set_max_operations(max_operations)
    context.set_on_error(isl.on_error.CONTINUE)

    def solve(constraints: list[omega_test.Constraint]) -> Answer:
        names: dict[str, str] = {}
        for coeffs, _, _ in constraints:
            for v in coeffs:
                names.setdefault(v, f"v{len(names)}")
        context.reset_operations()  # the limit counts per query
        try:
            space = isl.Space.create_from_names(context, set=list(names.values()))
            basic = isl.BasicSet.universe(space)
            for coeffs, k, is_eq in constraints:
                row = {names[v]: a for v, a in coeffs.items() if a}
                row[1] = k
                make = isl.Constraint.eq_from_names if is_eq else isl.Constraint.ineq_from_names
                basic = basic.add_constraint(make(space, row))
            return not basic.is_empty()
        except isl.Error:
            return None

    return solve


def memoized(engine: Engine) -> Engine:
    """`engine` with answers remembered per system, as the Omega test remembers its own."""
    memo: dict[SystemKey, Answer] = {}

    def solve(constraints: list[omega_test.Constraint]) -> Answer:
        key = system_key(constraints)
        if key not in memo:
            memo[key] = engine(constraints_of(key))
        return memo[key]

    return solve


def with_fallback(first: Engine, second: Engine) -> Engine:
    """`first`'s answer, or `second`'s where `first` is undecided."""

    def solve(constraints: list[omega_test.Constraint]) -> Answer:
        answer = first(constraints)
        return second(constraints) if answer is None else answer

    return solve


# ----------------------------------------------------------------------------------------------- compare


@dataclasses.dataclass
class EngineRun:
    """One engine's answers to the unique systems, and the time each took (ms)."""

    name: str
    answers: dict[SystemKey, Answer]
    times: list[float]

    def count(self, answer: Answer) -> int:
        return sum(1 for a in self.answers.values() if a is answer)


def solve_all(engines: list[tuple[str, Engine]], systems: list[SystemKey]) -> list[EngineRun]:
    """Each system solved by each engine in turn (a shared machine's changing load falls on all alike)."""
    runs = [EngineRun(name, {}, []) for name, _ in engines]
    for key in systems:
        for run, (_, engine) in zip(runs, engines):
            constraints = constraints_of(key)
            start = time.perf_counter()
            run.answers[key] = engine(constraints)
            run.times.append((time.perf_counter() - start) * 1000)
    return runs


def disagreements(runs: list[EngineRun]) -> list[tuple[SystemKey, dict[str, Answer]]]:
    """The systems two engines decided differently (True against False)."""
    out = []
    for key in runs[0].answers:
        decided = {r.name: r.answers[key] for r in runs if r.answers[key] is not None}
        if len(set(decided.values())) > 1:
            out.append((key, {r.name: r.answers[key] for r in runs}))
    return out


def changed_findings(before: Capture, after: Capture) -> list[tuple[str, list[tuple], list[tuple]]]:
    """Per file whose findings differ: (file, findings only before, findings only after)."""
    out = []
    for label, old in before.findings.items():
        new = after.findings.get(label, [])
        if old != new:
            out.append((label, sorted(set(old) - set(new)), sorted(set(new) - set(old))))
    return out


def describe(key: SystemKey) -> str:
    def term(a: int, v: str) -> str:
        return v if a == 1 else f"-{v}" if a == -1 else f"{a}*{v}"

    rows = []
    for coeffs, k, is_eq in sorted(key, key=repr):
        text = " + ".join(term(a, v) for v, a in coeffs)
        rows.append(f"{text} {'+' if k >= 0 else '-'} {abs(k)} {'== 0' if is_eq else '>= 0'}")
    return "; ".join(rows)


# ------------------------------------------------------------------------------------------------- report


def engine_table(runs: list[EngineRun], against: list[tuple[SystemKey, dict[str, Answer]]]) -> list[str]:
    lines = ["| engine | feasible | infeasible | undecided | disagrees | median ms | p99 ms | total s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for run in runs:
        wrong = sum(1 for _, answers in against if answers[run.name] is not None
                    and sum(1 for a in answers.values() if a is answers[run.name]) == 1)
        lines.append(f"| {run.name} | {run.count(True)} | {run.count(False)} | {run.count(None)} | {wrong} | "
                     f"{statistics.median(run.times):.3f} | {percentile(run.times, 0.99):.3f} | "
                     f"{sum(run.times) / 1000:.2f} |")
    return lines


def lint_speed_lines(name: str, base: Capture, other: Capture) -> list[str]:
    """Lint time with each engine; and, since the rest of a lint is the same work with either engine but
    its timing is noisy on a shared machine, the change each file's lint time gets from the time spent in
    feasible() alone."""
    labels = list(base.lint_ms)
    alone = [100 * (other.solver_ms[x] - base.solver_ms[x]) / base.lint_ms[x] for x in labels if base.lint_ms[x] > 0]
    lines = []
    for engine, run in (("Omega test", base), (name, other)):
        share = sum(run.solver_ms.values()) / sum(run.lint_ms.values())
        lines.append(f"- lint with the {engine}: median {statistics.median(run.lint_ms.values()):.1f} ms per file, "
                     f"total {sum(run.lint_ms.values()) / 1000:.1f} s, in feasible() "
                     f"{sum(run.solver_ms.values()) / 1000:.2f} s ({100 * share:.1f}%)")
    lines.append(f"- per-file lint time change from feasible() alone, {name} against the Omega test: median "
                 f"{statistics.median(alone):+.2f}%, p95 {percentile(alone, 0.95):+.2f}%, max {max(alone):+.1f}%")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(ROOT / "corpus"))
    parser.add_argument("--runs", default=str(ROOT.parent / "shared" / "data" / "realkernels"),
                        help="the development set (a directory with labels.jsonl); '' to skip")
    parser.add_argument("--gv", default="", help="a directory of GPUVerify CUDA kernels (*.cu); '' to skip")
    parser.add_argument("--timeout-ms", type=int, default=2000, help="z3's limit per query")
    parser.add_argument("--isl-operations", type=int, default=5_000_000, help="isl's limit per query")
    parser.add_argument("--verdicts", action="store_true", help="lint again with undecided answers decided")
    parser.add_argument("--lint-speed", action="store_true",
                        help="lint again with each library in place of the Omega test")
    args = parser.parse_args()

    sources = corpus_sources(args.corpus) if args.corpus else []
    sets = [f"corpus ({len(sources)} files)"]
    for name, path, load in (("development set", args.runs, runs_sources), ("GPUVerify", args.gv, gpuverify_sources)):
        if path and Path(path).exists():
            found = load(path)
            sources += found
            sets.append(f"{name} ({len(found)} files)")
    lint_source("__global__ void warm() {}", "warm.cu")
    capture = lint_all(sources, SHIPPED)
    systems = sorted(capture.answers, key=lambda k: (len(k), repr(sorted(k, key=repr))))
    print(f"files: {', '.join(sets)}")
    print(f"feasibility queries: {capture.calls} calls, {len(systems)} unique systems "
          f"(largest {max(map(len, systems), default=0)} constraints)\n")

    z3 = z3_engine(args.timeout_ms)
    isl = isl_engine(args.isl_operations)
    engines = [("Omega test", omega), ("z3", z3), ("isl", isl)]
    for name, engine in engines:
        if engine is None:
            print(f"{name}: not installed, left out")
    runs = solve_all([(name, engine) for name, engine in engines if engine is not None], systems)
    mismatch = [k for k in systems if runs[0].answers[k] is not capture.answers[k]]
    print(f"Omega test cold vs. the answers the lint got: {len(mismatch)} differ\n")
    against = disagreements(runs)
    print("\n".join(engine_table(runs, against)))
    print(f"\ndisagreements: {len(against)}")
    for key, answers in against:
        print(f"- {answers}: {describe(key)}")
    undecided = [k for k in systems if runs[0].answers[k] is None]
    for run in runs[1:]:
        told = [run.answers[k] for k in undecided]
        print(f"Omega undecided ({len(undecided)}): {run.name} says feasible {told.count(True)}, "
              f"infeasible {told.count(False)}, undecided {told.count(None)}")

    deciders = [(name, engine) for name, engine in engines[1:] if engine is not None]
    if args.verdicts and deciders:
        decider = memoized(deciders[0][1] if len(deciders) == 1 else with_fallback(deciders[0][1], deciders[1][1]))
        again = lint_all(sources, with_fallback(SHIPPED, decider))
        changed = changed_findings(capture, again)
        print(f"\nverdicts with the Omega test's undecided answers decided by "
              f"{' then '.join(n for n, _ in deciders)}: {len(changed)} files' findings change")
        for label, gone, new in changed:
            print(f"- {label}: only before {gone}; only after {new}")
    if args.lint_speed and deciders:
        omega_test._MEMO.clear()  # every engine starts with nothing remembered
        captures = lint_interleaved(sources, [("Omega test", SHIPPED)]
                                    + [(name, memoized(engine)) for name, engine in deciders])
        base = captures["Omega test"]
        for name, _ in deciders:
            other = captures[name]
            print(f"\n{name} in place of the Omega test:\n" + "\n".join(lint_speed_lines(name, base, other)))
            changed = changed_findings(base, other)
            print(f"findings that differ with {name} in place of the Omega test: {len(changed)} files")
            for label, gone, new in changed:
                print(f"- {label}: only Omega {gone}; only {name} {new}")
    if (args.verdicts or args.lint_speed) and not deciders:
        print("\n--verdicts and --lint-speed need z3 or islpy: neither is installed, skipped")


if __name__ == "__main__":
    main()
