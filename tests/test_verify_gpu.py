"""GPU tests of `cudalint verify` on the fixtures of tests/fixtures/verify (KernelBench-style problems with a
correct and deliberately broken solutions). Marked `gpu`; skipped without torch or without a CUDA GPU.

Run: python -m pytest -m gpu tests/test_verify_gpu.py. Builds go to $CUDALINT_CACHE (or
~/.cache/cudalint/verify): the first run compiles each extension (about a minute each), later runs reuse
them. benchmarks/verify_gpu_demo.py runs these after its batch, with a warm cache.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.xdist_group("gpu"),  # one xdist worker runs them all: the GPUs and their timings are not shared
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]

from cudalint.verify import Candidate, VerifyOptions, gpu_reports, verify_batch  # noqa: E402
from hostile_solutions import FORGED_FRAMES  # noqa: E402

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


def _batch_candidates() -> list[Candidate]:
    return [_candidate(1, 19, 0), _candidate(1, 21, 1), _candidate(2, 76, 1), _candidate(1, 26, 1),
            _candidate(1, 36, 1)]


RUN_PHASE: dict[int, float] = {}  # overlap -> seconds of the run phase, of the batches below


def _timed_batch(overlap: int) -> list[dict]:
    """The batch's records with `overlap` runs in flight on each GPU; the run phase's seconds in RUN_PHASE."""
    marks = []

    def progress(phase: str, record: dict) -> None:
        if phase == "run":
            marks.append(time.monotonic())

    records = verify_batch(_batch_candidates(), _options(overlap=overlap), progress)
    RUN_PHASE[overlap] = marks[-1] - marks[0]
    return records


@pytest.fixture(scope="module")
def batch() -> dict:
    """One batch of five candidates: correct, wrong result, unwritten output, host crash, illegal address
    (two runs in flight on the GPU, taking it in turns: the default)."""
    return {Path(r["solution"]).stem.replace("_kernel", "").replace("level_", "L"): r for r in _timed_batch(2)}


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


@pytest.mark.parametrize("parity, atol", [("kernelbench", 1e-4), ("kernelbench-v0.1", 1e-2)])
def test_kernelbench_harness_modes(parity: str, atol: float) -> None:
    from cudalint.verify.runner import harness_tolerances

    [record] = verify_batch([_candidate(1, 19, 0)], _options(parity=parity, tolerances=harness_tolerances(parity)))
    assert record["status"] == "correct", record["message"]
    assert record["correctness"]["atol"] == atol and record["timing"]["status"] == "trusted"


def test_kernelbench_precision_casts_the_inputs() -> None:
    """--precision fp16: the input reaches the kernel as float16, which the solution's check refuses, as
    KernelBench's current eval would."""
    from cudalint.verify.runner import harness_tolerances

    [record] = verify_batch([_candidate(1, 19, 0)], _options(parity="kernelbench", precision="fp16", timing=False,
                                                             tolerances=harness_tolerances("kernelbench", "fp16")))
    assert record["status"] == "runtime_error" and "x must be float32" in record["message"], record["message"]


def test_a_clean_memcheck_says_which_kernels_ran() -> None:
    if shutil.which("compute-sanitizer") is None:
        pytest.skip("compute-sanitizer is not installed")
    [record] = verify_batch([_candidate(1, 19, 0)], _options(sanitize=("memcheck",), timing=False))
    memcheck = record["sanitizer"]["memcheck"]
    assert record["status"] == "correct" and memcheck["complete"], memcheck
    # torch's profiler counts launches under compute-sanitizer (None here: it does not, and nothing is claimed)
    assert [(k["kernel"], k["count"], k["attributed"]) for k in memcheck["launches"]] == [("relu_kernel", 1, True)]


def test_a_kernel_that_never_launched_is_not_launched_never_clean() -> None:
    if shutil.which("compute-sanitizer") is None:
        pytest.skip("compute-sanitizer is not installed")
    solution = FIXTURES / "multi" / "never_launched.py"
    reference = PROBLEMS / "level1" / "19_ReLU.py"
    [record] = verify_batch([Candidate(str(solution), str(reference))],
                            _options(sanitize=("memcheck", "racecheck"), timing=False))
    for tool in ("memcheck", "racecheck"):
        result = record["sanitizer"][tool]
        assert result["status"] == "not_launched" and not result["complete"], result
        assert result["launches"] == [] and "idle_relu_kernel" in result["message"]
    assert record["status"] == "unchecked" and not record["passed"]


def test_overlapped_runs_take_the_gpu_in_turns(batch: dict) -> None:
    """The batch ran with two runs in flight on the GPU: every worker (run and judge) held the GPU alone, by
    the grants cudalint's process recorded, each candidate's run before its judge; one at a time, the same
    candidates get the same verdicts and messages, and the run phase takes longer."""
    held = sorted((h["granted"], h["released"], name, h["worker"])
                  for name, r in batch.items() for h in (r.get("gpu") or {}).get("held") or [])
    assert all(a[1] <= b[0] for a, b in zip(held, held[1:])), held
    assert [w for _, _, name, w in held if name == "L1_problem_19_sample_0"] == ["run", "judge"]
    assert all((r.get("gpu") or {}).get("held") for r in batch.values())  # every candidate ran, in its turn
    serial = _timed_batch(1)
    for record in serial:
        overlapped = batch[Path(record["solution"]).stem.replace("_kernel", "").replace("level_", "L")]
        assert (record["status"], record["message"]) == (overlapped["status"], overlapped["message"]) \
            or record["status"] in ("crash", "illegal_address") and record["status"] == overlapped["status"]
        assert (record["correctness"] or {}).get("max_abs_error") == \
            (overlapped["correctness"] or {}).get("max_abs_error")
        assert not (record.get("gpu") or {}).get("held")
    print(f"run phase of the batch: {RUN_PHASE[2]:.1f} s with two runs in flight, {RUN_PHASE[1]:.1f} s one at a time")
    assert RUN_PHASE[2] < RUN_PHASE[1], RUN_PHASE


def test_a_single_node_ray_run_matches_the_local_run(batch: dict, tmp_path: Path) -> None:
    """`verify --ray` on a Ray started on this machine: the same verdicts, trials and errors as the local
    batch, each run on a GPU Ray gave it, with the build shipped from its CPU task."""
    pytest.importorskip("ray")
    records = verify_batch(_batch_candidates(), _options(ray="", results_file=str(tmp_path / "sweep.jsonl")))
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
# synchronize, the clocks stopped, the reference's op (torch.relu) slowed by 50 ms (the frames' forger:
# `hostile_solutions.FORGED_FRAMES`)
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


def test_a_hostile_solution_cannot_forge_its_speedup(tmp_path: Path) -> None:
    """The correct ReLU kernel, with a header that patches every timer of its process and slows the
    reference there, and with one that forges the protocol's frames: the first is timed as the honest one
    is (the reference in the judge, the candidate by the parent's clock), the second's timing is rejected."""
    honest = RUN / "level_1_problem_19_sample_0_kernel.py"
    reference = next((PROBLEMS / "level1").glob("19_*.py"))
    candidates = [Candidate(str(honest), str(reference))]
    for name, header in (("timers", _HOSTILE_TIMERS), ("frames", FORGED_FRAMES)):
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
