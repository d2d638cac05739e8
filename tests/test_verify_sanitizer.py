"""Sanitizer records that never overstate: what compute-sanitizer checked (the kernels launched, how many
times), `not_launched` when the instrumented kernels never ran (or a same-named kernel of another extension
did), the tool's internal error in its own words, and errors its summary counted before a crash (CPU: a
compute-sanitizer stand-in and the CPU stand-in worker)."""

from __future__ import annotations

from pathlib import Path

from test_verify import RELU_REF, UNGUARDED, _fake_sanitizer, _options, _solution

from cudalint.verify import diagnostics, results
from cudalint.verify.runner import Candidate, verify_batch
from cudalint.verify.worker import kernel_base_name

# racecheck 2025.x: a hazard report the parser cannot place (a crash cut it after its first line), the
# summary counting it, then the program's crash
RACE_THEN_CRASH = """\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at 0x1a0
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
========= Error: process didn't terminate successfully
========= Target application returned an error
"""
INTERNAL = """\
========= COMPUTE-SANITIZER
========= Internal Sanitizer Error: The Sanitizer encountered an error while launching the kernel (error 7)
========= Error: process didn't terminate successfully
"""
CLEAN = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"


def test_racecheck_summary_counts_errors_and_warnings_apart() -> None:
    _, summary = diagnostics.parse_sanitizer_output(
        "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n", "racecheck")
    assert (summary["errors"], summary["warnings"]) == (0, 1)
    _, summary = diagnostics.parse_sanitizer_output(RACE_THEN_CRASH, "racecheck")
    assert summary["errors"] == 1 and "internal" not in summary
    _, summary = diagnostics.parse_sanitizer_output("========= ERROR SUMMARY: 4 errors\n", "memcheck")
    assert summary["errors"] == 4


def test_an_internal_sanitizer_error_is_read_in_its_own_words() -> None:
    reports, summary = diagnostics.parse_sanitizer_output(INTERNAL, "memcheck")
    assert summary["internal"] == ["Internal Sanitizer Error: The Sanitizer encountered an error while launching "
                                   "the kernel (error 7)"]
    assert all(r.kind != "error" or "Internal" not in r.message for r in reports)


def test_profiler_kernel_names_reduce_to_the_kernel() -> None:
    assert kernel_base_name("relu_kernel(float const*, float*, int)") == "relu_kernel"
    assert kernel_base_name("void ns::relu_kernel<float, 4>(float const*, float*)") == "relu_kernel"
    assert kernel_base_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >"
                            "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)") \
        == "vectorized_elementwise_kernel"


def _sanitized(tmp_path: Path, behaviour: str, log_text: str, run=True) -> dict:
    fake = _fake_sanitizer(tmp_path, log_text, run=run)
    path = _solution(tmp_path, f"{behaviour}.py", behaviour, UNGUARDED)
    [record] = verify_batch([Candidate(path, str(RELU_REF))],
                            _options(tmp_path, sanitize=("memcheck",), sanitizer=str(fake)))
    return record


def test_a_clean_run_says_which_kernels_ran_and_how_often(tmp_path: Path) -> None:
    record = _sanitized(tmp_path, "ok", CLEAN)
    memcheck = record["sanitizer"]["memcheck"]
    assert record["status"] == "correct" and memcheck["complete"]
    assert [(k["kernel"], k["count"], k["attributed"]) for k in memcheck["launches"]] == [("relu_kernel", 2, True)]


def test_a_kernel_never_launched_is_not_launched_never_clean(tmp_path: Path) -> None:
    record = _sanitized(tmp_path, "notlaunched", CLEAN)
    memcheck = record["sanitizer"]["memcheck"]
    assert memcheck["status"] == "not_launched" and not memcheck["complete"] and memcheck["launches"] == []
    assert record["status"] == "unchecked" and not record["passed"]
    assert "checked nothing" in record["message"] and "relu_kernel" in record["message"]
    assert "memcheck: not launched" in results.render_table([record])


def test_a_same_named_kernel_of_another_extension_is_not_the_candidates_launch(tmp_path: Path) -> None:
    record = _sanitized(tmp_path, "elsewhere", CLEAN)
    memcheck = record["sanitizer"]["memcheck"]
    assert memcheck["status"] == "not_launched" and record["status"] == "unchecked"
    assert "a same-named kernel of x.so ran" in memcheck["message"]


def test_an_internal_sanitizer_error_is_its_own_status_with_the_tools_words(tmp_path: Path) -> None:
    record = _sanitized(tmp_path, "ok", INTERNAL)
    memcheck = record["sanitizer"]["memcheck"]
    assert memcheck["status"] == "sanitizer_internal_error" and not memcheck["complete"]
    assert memcheck["message"].startswith("Internal Sanitizer Error: The Sanitizer encountered")
    assert record["status"] == "unchecked" and "Fatal Python error" not in record["message"]
    assert "memcheck: internal error" in results.render_table([record])


def test_errors_the_summary_counted_before_a_crash_are_kept(tmp_path: Path) -> None:
    record = _sanitized(tmp_path, "ok", RACE_THEN_CRASH, run="killed")
    memcheck = record["sanitizer"]["memcheck"]
    assert memcheck["errors"] == 1 and memcheck["unattributed_errors"] == 1 and not memcheck["complete"]
    assert record["status"] == "sanitizer_error" and not record["passed"]


_SIZED_REFERENCE = """\
import torch
batch_size = 4096
dim = 1000
features = 256
class Model(torch.nn.Module):
    def __init__(self, features):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(features))
    def forward(self, x, y):
        return x * self.scale + y.sum()
def get_inputs():
    return [torch.randn(batch_size, features), torch.randn(batch_size, dim)]
def get_init_inputs():
    return [features]
"""


def test_reduced_sizes_keep_the_weights_the_solutions_names_and_alignment(tmp_path: Path) -> None:
    torch = __import__("pytest").importorskip("torch")
    import types

    from cudalint.verify.worker import reduced_sizes

    module = types.ModuleType("ref")
    exec(_SIZED_REFERENCE, module.__dict__)  # noqa: S102 - a test's own reference
    # features is a weight's size (get_init_inputs reads it); dim (1000 = 8 x 125) keeps its factor 8
    assert reduced_sizes(module, "", torch) == {"batch_size": [4096, 512]}
    assert module.batch_size == 4096  # the module is left as it was
    assert reduced_sizes(module, "int n = batch_size;", torch) == {}  # the solution names it: kept
    assert reduced_sizes(module, "", torch, target=10 ** 9) == {}  # small enough already


def test_sanitize_shapes_on_the_cpu_records_the_sizes_and_falls_back_when_refused(tmp_path: Path) -> None:
    __import__("pytest").importorskip("torch")
    reference = tmp_path / "ref.py"
    reference.write_text(_SIZED_REFERENCE)
    body = ("import torch\nclass ModelNew(torch.nn.Module):\n    def __init__(self, features):\n"
            "        super().__init__()\n        self.scale = torch.nn.Parameter(torch.ones(features))\n"
            "    def forward(self, x, y):\n{check}        return x * self.scale + y.sum()\n")
    (tmp_path / "fits.py").write_text(body.format(check=""))
    (tmp_path / "refuses.py").write_text(body.format(
        check="        if x.shape[0] != 4096:\n            raise RuntimeError('expected 4096 rows')\n"))
    fake = _fake_sanitizer(tmp_path, CLEAN)
    options = _options(tmp_path, worker=None, device="cpu", gpus=None, sanitize=("memcheck",), sanitizer=str(fake),
                       sanitize_shapes=True, timing=False, run_timeout=120.0, sanitize_timeout=120.0)
    fits, refuses = verify_batch([Candidate(str(tmp_path / "fits.py"), str(reference)),
                                  Candidate(str(tmp_path / "refuses.py"), str(reference))], options)
    assert fits["sanitizer"]["memcheck"]["sizes"] == {"reduced": {"batch_size": [4096, 512]}}
    sizes = refuses["sanitizer"]["memcheck"]["sizes"]
    assert sizes["full"] and "the candidate refused the reduced sizes: RuntimeError: expected 4096 rows" in sizes["why"]
    # on the CPU no kernel launches, so none is counted: a clean summary then shows nothing ran, never clean
    for record in (fits, refuses):
        memcheck = record["sanitizer"]["memcheck"]
        assert memcheck["status"] == "uncounted" and not memcheck["complete"] and memcheck["launches"] is None
        assert record["status"] == "unchecked" and "cannot show it checked anything" in record["message"]
    assert "memcheck: uncounted" in results.render_table([fits])
