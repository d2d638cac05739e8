"""The dry run (cudalint/dryrun/): the worker on hand-written solutions against one reference
(tests/fixtures/dryrun/), each asserting the facts it records; the extension model; the stage's
switches. The solutions share one extension: `relu_cuda` returns a new tensor, `relu_inplace_cuda` is a
void launcher that writes its argument."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cudalint
from cudalint.config import LintOptions
from cudalint.dryrun.runner import torch_version
from cudalint.engine import dry_run

FIXTURES = Path(__file__).parent / "fixtures" / "dryrun"
REFERENCE = str(FIXTURES / "reference.py")
needs_torch = pytest.mark.skipif(torch_version() is None, reason="the dry run needs torch")


def run(name: str, **kwargs):
    return dry_run(str(FIXTURES / name), REFERENCE, use_cache=False, **kwargs)


def custom_lines(facts) -> list[list[tuple[str, int]]]:
    return [[(entry["function"], entry["line"]) for entry in call["custom"]] for call in facts.calls]


@needs_torch
@pytest.mark.parametrize("name, line", [("helper_blocks.py", 36), ("function_apply.py", 33), ("rebound.py", 36)])
def test_kernels_reached_through_python_the_static_reading_cannot_follow(name: str, line: int) -> None:
    facts = run(name)
    assert facts.completed, facts.reason
    assert custom_lines(facts) == [[("relu_cuda", line)]] * 4
    assert facts.kernel_ran() and facts.output_from_custom()
    assert facts.observed_output_shape()[:2] == ([8, 16], [8, 16])
    assert [c["inputs"] for c in facts.calls] == ["fresh", "fresh", "same", "other seed"]


@needs_torch
def test_void_launcher_writing_in_place_then_returning_it() -> None:
    facts = run("void_in_place.py")
    assert facts.completed and facts.kernel_ran()
    assert facts.output_from_custom()  # the written tensor holds the launcher's work
    assert all(call["inputs_written"] == [] for call in facts.calls)  # it writes fc's output, not an input


@needs_torch
def test_launcher_writing_an_input() -> None:
    facts = run("writes_input.py")
    assert facts.completed
    assert [call["inputs_written"] for call in facts.calls] == [[0]] * 4


@needs_torch
def test_replay_keyed_on_input_identity() -> None:
    facts = run("replay_by_identity.py")
    assert facts.completed
    third = facts.calls[2]
    assert third["inputs"] == "same" and third["custom"] == [] and third["output_is_earlier_output"] == 2
    assert [bool(c["custom"]) for c in facts.calls] == [True, True, False, True]
    assert not facts.kernel_ran()
    assert facts.calls[1]["output_made"] == {"line": 40, "call": 2, "function": "relu_cuda", "allocation": 16}


@needs_torch
def test_training_mode_branch_never_reaches_the_kernel() -> None:
    facts = run("training_branch.py")
    assert facts.completed
    assert custom_lines(facts) == [[]] * 4 and not facts.output_from_custom()


@needs_torch
def test_device_branch_takes_the_path_the_gpu_takes() -> None:
    facts = run("device_branch.py")  # fake tensors: their `device` says cuda to the solution too
    assert facts.completed and facts.data["mode"] == "fake"
    assert custom_lines(facts) == [[("relu_cuda", 41)]] * 4 and facts.kernel_ran()
    assert not [e for e in facts.data["events"] if e["kind"] == "frame"]  # reading the device is no frame access


@needs_torch
def test_a_solution_without_custom_kernels_runs_too() -> None:
    facts = run("torch_only_raises.py")
    assert facts.completed
    assert {(c["error"]["type"], c["error"]["line"], c["error"]["cause"]) for c in facts.calls} == \
        {("NameError", 11, "solution")}
    assert facts.harness_failure()["stage"] == "forward"


@needs_torch
def test_hang_is_killed_at_the_wall_clock_limit() -> None:
    facts = run("hangs.py", timeout=3)
    assert not facts.completed
    assert facts.data["error"]["type"] == "timeout" and facts.data["error"]["stage"] == "call 1"
    assert "timed out during call 1" in facts.reason


@needs_torch
def test_raise_in_forward_is_a_fact_of_each_call() -> None:
    facts = run("raises.py")
    assert [c["error"]["type"] for c in facts.calls] == ["ValueError"] * 4
    assert {c["error"]["line"] for c in facts.calls} == {37}
    assert {c["error"]["cause"] for c in facts.calls} == {"solution"}
    assert not facts.kernel_ran()


@needs_torch
def test_exit_at_import_and_hard_exit_in_forward() -> None:
    facts = run("exits.py")
    assert not facts.completed and facts.data["error"]["type"] == "exit" and facts.data["error"]["stage"] == "import"
    facts = run("exits_hard.py")
    assert not facts.completed and "exited with status 5 during call 1" in facts.reason


@needs_torch
def test_fork_is_refused_and_recorded() -> None:
    facts = run("forks.py")
    assert not facts.completed
    assert facts.events("refused") == [{"kind": "refused", "what": "os.fork", "line": 38, "stage": "call 1"}]


@needs_torch
def test_none_for_a_tensor_parameter_raises_pybinds_type_error() -> None:
    facts = run("none_for_tensor.py")
    errors = facts.conversion_errors()
    assert errors and {e["line"] for e in errors} == {36}
    assert "argument 1 (x) is None where C++ takes tensor" in errors[0]["message"]


@needs_torch
def test_replaced_harness_function_is_named_with_its_line() -> None:
    facts = run("replaces_allclose.py")
    assert facts.events("replaced") == [{"kind": "replaced", "what": "torch.allclose", "line": 30, "stage": "import"}]


@needs_torch
def test_weights_drawn_otherwise_and_weights_folded_after_the_same_draws() -> None:
    drawn = run("draws_otherwise.py")
    difference = drawn.weights_difference()
    assert difference is not None
    theirs, mine, index, unmatched = difference
    assert (theirs["op"], mine["op"], index, mine["line"]) == ("uniform", "randn", 0, 33)
    assert unmatched["name"] == "fc.weight"
    folded = run("folds_weights.py")  # the reference's draws, then rearranged and scaled: same weights
    assert folded.weights_observed() and folded.weights_difference() is None
    same = run("helper_blocks.py")
    assert [entry["matched_by"] for entry in same.parameters["reference"]] == [["layers.0.fc.weight"],
                                                                              ["layers.0.fc.bias"]]


@needs_torch
def test_facts_are_plain_json_and_cached() -> None:
    facts = run("helper_blocks.py")
    assert json.loads(json.dumps(facts.to_dict())) == facts.to_dict()
    first = dry_run(str(FIXTURES / "rebound.py"), REFERENCE)
    again = dry_run(str(FIXTURES / "rebound.py"), REFERENCE)
    assert again.cached or first.cached
    assert again.data == first.data


def test_extension_model_of_a_wrapper_and_a_void_launcher() -> None:
    from cudalint.dryrun.extension import extension_model
    from cudalint.engine import _unit_facts
    from cudalint.harness.document_state import state_of
    from cudalint.sources import load_document

    path = FIXTURES / "void_in_place.py"
    document = load_document(str(path), path.read_text())
    units = list(_unit_facts(document, str(FIXTURES), []))
    (entry,) = extension_model(state_of(document).solution, units)
    assert entry["name"] == "relu_ext" and entry["line"] == 26
    relu, in_place = entry["functions"]["relu_cuda"], entry["functions"]["relu_inplace_cuda"]
    assert relu["params"] == [{"name": "x", "kind": "tensor"}] and relu["returns"] == "tensor"
    assert relu["result"] == {"like": 0, "dtype": {"of": 0}} and relu["writes"] == []
    assert in_place["returns"] == "void" and in_place["writes"] == [0] and in_place["result"] is None


@pytest.mark.parametrize("type_text, kind", [
    ("torch::Tensor", "tensor"), ("const at::Tensor&", "tensor"), ("c10::optional<torch::Tensor>", "optional_tensor"),
    ("int64_t", "int"), ("int", "int"), ("double", "float"), ("float", "float"), ("bool", "bool"),
    ("std::vector<int64_t>", "int_list"), ("at::IntArrayRef", "int_list"), ("at::Scalar", "scalar"),
    ("torch::Dtype", "any")])
def test_conversion_classes(type_text: str, kind: str) -> None:
    from cudalint.dryrun.extension import conversion_class

    assert conversion_class(type_text) == kind


@needs_torch
def test_rules_read_the_facts_and_no_dry_run_turns_them_off() -> None:
    path = str(FIXTURES / "wrong_shape.py")
    with_run = cudalint.lint_paths([path], LintOptions(reference=REFERENCE))[0].findings
    (shape,) = [f for f in with_run if f.code == "CL430"]
    assert shape.location.line == 36 and "[8]" in shape.message and "[8, 16]" in shape.message
    replay = cudalint.lint_paths([str(FIXTURES / "training_branch.py")], LintOptions(reference=REFERENCE))[0]
    assert any(f.code == "CL402" and "dry run" in f.message for f in replay.findings)
    static = cudalint.lint_paths([str(FIXTURES / "training_branch.py")],
                                 LintOptions(reference=REFERENCE, dry_run=False))[0]
    assert not any("dry run" in f.message for f in static.findings)


def test_prefilter_says_why_the_dry_run_cannot_run(monkeypatch) -> None:
    import cudalint.dryrun.runner as runner

    monkeypatch.setattr(runner, "torch_version", lambda: None)
    result = cudalint.prefilter([str(FIXTURES / "rebound.py")], reference=REFERENCE, jobs=1)
    assert result.dry_run_skipped.startswith("dry run skipped: torch is not installed")
    assert cudalint.prefilter([str(FIXTURES / "rebound.py")], reference=REFERENCE, jobs=1,
                              dry_run=False).dry_run_skipped is None


def test_cl420_without_the_dry_run_stays_silent_where_the_static_reading_cannot_evaluate() -> None:
    path = Path(__file__).parent / "fixtures" / "rules" / "CL420" / "bad_width_from_a_call.py"
    findings = cudalint.lint_source(path.read_text(), filename=path.name, options=LintOptions(dry_run=False))
    assert not [f for f in findings if f.code == "CL420"]


@needs_torch
def test_solution_runs_in_the_references_namespace_as_kernelbench_runs_it() -> None:
    facts = run("subclasses_reference.py")  # `Model` is the reference's, never defined by the solution
    assert facts.completed, facts.reason
    assert facts.kernel_ran() and facts.harness_failure() is None
    assert [entry["matched_by"] for entry in facts.parameters["reference"]] == [["fc.weight"], ["fc.bias"]]


@needs_torch
def test_observed_replay_is_reported_with_the_line_that_made_the_tensor() -> None:
    path = str(FIXTURES / "replay_through_closure.py")  # a shape the static reading does not follow
    found = [f for f in cudalint.lint_paths([path], LintOptions(reference=REFERENCE))[0].findings if f.code == "CL409"]
    assert [f.location.line for f in found] == [51]
    assert "during call 2 again in call 3 (the same input objects)" in found[0].message
    assert "the kernel ran in 3 of 4 calls" in found[0].message


@needs_torch
def test_calls_of_the_references_forward_are_recorded() -> None:
    facts = run("subclasses_reference.py")
    assert facts.events("reference-call") == []  # its own forward: no delegation
    delegating = FIXTURES / "delegates.py"
    facts = run(delegating.name)
    assert facts.events("reference-call") == [{"kind": "reference-call", "what": "Model.forward", "line": 33,
                                               "stage": "call 1"}]


@needs_torch
def test_timer_replaced_on_the_event_class_is_recorded_with_its_line() -> None:
    # the stand-in CUDA classes' metaclass names the line, as the watched modules' class does
    facts = run("replaces_timer.py")
    assert {"kind": "replaced", "what": "torch.cuda.Event.elapsed_time", "line": 36, "stage": "import"} \
        in facts.events("replaced")


@needs_torch
@pytest.mark.parametrize("name, backend, function, line", [
    ("triton_launches.py", "triton", "relu_kernel", 20), ("triton_op_launches.py", "triton", "relu_kernel", 22),
    ("cupy_launches.py", "cupy", "relu_kernel", 23),
    ("cute_launches.py", "cutlass", "relu_launch", 32)])
def test_launches_of_other_backends_are_recorded(name: str, backend: str, function: str, line: int) -> None:
    facts = run(name)  # no triton, cupy or cutlass here: the worker stands in for them
    assert facts.completed, facts.reason
    assert facts.data["backends"] == {backend: "stand-in"}
    assert [[(entry["function"], entry["line"]) for entry in call["custom"]] for call in facts.calls] == \
        [[(function, line)]] * 4
    # every tensor a launch is given may be written by it: the output it filled holds custom results
    assert facts.kernel_ran() and facts.output_from_custom()
    assert all(call["inputs_written"] == [] for call in facts.calls)  # a possible write is no proof of one


@needs_torch
def test_isinstance_against_a_stand_in_stops_the_run_as_the_environment_s_failure() -> None:
    facts = run("triton_isinstance.py")  # either answer could take a path the GPU run does not: no claim
    assert not facts.completed and facts.data["error"]["cause"] == "environment"
    findings = cudalint.lint_paths([str(FIXTURES / "triton_isinstance.py")], LintOptions(reference=REFERENCE))[0]
    assert not [f for f in findings.findings if f.code in ("CL403", "CL436")]


@needs_torch
def test_triton_grid_of_the_first_autotune_config() -> None:
    facts = run("triton_launches.py")
    assert facts.calls[0]["custom"][0]["grid"] == [1]  # cdiv(8 * 16, 128)


@needs_torch
def test_triton_solution_falling_back_to_torch_launches_nothing() -> None:
    facts = run("triton_falls_back.py")
    assert facts.completed and not facts.kernel_ran() and not facts.data["extension_calls"]
    assert not facts.stand_ins_called()
    findings = cudalint.lint_paths([str(FIXTURES / "triton_falls_back.py")], LintOptions(reference=REFERENCE))[0]
    assert [(f.code, f.line) for f in findings.findings if f.code in ("CL402", "CL403")] == [("CL403", 19)]


@needs_torch
def test_environment_probe_builds_the_solution_again_where_its_variables_are_set() -> None:
    bad = Path(__file__).parent / "fixtures" / "rules" / "CL413" / "bad_kernel_path_depends_on_environment.py"
    facts = dry_run(str(bad), None, use_cache=False)
    assert facts.events("environment") == [{"kind": "environment", "what": "KERNEL_EVAL_MODE", "line": 34,
                                            "stage": "call 1"}]
    assert facts.data["probe"] == {"completed": True, "custom": [], "error": None}
    assert facts.environment_dependence()["calls"] == 4
    tuned = Path(__file__).parent / "fixtures" / "rules" / "CL413" / "good_environment_tunes_the_kernel.py"
    facts = dry_run(str(tuned), None, use_cache=False)
    assert facts.data["probe"]["custom"] and facts.environment_dependence() is None


@needs_torch
def test_precision_flags_the_solution_lowers_name_its_line() -> None:
    bad = Path(__file__).parent / "fixtures" / "rules" / "CL404" / "bad_precision_lowered_at_run_time.py"
    facts = dry_run(str(bad), None, use_cache=False)
    assert [(e["flag"], e["before"], e["after"], e["line"]) for e in facts.precision_lowered()] == [
        ("torch.backends.cuda.matmul.allow_tf32", False, True, 42),
        ("torch.get_float32_matmul_precision()", "highest", "high", 42)]
    assert "matmul" in facts.data["reference_ops"]


@needs_torch
def test_static_claim_the_dry_run_refutes() -> None:
    # the statement never reached compiled code in any call the dry run made
    path = str(Path(__file__).parent / "fixtures" / "rules" / "CL421" / "good_folded_kernel_never_runs.py")
    static = cudalint.lint_paths([path], LintOptions(dry_run=False))[0].findings
    assert [(f.code, f.line) for f in static if f.code == "CL421"] == [("CL421", 60)]
    observed = cudalint.lint_paths([path], LintOptions())[0].findings
    assert not [f for f in observed if f.code == "CL421"]


@needs_torch
def test_defect_the_dry_run_shows_latent() -> None:
    # the empty tensor is never passed in any call the dry run made: real, but not at this configuration
    path = str(Path(__file__).parent / "fixtures" / "rules" / "CL423" / "bad_latent_bias_present_in_every_call.py")
    (static,) = [f for f in cudalint.lint_paths([path], LintOptions(dry_run=False))[0].findings if f.code == "CL423"]
    (observed,) = [f for f in cudalint.lint_paths([path], LintOptions())[0].findings if f.code == "CL423"]
    assert static.line == observed.line == 32 and not static.latent and observed.latent


def test_the_dry_runs_own_limits_are_never_the_solution_exiting() -> None:
    from cudalint.dryrun.runner import _facts

    for signal_number, cause in ((24, "limits"), (9, "limits"), (11, "solution")):  # SIGXCPU, SIGKILL, SIGSEGV
        facts = _facts({"status": {"exit": -signal_number}}, {"stage": "call 1"}, 20.0, 1.0)
        assert facts.data["error"]["cause"] == cause
        assert (facts.harness_failure() is None) == (cause == "limits")


def test_only_an_error_raised_in_the_solutions_own_frames_is_the_solutions() -> None:
    """CL436's evidence: an error is the solution's only when its innermost frame is the solution's file.
    Raised in a stand-in for Triton, cupy or CuTe, in torch's Python or the standard library, whatever its
    message says, it is the environment's; raised by the model of a compiled function (pybind11's refusal,
    C code on the GPU) called from the solution's line, or by a library's attribute lookup (`nn.Module`'s
    `__getattr__`), it is the solution's."""
    import torch.nn.functional

    from cudalint.dryrun import extension_calls, stand_ins, worker

    solution = "/tmp/solution.py"

    def raised_through(*filenames: str) -> BaseException:
        """An error raised in a function of the last file, called from a function of each file before it."""
        inner = None
        for filename in reversed(filenames):
            body = "    raise ValueError('too many values to unpack')" if inner is None else "    inner()"
            namespace = {"inner": inner}
            exec(compile(f"def f():\n{body}\n", filename, "exec"), namespace)
            inner = namespace["f"]
        try:
            inner()
        except ValueError as error:
            return error
        raise AssertionError("nothing raised")

    assert worker._cause(raised_through(solution, stand_ins.__file__), {solution}) == "environment"
    assert worker._cause(raised_through(solution, torch.nn.functional.__file__), {solution}) == "environment"
    assert worker._cause(raised_through(solution), {solution}) == "solution"
    assert worker._cause(raised_through(solution, extension_calls.__file__), {solution}) == "solution"
    assert worker._cause(raised_through(extension_calls.__file__), {solution}) == "environment"

    def attribute_missing(filename: str) -> BaseException:
        """`model.weight` read in the solution, the lookup falling back to a `__getattr__` in `filename`."""
        namespace: dict = {}
        exec(compile("class M:\n    def __getattr__(self, name):\n        raise AttributeError(name)\n",
                     filename, "exec"), namespace)
        exec(compile("def f(m):\n    return m.weight\n", solution, "exec"), namespace)
        try:
            namespace["f"](namespace["M"]())
        except AttributeError as error:
            return error
        raise AssertionError("nothing raised")

    assert worker._cause(attribute_missing(torch.nn.functional.__file__), {solution}) == "solution"  # nn.Module's
    assert worker._cause(attribute_missing(stand_ins.__file__), {solution}) == "environment"


def test_cl413_rejects_an_environment_switch_only_where_it_probes_the_evaluator() -> None:
    from cudalint.checks.cl413_evaluator_escape import probes_the_evaluator

    assert all(probes_the_evaluator(n) for n in ("*", "KERNEL_EVAL_MODE", "KERNELBENCH", "GRADER_ID", "BENCHMARK_MODE",
                                                 "is_evaluation", "PYTEST_CURRENT_TEST"))
    assert not any(probes_the_evaluator(n) for n in ("FORCE_TORCH", "RELU_THREADS", "USE_CUDA_KERNEL", "DEBUG",
                                                     "DISABLE_CUSTOM_OPS"))


@needs_torch
def test_cl413_an_authors_torch_switch_unset_when_graded_warns_without_rejecting() -> None:
    switch = Path(__file__).parent / "fixtures" / "rules" / "CL413" / "bad_environment_kill_switch_warning.py"
    probe = Path(__file__).parent / "fixtures" / "rules" / "CL413" / "bad_kernel_path_depends_on_environment.py"
    result = cudalint.prefilter([str(switch), str(probe)], jobs=1, use_config=False)
    found = {Path(item.path).name: [f.severity.value for f in item.findings if f.code == "CL413"] for item in result.items}
    assert found == {switch.name: ["warning"], probe.name: ["error"]}
    assert [Path(item.path).name for item in result.accepted] == [switch.name]
