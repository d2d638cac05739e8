"""A named reference that cannot be found is an input error, never a silent pass: a mistyped `--problems`
or `--reference`, or a solution whose file name names no problem, would turn the reference-aware rules
(CL406/CL407/CL420/CL430) off. The same reference reaches every gate: check, prefilter, verify."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

import cudalint
from cudalint.cli import app

HERE = Path(__file__).parent / "fixtures" / "cli" / "reference_run"
PROBLEMS = HERE / "problems"
SOLUTION = HERE / "run" / "level_1_problem_1_sample_0_kernel.py"  # CL430 only against its reference


def check(*args: str):
    return CliRunner().invoke(app, ["check", "--no-config", "--no-cache", *map(str, args)])


def assert_one_line_error(result, fragment: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("cudalint: error: "), result.stderr
    assert fragment in result.stderr, result.stderr


def test_with_its_reference_the_solution_is_judged() -> None:
    result = check("--problems", PROBLEMS, SOLUTION)
    assert result.exit_code == 1 and "CL430" in result.stdout
    assert check("--reference", PROBLEMS / "level1" / "1_RowSum.py", SOLUTION).exit_code == 1
    assert check(SOLUTION).exit_code == 0  # no reference asked for: the rules that need one stay quiet


def test_a_mistyped_problems_directory_or_reference_is_an_input_error() -> None:
    assert_one_line_error(check("--problems", HERE / "problemz", SOLUTION), "problemz: no such problems directory")
    assert_one_line_error(check("--reference", HERE / "nope.py", SOLUTION), "nope.py: no such reference file")


def test_a_file_naming_no_problem_or_a_missing_problem_is_an_input_error(tmp_path: Path) -> None:
    unnamed = tmp_path / "solution.py"
    shutil.copy(SOLUTION, unnamed)
    assert_one_line_error(check("--problems", PROBLEMS, unnamed), "names no KernelBench problem")
    absent = tmp_path / "level_1_problem_2_sample_0_kernel.py"
    shutil.copy(SOLUTION, absent)
    assert_one_line_error(check("--problems", PROBLEMS, absent), "no reference for level 1 problem 2 in")
    stdin = CliRunner().invoke(app, ["check", "--no-config", "--problems", str(PROBLEMS), "-", "--stdin-filename",
                                     "solution.py"], input=SOLUTION.read_text())
    assert_one_line_error(stdin, "solution.py: the file name names no KernelBench problem")


def test_the_prefilter_reports_an_error_item_never_clean(tmp_path: Path) -> None:
    unnamed = tmp_path / "solution.py"
    shutil.copy(SOLUTION, unnamed)
    for kwargs, named in (({"problems": str(HERE / "problemz")}, "problemz: no such problems directory"),
                          ({"reference": str(HERE / "nope.py")}, "nope.py: no such reference file"),
                          ({"problems": str(PROBLEMS)}, f"{unnamed}: the file name names no KernelBench problem")):
        result = cudalint.prefilter([unnamed], jobs=1, use_config=False, **kwargs)
        assert not result.accepted and named in result.rejected[0].error, kwargs
        assert result.rejected[0].render() == result.rejected[0].error  # one line, the input named once
    judged = cudalint.prefilter([SOLUTION], jobs=1, use_config=False, problems=str(PROBLEMS))
    assert [f.code for f in judged.rejected[0].reasons] == ["CL430"]


def test_repair_verify_lints_with_the_reference_before_the_gpu(tmp_path: Path, monkeypatch) -> None:
    """`repair --verify --problems` lints with the file's reference as `check --problems` does: the solution
    whose only bug is CL430 goes to the model with it, not to the GPU as clean."""
    import sys

    import cudalint.verify.gpu_check as verify_gpu_check
    from cudalint.verify.runner import VerifyOptions

    sys.path.insert(0, str(Path(__file__).parent))
    from openai_stub_server import Reply, StubServer

    monkeypatch.chdir(tmp_path)
    shutil.copy(SOLUTION, tmp_path / SOLUTION.name)
    monkeypatch.setattr(VerifyOptions, "missing_gpu", lambda self: None)  # a GPU, as far as the check goes
    built: list[str] = []
    monkeypatch.setattr(verify_gpu_check, "make_gpu_check", lambda *args: lambda path, text: built.append(path) or [])
    with StubServer([Reply(content="```python\n" + SOLUTION.read_text() + "```\n")]) as server:
        result = CliRunner().invoke(app, ["repair", SOLUTION.name, "--llm", "m", "--rounds", "1", "--verify",
                                          "--problems", str(PROBLEMS), "--no-config"],
                                    env={"OPENAI_API_KEY": "sk-test-0123456789abcdef", "OPENAI_BASE_URL": server.base_url})
    assert result.exit_code == 1, result.output
    assert len(server.requests) == 1 and "CL430" in server.requests[0].messages[-1]["content"]
    assert built == []  # never clean, so never sent to the GPU
