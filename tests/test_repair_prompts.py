"""Repair prompts: golden files pin the rendered system, repair and follow-up prompts for a fixture kernel;
other tests pin what goes in (fired rules' guidance only, marked excerpts, fences) and `cudalint prompt`.

Regenerate the golden files after an intended template change with
    CUDALINT_UPDATE_GOLDEN=1 python -m pytest tests/test_repair_prompts.py
and review the diff of tests/golden/.
"""

from __future__ import annotations

import difflib
import json
import os
from importlib import resources
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cudalint.findings import Finding, Location, RelatedLocation, Severity
from cudalint.repairing import prompts
from cudalint.repairing.cli import register
from cudalint.rule_docs import page_for
from cudalint.checks.registry import find_rule

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
FIXTURE = HERE / "fixtures" / "repair" / "sigmoid_block2048.py"
UPDATE = os.environ.get("CUDALINT_UPDATE_GOLDEN") == "1"

# Findings and guidance are written out here rather than taken from the engine and the rule pages, so
# that the golden files change only when the templates (or prompts.py) do.
PATH = "kernels/sigmoid_block2048.py"
LAUNCH = Finding(
    "CL302", "invalid-launch-config", Severity.ERROR, Location(PATH, 22, 5, 22, 47),
    "launch of `sigmoid_kernel` cannot run: block dimension x is 2048, over the limit of 1024; 2048 threads "
    "per block, over the limit of 1024",
    (RelatedLocation(Location(PATH, 20, 5, 20, 33), "the block size is set here"),))
# the version the follow-up is about: the launch fixed badly, a 64 KB staging array added at line 10
STAGING = "    __shared__ float staging[16384];\n"
SHARED = Finding(
    "CL301", "shared-memory-oversize", Severity.ERROR, Location(PATH, 10, 5, 10, 36),
    "static shared memory of kernel `sigmoid_kernel` exceeds the 48 KB limit: `staging` is 64 KB")
GUIDANCE = [prompts.Guidance("CL302", "invalid-launch-config",
                             "- Use at most 1024 threads per block.\n- Compute the grid with a ceiling division.")]
NEW_GUIDANCE = [prompts.Guidance("CL301", "shared-memory-oversize", "- Keep static shared memory at or below 48 KB.")]


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing; run with CUDALINT_UPDATE_GOLDEN=1 to create it"
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            f"golden/{name}", "rendered"))
        pytest.fail(f"rendered prompt differs from golden/{name} (CUDALINT_UPDATE_GOLDEN=1 regenerates it):\n{diff}")


@pytest.fixture
def kernel() -> str:
    return FIXTURE.read_text(encoding="utf-8")


def test_golden_system_prompt_for_a_load_inline_model(kernel: str) -> None:
    check_golden("system_load_inline.txt", prompts.render_system(prompts.describe(PATH, kernel)))


def test_golden_system_prompt_for_a_cuda_file() -> None:
    check_golden("system_cuda.txt", prompts.render_system(prompts.describe("kernel.cu", "__global__ void k() {}\n")))


def test_golden_repair_prompt(kernel: str) -> None:
    check_golden("repair.txt", prompts.render_repair(PATH, kernel, [LAUNCH], GUIDANCE))


def test_golden_followup_with_remaining_and_new_findings(kernel: str) -> None:
    lines = kernel.splitlines(keepends=True)
    assert lines[8].startswith("__global__ void sigmoid_kernel(")
    version = "".join(lines[:9] + [STAGING] + lines[9:])
    launch = Finding(LAUNCH.code, LAUNCH.name, LAUNCH.severity, Location(PATH, 23, 5, 23, 47), LAUNCH.message,
                     (RelatedLocation(Location(PATH, 21, 5, 21, 33), "the block size is set here"),))
    check_golden("followup_findings.txt",
                 prompts.render_followup(PATH, version, [SHARED, launch], previous=[LAUNCH], guidance=NEW_GUIDANCE))


def test_golden_followup_after_an_answer_without_code(kernel: str) -> None:
    check_golden("followup_no_code.txt",
                 prompts.render_followup(PATH, kernel, [LAUNCH], problem="no_code",
                                         problem_detail="it contains no code block", show_file=True))


def test_golden_followup_after_a_truncated_answer(kernel: str) -> None:
    check_golden("followup_truncated.txt",
                 prompts.render_followup(PATH, kernel, [LAUNCH], problem="truncated",
                                         problem_detail='it reached the token limit (finish_reason "length")',
                                         show_file=True))


def test_golden_followup_with_gpu_reports(kernel: str) -> None:
    report = prompts.GpuReport("output mismatch", "max abs difference 0.5 at index 1024 (expected 0.73, got 0.23)")
    check_golden("followup_gpu.txt", prompts.render_followup(PATH, kernel, [], previous=[LAUNCH], gpu_reports=[report]))


# ------------------------------------------------------------------------------------------ contents


def test_templates_ship_in_the_prompt_templates_package() -> None:
    package = resources.files("cudalint.prompt_templates")
    for name in ("system.j2", "repair.j2", "followup.j2", "_findings.j2"):
        assert (package / name).is_file(), name
    # prompts.py holds no prompt wording: a sentence of each template is found only in the template
    source = Path(prompts.__file__).read_text()
    for sentence in ("You are an expert CUDA engineer", "Repair {{", "Keep the explanation short",
                     "Answer with the complete corrected file"):
        assert sentence not in source


def test_repair_prompt_holds_the_file_the_finding_and_a_marked_excerpt(kernel: str) -> None:
    text = prompts.render_repair(PATH, kernel, [LAUNCH], GUIDANCE)
    assert "```python\n" + kernel.rstrip("\n") + "\n```" in text
    assert "### 1. CL302 invalid-launch-config (error) at line 22, column 5" in text
    assert LAUNCH.message in text
    marked = [line for line in text.splitlines() if line.startswith(">")]
    assert marked == ["> 22 |     sigmoid_kernel<<<num_blocks, block_size>>>(x.data_ptr<float>(), "
                      "out.data_ptr<float>(), n);"]
    caret_line = text.splitlines()[text.splitlines().index(marked[0]) + 1]
    assert caret_line == "     |     ^" + "~" * 41
    assert "- line 20, column 5: the block size is set here (`const int block_size = 2048;`)" in text


def test_guidance_comes_from_the_rule_pages_only_for_rules_that_fired(kernel: str) -> None:
    cl302 = page_for(find_rule("CL302"))
    cl301 = page_for(find_rule("CL301"))
    if cl302 is None or cl301 is None:
        pytest.skip("rules/CL301.md or rules/CL302.md is missing")
    text = prompts.render_repair(PATH, kernel, [LAUNCH])
    assert "## How to repair\n\n### CL302 invalid-launch-config\n\n" + cl302.how_to_repair in text
    assert cl301.how_to_repair not in text
    both = prompts.render_repair(PATH, kernel, [SHARED, LAUNCH])
    assert cl301.how_to_repair in both and both.count(cl302.how_to_repair) == 1


def test_no_guidance_section_for_rules_without_a_page(kernel: str) -> None:
    unknown = Finding("CL999", "made-up", Severity.ERROR, Location(PATH, 3, 1, 3, 2), "made up")
    assert "## How to repair" not in prompts.render_repair(PATH, kernel, [unknown])


def test_followup_repeats_no_guidance_given_before(kernel: str) -> None:
    text = prompts.render_followup(PATH, kernel, [LAUNCH], previous=[LAUNCH])
    assert "## How to repair" not in text
    assert "still finds 1 problem." in text and "Resolved" not in text


def test_fence_outgrows_backticks_in_the_file() -> None:
    text = 'doc = """\n```python\nexample\n```\n"""\n'
    assert prompts.fence_for(text) == "````"
    finding = Finding("CL400", "invalid-solution", Severity.ERROR, Location("m.py", 1, 1, 1, 2), "bad")
    rendered = prompts.render_repair("m.py", text, [finding], [])
    assert "````python\n" + text.rstrip("\n") + "\n````" in rendered


def test_actionable_findings_are_warnings_and_errors_except_internal_errors() -> None:
    def make(code: str, severity: Severity) -> Finding:
        return Finding(code, "x", severity, Location("k.cu", 1, 1, 1, 2), "m")

    kept = [make("CL302", Severity.ERROR), make("CL902", Severity.WARNING)]
    dropped = [make("CL903", Severity.INFO), make("CL900", Severity.WARNING)]
    assert prompts.actionable(kept + dropped) == kept


# --------------------------------------------------------------------------------------- cudalint prompt


def app() -> typer.Typer:
    application = typer.Typer()
    register(application)

    @application.callback()
    def _root() -> None:
        """cudalint"""

    return application


def test_prompt_command_prints_the_repair_prompt_system_prompt_and_messages(tmp_path: Path, kernel: str) -> None:
    path = tmp_path / "sigmoid.py"
    path.write_text(kernel)
    runner = CliRunner()
    user = runner.invoke(app(), ["prompt", str(path)])
    assert user.exit_code == 0, user.output
    assert user.stdout.startswith("cudalint found 1 problem in `sigmoid.py`. Repair it.")
    assert "CL302 invalid-launch-config" in user.stdout
    system = runner.invoke(app(), ["prompt", str(path), "--system"])
    assert system.exit_code == 0 and system.stdout.startswith("You are an expert CUDA engineer.")
    as_json = runner.invoke(app(), ["prompt", str(path), "--json"])
    payload = json.loads(as_json.stdout)
    assert [m["role"] for m in payload["messages"]] == ["system", "user"]
    assert payload["messages"][0]["content"] == system.stdout
    assert payload["messages"][1]["content"] == user.stdout
    assert [f["code"] for f in payload["findings"]] == ["CL302"]


def test_prompt_command_on_a_clean_file_prints_nothing(tmp_path: Path, kernel: str) -> None:
    path = tmp_path / "ok.py"
    path.write_text(kernel.replace("block_size = 2048", "block_size = 256"))
    result = CliRunner().invoke(app(), ["prompt", str(path)])
    assert result.exit_code == 0 and result.stdout == ""
    assert "nothing to repair" in result.stderr


def test_prompt_command_reports_a_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(app(), ["prompt", str(tmp_path / "missing.cu")])
    assert result.exit_code == 2
    assert "no such file" in result.stderr
