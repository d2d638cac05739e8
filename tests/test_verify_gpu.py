"""GPU tests of `cudalint verify` on the fixtures of tests/fixtures/verify (KernelBench-style problems with a
correct and deliberately broken solutions). Marked `gpu`; skipped without torch or without a CUDA GPU.

Run: python -m pytest -m gpu tests/test_verify_gpu.py. Builds go to $CUDALINT_CACHE (or
~/.cache/cudalint/verify): the first run compiles each extension (about a minute each), later runs reuse
them. benchmarks/verify_gpu_demo.py runs these after its batch, with a warm cache.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]

from cudalint.verify import Candidate, VerifyOptions, gpu_reports, verify_batch  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures" / "verify"
RUN = FIXTURES / "run"
PROBLEMS = FIXTURES / "problems"


def _candidate(level: int, problem: int, sample: int) -> Candidate:
    reference = next((PROBLEMS / f"level{level}").glob(f"{problem}_*.py"))
    return Candidate(str(RUN / f"level_{level}_problem_{problem}_sample_{sample}_kernel.py"), str(reference),
                     level, problem, sample)


def _options(**changes) -> VerifyOptions:
    base = dict(lint=False, timing_trials=20, run_timeout=120.0, build_timeout=600.0, sanitize_timeout=300.0)
    base.update(changes)
    return VerifyOptions(**base)


@pytest.fixture(scope="module")
def batch() -> dict:
    """One batch of five candidates: correct, wrong result, unwritten output, host crash, illegal address."""
    candidates = [_candidate(1, 19, 0), _candidate(1, 21, 1), _candidate(2, 76, 1), _candidate(1, 26, 1),
                  _candidate(1, 36, 1)]
    records = verify_batch(candidates, _options())
    return {Path(r["solution"]).stem.replace("_kernel", "").replace("level_", "L"): r for r in records}


def test_correct_kernel_is_checked_and_timed(batch: dict) -> None:
    record = batch["L1_problem_19_sample_0"]
    assert record["status"] == "correct", record["message"]
    correctness = record["correctness"]
    assert correctness["passed"] == 5 and correctness["poisoned"] and correctness["max_abs_error"] == 0.0
    timing = record["timing"]
    assert timing["status"] == "trusted", timing["message"]
    assert timing["cuda_events"]["reference"]["median_ms"] > 0  # the judge's events, beside the parent's clock
    assert timing["candidate"]["trials"] == 20 and timing["candidate"]["median_ms"] > 0
    assert timing["reference"]["median_ms"] > 0 and timing["speedup"] > 0
    assert record["build"]["extensions"][0]["ok"]
    assert "H200" in record["gpu"]["name"] or record["gpu"]["name"]
    assert gpu_reports(record) == []


def test_wrong_result_is_a_mismatch(batch: dict) -> None:
    record = batch["L1_problem_21_sample_1"]
    assert record["status"] == "incorrect"
    failure = record["correctness"]["trial_results"][0]["failures"][0]
    assert failure["kind"] == "mismatch" and failure["mismatched"] > 0.9 * failure["numel"]
    assert [r.kind for r in gpu_reports(record)] == ["mismatch"]


def test_unwritten_output_holds_the_poison(batch: dict) -> None:
    record = batch["L2_problem_76_sample_1"]
    assert record["status"] == "incorrect"
    kinds = [f["kind"] for f in record["correctness"]["trial_results"][0]["failures"]]
    assert kinds[0] == "unwritten_output"
    failure = record["correctness"]["trial_results"][0]["failures"][0]
    assert failure["unwritten"] == failure["numel"] // 2  # the grid covers half of the columns


def test_host_crash_ends_only_that_candidate(batch: dict) -> None:
    record = batch["L1_problem_26_sample_1"]
    assert record["status"] == "crash"
    assert record["worker"]["run"]["signal"] == "SIGSEGV"
    assert "correctness trial 1/5" in record["message"]


def test_illegal_address_is_reported(batch: dict) -> None:
    record = batch["L1_problem_36_sample_1"]
    assert record["status"] == "illegal_address", record["message"]


def test_memcheck_finds_the_unguarded_index() -> None:
    if shutil.which("compute-sanitizer") is None:
        pytest.skip("compute-sanitizer is not installed")
    [record] = verify_batch([_candidate(1, 19, 1)], _options(sanitize=("memcheck",), timing=False))
    memcheck = record["sanitizer"]["memcheck"]
    assert memcheck["ran"] and memcheck["errors"] > 0, memcheck
    text = (RUN / "level_1_problem_19_sample_1_kernel.py").read_text().splitlines()
    lines = {r["py_line"] for r in memcheck["reports"] if r["kind"].startswith("invalid_global")}
    assert lines and all("x[i]" in text[line - 1] or "y[i]" in text[line - 1] for line in lines)
    assert not record["passed"]


def test_workers_have_no_network_and_still_use_the_gpu(batch: dict) -> None:
    """The batch ran in a network namespace (where the machine allows one) with a scrubbed environment."""
    from cudalint.sandbox import isolation

    record = batch["L1_problem_19_sample_0"]
    assert record["status"] == "correct"
    assert record["isolation"]["environment"] == "scrubbed" and record["isolation"]["home"] == "private"
    assert record["isolation"]["network"] == isolation().network


def test_racecheck_in_the_second_extension_maps_to_its_lines() -> None:
    """Two extensions, both with a `cuda.cu`: the race is reported at the second one's lines."""
    if shutil.which("compute-sanitizer") is None:
        pytest.skip("compute-sanitizer is not installed")
    solution = FIXTURES / "multi" / "two_extensions_race.py"
    reference = PROBLEMS / "level1" / "47_Sum_reduction_over_a_dimension.py"
    [record] = verify_batch([Candidate(str(solution), str(reference))],
                            _options(sanitize=("racecheck",), timing=False))
    racecheck = record["sanitizer"]["racecheck"]
    assert racecheck["complete"] and racecheck["errors"] > 0, racecheck
    assert racecheck["kernels"] == ["copy_kernel", "sum_dim1_kernel"]
    text = solution.read_text().splitlines()
    lines = {r["py_line"] for r in racecheck["reports"]} | {r["second_py_line"] for r in racecheck["reports"]}
    assert lines and all(line and "partial[" in text[line - 1] for line in lines), (lines, racecheck["reports"])


def test_kernelbench_harness_mode() -> None:
    from cudalint.verify.runner import KERNELBENCH_TOLERANCES

    [record] = verify_batch([_candidate(1, 19, 0)], _options(parity="kernelbench", tolerances=KERNELBENCH_TOLERANCES))
    assert record["status"] == "correct", record["message"]
    assert record["correctness"]["atol"] == 1e-2 and record["timing"]["status"] == "trusted"


def test_a_single_node_ray_run_matches_the_local_run(batch: dict, tmp_path: Path) -> None:
    """`verify --ray` on a Ray started on this machine: the same verdicts, trials and errors as the local
    batch, each run on a GPU Ray gave it, with the build shipped from its CPU task."""
    pytest.importorskip("ray")
    candidates = [_candidate(1, 19, 0), _candidate(1, 21, 1), _candidate(2, 76, 1), _candidate(1, 26, 1),
                  _candidate(1, 36, 1)]
    records = verify_batch(candidates, _options(ray="", results_file=str(tmp_path / "sweep.jsonl")))
    local = [batch[Path(r["solution"]).stem.replace("_kernel", "").replace("level_", "L")] for r in records]
    assert [r["status"] for r in records] == [r["status"] for r in local]
    for on_ray, here in zip(records, local):
        assert on_ray["message"] == here["message"] or on_ray["status"] in ("crash", "illegal_address")
        assert (on_ray["correctness"] or {}).get("passed") == (here["correctness"] or {}).get("passed")
        assert (on_ray["correctness"] or {}).get("max_abs_error") == (here["correctness"] or {}).get("max_abs_error")
        if on_ray.get("gpu"):
            assert on_ray["gpu"]["node"] and on_ray["gpu"]["name"] == here["gpu"]["name"]
    assert records[0]["timing"]["speedup"] > 0
    assert len((tmp_path / "sweep.jsonl").read_text().splitlines()) == 5


# what a solution can do to its speed from its own process: CUDA events that say a microsecond, no
# synchronize, the clocks stopped, the reference's op (torch.relu) slowed by 50 ms; and a thread forging
# the timing protocol's frames (ready, then done at once with made-up projections)
_HOSTILE_TIMERS = """\
import time, torch
torch.cuda.Event.elapsed_time = lambda self, end: 1e-6
torch.cuda.synchronize = lambda *args, **kwargs: None
time.perf_counter = time.monotonic = lambda: 0.0
_relu = torch.relu
def _slow_relu(x):
    time.sleep(0.05)
    return _relu(x)
torch.relu = _slow_relu
"""
_FORGED_FRAMES = """\
import gc, json, os, threading
REQUEST = next(o for o in gc.get_objects() if isinstance(o, dict) and "timing_fd" in o and "control_fd" in o)
def _frame(message):
    body = json.dumps(message).encode()
    return b"CLK1" + len(body).to_bytes(4, "big") + body
def _forge():
    control = os.fdopen(os.dup(REQUEST["control_fd"]), "rb")
    for number in range(1, len(REQUEST["timing_seeds"]) + 1):
        os.write(REQUEST["timing_fd"], _frame({"kind": "ready", "round": number}))
        go = json.loads(control.readline())
        os.write(REQUEST["timing_fd"], _frame({"kind": "done", "round": number, "projections": [0.0] * go["iterations"]}))
threading.Thread(target=_forge, daemon=True).start()
"""


def test_a_hostile_solution_cannot_forge_its_speedup(tmp_path: Path) -> None:
    """The correct ReLU kernel, with a header that patches every timer of its process and slows the
    reference there, and with one that forges the protocol's frames: the first is timed as the honest one
    is (the reference in the judge, the candidate by the parent's clock), the second's timing is rejected."""
    honest = RUN / "level_1_problem_19_sample_0_kernel.py"
    reference = next((PROBLEMS / "level1").glob("19_*.py"))
    candidates = [Candidate(str(honest), str(reference))]
    for name, header in (("timers", _HOSTILE_TIMERS), ("frames", _FORGED_FRAMES)):
        path = tmp_path / f"{name}.py"
        path.write_text(header + honest.read_text())
        candidates.append(Candidate(str(path), str(reference)))
    records = {Path(r["solution"]).stem: r for r in verify_batch(candidates, _options())}
    assert {k: r["status"] for k, r in records.items()} == dict.fromkeys(records, "correct"), records
    fair = records["level_1_problem_19_sample_0_kernel"]["timing"]
    timers = records["timers"]["timing"]
    assert fair["status"] == "trusted" and timers["status"] == "trusted", (fair, timers)
    # 50 ms of reference per run would be a speedup in the thousands
    assert timers["speedup"] < 3 * fair["speedup"] + 1, (timers, fair)
    assert timers["reference"]["median_ms"] < 10
    frames = records["frames"]["timing"]
    assert frames["status"] == "rejected" and frames["speedup"] is None, frames
