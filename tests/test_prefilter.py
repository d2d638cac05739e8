"""Batch mode over a directory laid out like a KernelBench run, through `cudalint.prefilter` and its
summary: which files are accepted, which are rejected and why, in parallel, with sources given as
text as well as paths."""

from __future__ import annotations

import gc
import os
import textwrap
from pathlib import Path

import pytest

import cudalint
from cudalint.config import LintOptions
from cudalint.engine import lint_paths
from cudalint.harness.kernelbench import find_reference, parse_run_name, reference_for
from cudalint.model import ir
from cudalint.prefilter import BatchSummary, rejecting_findings, summarize

KERNEL = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>

__global__ void scale_kernel(const float* x, float* y, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * s;
}

torch::Tensor scale_cuda(torch::Tensor x, double s) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    scale_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), (float)s, n);
    return y;
}
"""

ext = load_inline(name="scale_SAMPLE", cpp_sources="torch::Tensor scale_cuda(torch::Tensor x, double s);",
                  cuda_sources=source, functions=[FUNCTIONS])


class ModelNew(nn.Module):
    def __init__(self, s: float = 2.0):
        super().__init__()
        self.s = s
        self.ext = ext

    def forward(self, x):
        return FORWARD
'''

GOOD = KERNEL.replace("FUNCTIONS", '"scale_cuda"').replace("FORWARD", "self.ext.scale_cuda(x, self.s)")
BAD_BINDING = KERNEL.replace("FUNCTIONS", '"scale_forward"').replace("FORWARD", "self.ext.scale_forward(x, self.s)")
BAD_FALLBACK = KERNEL.replace("FUNCTIONS", '"scale_cuda"').replace("FORWARD", "x * self.s")
HALF = KERNEL.replace("FUNCTIONS", '"scale_cuda"').replace("FORWARD", "self.ext.scale_cuda(x.half(), self.s).float()")
BROKEN = "import torch\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x)\n        return x\n"

REFERENCE = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Model(nn.Module):
        def __init__(self, s: float = 2.0):
            super().__init__()
            self.s = s

        def forward(self, x):
            return x * self.s


    batch_size = 16
    dim = 16384


    def get_inputs():
        return [torch.randn(batch_size, dim)]


    def get_init_inputs():
        return [2.0]
    """)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """runs/my_run/level_1_problem_<P>_sample_<S>_kernel.py: 36 files, 21 good, 15 rejected."""
    root = tmp_path_factory.mktemp("kernelbench")
    run = root / "runs" / "my_run"
    run.mkdir(parents=True)
    kinds = ([GOOD] * 7 + [BAD_BINDING] * 2 + [BAD_FALLBACK] * 2 + [BROKEN] * 1) * 3
    for index, text in enumerate(kinds):
        problem, sample = index // 4 + 1, index % 4
        (run / f"level_1_problem_{problem}_sample_{sample}_kernel.py").write_text(text.replace("SAMPLE", str(index)))
    problems = root / "KernelBench" / "level1"
    problems.mkdir(parents=True)
    (problems / "1_Scale.py").write_text(REFERENCE)
    return root


def test_batch_over_a_run_directory(run_dir: Path) -> None:
    result = cudalint.prefilter([run_dir / "runs" / "my_run"], jobs=2, use_config=False)
    assert len(result.accepted) == 21
    assert len(result.rejected) == 15
    for item in result.rejected:
        assert item.reasons, item.name
        assert item.render().count("\n") + 1 == len(item.findings)
    codes = {f.code for item in result.rejected for f in item.reasons}
    assert codes == {"CL400", "CL401", "CL402", "CL403"}
    assert all(item.path and item.path.endswith("_kernel.py") for item in result.accepted)

    summary = result.summary()
    assert isinstance(summary, BatchSummary)
    assert (summary.files, summary.accepted, summary.rejected, summary.unreadable) == (36, 21, 15, 0)
    per_rule = {r.code: r for r in summary.rules}
    assert per_rule["CL401"].files == per_rule["CL401"].rejected_files == 6
    assert per_rule["CL400"].files == 3
    assert per_rule["CL403"].files == 6
    assert summary.to_dict()["rejected"] == 15


def test_summary_of_lint_paths_results_matches_the_prefilter(run_dir: Path) -> None:
    results = lint_paths([str(run_dir / "runs" / "my_run")], options=cudalint.LintOptions(), jobs=2)
    summary = summarize(results)
    assert (summary.files, summary.accepted, summary.rejected) == (36, 21, 15)


def test_sources_as_text_and_named_pairs() -> None:
    result = cudalint.prefilter([GOOD, ("sample_7.py", BAD_BINDING), BROKEN], jobs=2, use_config=False)
    assert [item.name for item in result.accepted] == ["source_0.py"]
    assert sorted(item.name for item in result.rejected) == ["sample_7.py", "source_2.py"]
    rejected = {item.name: item for item in result.rejected}
    assert {f.code for f in rejected["sample_7.py"].reasons} == {"CL401"}
    assert all(f.path == "sample_7.py" for f in rejected["sample_7.py"].findings)
    # a source given as text is passed on by its name, with its text
    assert rejected["sample_7.py"].path == "sample_7.py" and rejected["sample_7.py"].text == BAD_BINDING
    assert result.accepted[0].path == "source_0.py" and result.accepted[0].text == GOOD
    assert rejected["sample_7.py"].render().startswith("sample_7.py:")


def test_missing_path_is_rejected_not_raised(tmp_path: Path) -> None:
    result = cudalint.prefilter([str(tmp_path / "nope.py")], jobs=1)
    assert not result.accepted and len(result.rejected) == 1
    assert "no such file" in result.rejected[0].error


def test_threshold_and_reference_from_problems_directory(run_dir: Path) -> None:
    run = run_dir / "runs" / "my_run"
    path = run / "level_1_problem_1_sample_0_kernel.py"
    path.write_text(HALF.replace("SAMPLE", "half"))
    try:
        problems = str(run_dir / "KernelBench")
        # the warning (fp16 in an fp32 problem) needs the reference: found by level and problem id
        plain = cudalint.prefilter([path], jobs=1, use_config=False)
        assert plain.accepted and not plain.rejected
        assert not any(f.code == "CL406" for f in plain.accepted[0].findings)
        with_reference = cudalint.prefilter([path], jobs=1, problems=problems, use_config=False)
        assert [f.code for f in with_reference.accepted[0].findings if f.code == "CL406"] == ["CL406"]
        strict = cudalint.prefilter([path], jobs=1, problems=problems, fail_on="warning", use_config=False)
        # at the warning threshold, CL406 rejects it, and so does CL206: data_ptr<float>() on the half tensor
        assert len(strict.rejected) == 1 and {f.code for f in strict.rejected[0].reasons} == {"CL206", "CL406"}
    finally:
        path.write_text(GOOD.replace("SAMPLE", "0"))


def test_run_names_and_reference_lookup(run_dir: Path) -> None:
    entry = parse_run_name("runs/x/level_2_problem_17_sample_3_kernel.py")
    assert (entry.level, entry.problem, entry.sample) == (2, 17, 3)
    assert parse_run_name("solution.py") is None
    problems = str(run_dir / "KernelBench")
    assert find_reference(problems, 1, 1).endswith("level1/1_Scale.py")
    assert find_reference(str(run_dir), 1, 1).endswith("level1/1_Scale.py")  # the repository root
    assert find_reference(problems, 1, 2) is None
    assert reference_for("level_1_problem_1_sample_0_kernel.py", problems=problems).endswith("1_Scale.py")


def test_levels_and_problems_from_path_layouts(run_dir: Path) -> None:
    from cudalint.harness.kernelbench import problem_of_path

    layouts = {"runs/codex/level_2/problem_7.py": (2, 7), "runs/L2/7.py": (2, 7),
               "runs/level2/7_Conv2d_ReLU.py": (2, 7), "runs/level_3_problem_4.py": (3, 4),
               "runs/qwen-level1/answer.py": (1, None), "level_2_problem_17_sample_3_kernel.py": (2, 17)}
    for path, expected in layouts.items():
        entry = problem_of_path(path)
        assert (entry.level, entry.problem) == expected, path
    assert problem_of_path("solution.py") is None and problem_of_path("runs/x/7.py") is None
    problems = str(run_dir / "KernelBench")
    for path in ("runs/codex/level_1/problem_1.py", "L1/1.py", "runs/level1/1_Scale.py"):
        assert reference_for(path, problems=problems).endswith("level1/1_Scale.py"), path


def test_a_file_of_a_run_without_modelnew_is_cl400(run_dir: Path) -> None:
    loader = KERNEL.replace("FUNCTIONS", '"scale_cuda"').replace("FORWARD", "self.ext.scale_cuda(x, self.s)")
    loader = loader.replace("class ModelNew(nn.Module)", "class Scale(nn.Module)")
    problems = str(run_dir / "KernelBench")

    def codes(filename: str, options: LintOptions | None = None) -> set[str]:
        return {f.code for f in cudalint.lint_source(loader, filename=filename, options=options)}

    assert "CL400" not in codes("scale_extension.py")  # an ordinary extension loader
    assert "CL400" in codes("runs/codex/level_1/problem_1.py")
    assert "CL400" in codes("scale_extension.py", LintOptions(problems=problems))


def test_kernel_doing_none_of_the_reference_work_is_cl403(run_dir: Path) -> None:
    # the reference's only operation (`x * self.s`) is still torch's; the kernel scales by one
    decoration = KERNEL.replace("FUNCTIONS", '"scale_cuda"').replace(
        "FORWARD", "self.ext.scale_cuda(y, 1.0)").replace("        return self", "        y = x * self.s\n        return self")
    reference = str(run_dir / "KernelBench" / "level1" / "1_Scale.py")

    def findings(options: LintOptions | None = None) -> dict[str, int]:
        return {f.code: f.line for f in cudalint.lint_source(decoration, filename="solution.py", options=options)
                if f.code in ("CL403", "CL408")}

    assert set(findings()) == {"CL408"}  # without the reference: partial use, a warning
    assert set(findings(LintOptions(reference=reference))) == {"CL403"}


def test_the_inputs_own_suppressions_are_not_honoured_unless_asked() -> None:
    # a generated solution that hides its real error (an unguarded index) with one comment
    hidden = "# cudalint: ignore-file\n" + GOOD.replace("if (i < n) y[i]", "y[i]")
    judged = cudalint.prefilter([("hidden.py", hidden)], jobs=1)
    assert [item.name for item in judged.rejected] == ["hidden.py"]
    assert [f.code for f in judged.rejected[0].reasons] == ["CL201"]
    assert all(f.code != "CL902" for f in judged.rejected[0].findings)
    trusted = cudalint.prefilter([("hidden.py", hidden)], jobs=1, honour_suppressions=True)
    assert [item.name for item in trusted.accepted] == ["hidden.py"] and trusted.accepted[0].findings == []


def test_the_inputs_own_suppressions_are_not_honoured_with_options_or_a_configuration(tmp_path) -> None:
    (tmp_path / "cudalint.toml").write_text('ignore = ["CL403"]\n')
    (tmp_path / "hidden.py").write_text("# cudalint: ignore-file[CL201]\n" + GOOD.replace("if (i < n) y[i]", "y[i]"))
    for options in (None, LintOptions()):
        judged = cudalint.prefilter([str(tmp_path / "hidden.py")], jobs=1, options=options)
        assert [f.code for f in judged.rejected[0].reasons] == ["CL201"]


def test_tool_findings_never_reject_but_an_incomplete_analysis_always_does() -> None:
    from cudalint.findings import Finding, Location, Severity

    unused = Finding("CL902", "unused-suppression", Severity.WARNING, Location("x.py", 1, 1, 1, 1), "unused")
    internal = Finding("CL900", "internal-error", Severity.WARNING, Location("x.py", 1, 1, 1, 1), "bug")
    assert rejecting_findings([unused], "info") == []
    assert rejecting_findings([unused, internal], "error") == [internal]


PROBE_KERNEL = textwrap.dedent("""
    __device__ float twice(float v) { return v > 0.0f ? 2.0f * v : 0.0f; }

    __global__ void probe_kept_alive_kernel(const float* in, float* out, int n) {
        __shared__ float tile[256];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        tile[threadIdx.x] = i < n ? in[i] : 0.0f;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
            __syncthreads();
        }
        if (i < n) out[i] = twice(tile[255 - threadIdx.x]);
    }
    """)


def test_linting_keeps_no_kernel_model_alive():
    """A batch worker lints thousands of files: nothing of a linted file's IR may outlive its findings
    (analyses cached in module-level tables once kept every file's IR, 250 KB a file, alive)."""
    findings = cudalint.lint_source(PROBE_KERNEL, filename="probe.cu")
    assert all(f.code != "CL900" for f in findings)
    gc.collect()
    kept = [o for o in gc.get_objects() if type(o) is ir.Function and o.name == "probe_kept_alive_kernel"]
    assert kept == []


def test_linting_leaves_no_reference_cycles():
    """What a file's lint made is freed by reference counting when it is done. Cycles (a recursive closure,
    an analysis and its cache, a graph node and its guard) left it to the cycle collector, whose passes
    over that garbage took 6 to 8% of lint time."""
    inputs = [(PROBE_KERNEL, "probe.cu"), (GOOD, "model.py"),
              ("def broken(:\n", "broken.py")]
    for text, name in inputs:  # once first: first uses fill caches (ctypes types, memo tables)
        cudalint.lint_source(text, filename=name)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for text, name in inputs:
            cudalint.lint_source(text, filename=name)
        gc.collect()
        package = os.path.dirname(cudalint.__file__)
        ours = [o for o in gc.garbage if type(o).__module__.startswith("cudalint.")
                or getattr(getattr(o, "__code__", None), "co_filename", "").startswith(package)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert ours == []


def test_references_give_each_input_its_own_problem_in_one_call() -> None:
    """`references`: inputs of different problems, linted in one pool, judged as one call per reference would."""
    run = Path(__file__).parent / "fixtures" / "verify"
    pairs = {str(run / "run" / "level_1_problem_47_sample_1_kernel.py"):
             str(run / "problems" / "level1" / "47_Sum_reduction_over_a_dimension.py"),
             str(run / "run" / "level_1_problem_19_sample_0_kernel.py"): str(run / "problems" / "level1" / "19_ReLU.py")}
    together = {item.path: item for item in cudalint.prefilter(list(pairs), references=pairs, jobs=2).items}
    for path, reference in pairs.items():
        [alone] = cudalint.prefilter([path], reference=reference, jobs=1).items
        assert [(f.code, f.line) for f in together[path].findings] == [(f.code, f.line) for f in alone.findings]
        assert together[path].rejected == alone.rejected
    assert together[str(run / "run" / "level_1_problem_47_sample_1_kernel.py")].reasons[0].code == "CL101"
