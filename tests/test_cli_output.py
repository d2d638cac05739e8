"""What `cudalint check` prints promises only what is true: `[*]` and the fixable count only for fixes
`--fix` applies (a dropped fix says why with --show-fixes); JSON carries `fix` for every finding; tables
fit their rule names; the usual -h, -V and shell completion."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from cudalint.cli import app

FIXTURES = Path(__file__).parent / "fixtures" / "cli"
# CL901 about at::cuda::getCurrentCUDAStream carries an #include fix, which cannot help: the launch is in
# the C++ source, where `<<<` is no C++ at all
DROPPED_FIX = FIXTURES / "dropped_fix.py"
OFF_BY_ONE = """__global__ void k(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) x[i] = 0.0f;
}
"""


def check(*args) -> object:
    return CliRunner().invoke(app, ["check", "--no-config", "--no-cache", "--color", "never", *map(str, args)])


def test_a_fix_that_would_be_dropped_is_not_promised(tmp_path: Path) -> None:
    path = tmp_path / DROPPED_FIX.name
    shutil.copy(DROPPED_FIX, path)
    result = check(path)
    assert result.exit_code == 1 and "CL901" in result.stdout
    assert "[*]" not in result.stdout and "fixable" not in result.stdout
    fixed = check("--fix", "--show-fixes", path)
    assert path.read_text() == DROPPED_FIX.read_text()
    assert fixed.stderr.splitlines() == [
        "cudalint: fixed 0 findings in 0 files:", f"  {path}:",
        "    not fixed: 11:40 CL901 (compile-error): CL901 is still reported at line 12 after the fix"]


def test_the_fixable_count_is_what_fix_fixes(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(OFF_BY_ONE)
    shutil.copy(DROPPED_FIX, tmp_path / DROPPED_FIX.name)
    before = check(tmp_path)
    assert "[*] 1 fixable with --fix." in before.stdout and before.stdout.count(" [*] ") == 1
    fixed = check("--fix", tmp_path)
    assert fixed.stderr.startswith("cudalint: fixed 1 finding in 1 file")
    assert "[*]" not in fixed.stdout and "[*]" not in check(tmp_path).stdout


def test_json_carries_fix_for_every_finding(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    # CL202 carries a fix, CL301 (an oversized shared array) none
    path.write_text(OFF_BY_ONE + "__global__ void k2() { __shared__ float big[20000]; big[threadIdx.x] = 0; }\n")
    findings = json.loads(check("--format", "json", path).stdout)
    assert {f["code"] for f in findings} >= {"CL202", "CL301"}
    assert all("fix" in f for f in findings)
    assert any(f["fix"] is None for f in findings) and any(f["fix"] is not None for f in findings)


def test_the_batch_table_fits_a_long_rule_name(tmp_path: Path) -> None:
    for bad in sorted((Path(__file__).parent / "fixtures" / "rules" / "CL420").glob("bad_*.py"))[:2]:
        shutil.copy(bad, tmp_path / bad.name)
    lines = check(tmp_path).stdout.splitlines()
    header = lines.index("rule   name                           severity  findings  files  rejected")
    rows = lines[header + 2:]
    assert any("weights-differ-from-reference" in row for row in rows)  # 29 characters
    assert {row.index("error") if "error" in row else row.index("warning") for row in rows} == \
        {lines[header].index("severity")}
    assert {len(row) for row in rows} == {len(lines[header])}  # the numbers end under `rejected`


def test_short_help_version_and_shell_completion() -> None:
    runner = CliRunner()
    for command in ([], ["check"], ["repair"], ["verify"], ["report"], ["eval"]):
        result = runner.invoke(app, [*command, "-h"])
        assert result.exit_code == 0 and result.stdout.startswith("Usage: "), (command, result.output)
    import cudalint

    assert runner.invoke(app, ["-V"]).stdout == f"cudalint {cudalint.__version__}\n"
    completion = runner.invoke(app, ["--show-completion", "bash"])
    assert completion.exit_code == 0 and "_cudalint_completion" in completion.stdout


def test_one_spelling_of_each_option_and_variable(tmp_path: Path, monkeypatch) -> None:
    """--reference, --model and --format are the names shown; the older --ref, --llm and --output-format
    still work; every cache lives under $CUDALINT_CACHE_DIR, and $CUDALINT_CACHE says it is deprecated."""
    from cudalint.verify.build_cache import default_cache_dir

    runner = CliRunner()
    for command, shown, hidden in ((["verify"], "--reference", "--ref "), (["repair"], "--reference", "--ref "),
                                   (["repair"], "--model", "--llm"), (["check"], "--format", "--output-format")):
        help_text = runner.invoke(app, [*command, "-h"]).stdout
        assert shown in help_text and hidden not in help_text, (command, shown)
    path = tmp_path / "k.cu"
    path.write_text(OFF_BY_ONE)
    assert json.loads(check("--output-format", "json", path).stdout)[0]["code"] == "CL202"
    monkeypatch.delenv("CUDALINT_CACHE", raising=False)
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "caches"))
    assert default_cache_dir() == str(tmp_path / "caches" / "verify")
    monkeypatch.setenv("CUDALINT_CACHE", str(tmp_path / "old"))
    assert default_cache_dir() == str(tmp_path / "old")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    result = runner.invoke(app, ["verify", str(path), "--reference", str(path)])
    assert result.stderr.splitlines()[0] == ("cudalint: warning: $CUDALINT_CACHE is deprecated: set $CUDALINT_CACHE_DIR "
                                             "instead (the build cache is its verify/ folder)")
