"""The command line: exit codes, output formats, options, configuration discovery, suppressions, rule
docs. Most tests run the typer app in-process; a few run `python -m cudalint` for real."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import cudalint
from cudalint.cli import app

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path("tests/fixtures/cli")  # relative to REPO: the CLI prints paths as given
CLEAN = str(FIXTURES / "clean.cu")
OVERSIZE = str(FIXTURES / "oversize.cu")
STATISTICS = str(FIXTURES / "statistics.cu")
UNUSED = str(FIXTURES / "unused_suppression.cu")
UNKNOWN_HEADER = str(FIXTURES / "unknown_header.cu")
SYNTAX_ERROR = str(FIXTURES / "syntax_error.py")

# the exact diagnostic line for oversize.cu; the column is where `__shared__` starts
OVERSIZE_LINE = (
    "tests/fixtures/cli/oversize.cu:7:5: CL301 [error] static shared memory of kernel `row_sum` exceeds "
    "the 48 KB limit: `row` alone is 64 KB; use dynamic shared memory with cudaFuncSetAttribute for more"
)
DIAGNOSTIC = re.compile(r"^(?P<path>\S+):(?P<line>\d+):(?P<col>\d+): (?P<code>CL\d{3}) \[(?P<sev>\w+)\] (?P<msg>.+)$")


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def cli(*args: str, env: dict | None = None):
    return CliRunner().invoke(app, list(args), env=env)


def codes(output: str) -> list[str]:
    return [m.group("code") for line in output.splitlines() if (m := DIAGNOSTIC.match(line))]


def assert_one_line_error(result, *fragments: str) -> None:
    """Exit 2 with exactly one `cudalint: error: ...` line on stderr and no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cudalint: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.stderr + result.stdout


def python_m_cudalint(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return subprocess.run([sys.executable, "-m", "cudalint", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


# ------------------------------------------------------------------------- real processes: python -m cudalint


def test_subprocess_clean_kernel_exits_0():
    done = python_m_cudalint("check", CLEAN)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == "All checks passed.\n"
    assert done.stderr == ""


def test_subprocess_oversize_exits_1_with_the_exact_line():
    done = python_m_cudalint("check", OVERSIZE)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == OVERSIZE_LINE
    # the excerpt and the caret under `__shared__ float row[ROW];` (columns 5 to 29, end exclusive)
    assert lines[1] == "    __shared__ float row[ROW];"
    assert lines[2] == "    ^" + "~" * 24
    assert lines[-1] == "Found 1 finding (1 error) in 1 file."
    assert "\033[" not in done.stdout  # not a terminal: no colour


def test_subprocess_input_error_is_one_line_and_exit_2():
    done = python_m_cudalint("check", "tests/fixtures/cli/does_not_exist.cu")
    assert done.returncode == 2
    assert done.stderr == "cudalint: error: tests/fixtures/cli/does_not_exist.cu: no such file or directory\n"


def test_subprocess_version():
    done = python_m_cudalint("--version")
    assert done.returncode == 0
    assert done.stdout == f"cudalint {cudalint.__version__}\n"


# ---------------------------------------------------------------------------------------- exit codes


def test_clean_kernel_exits_0():
    result = cli("check", CLEAN)
    assert result.exit_code == 0, result.output
    assert result.stdout == "All checks passed.\n"


def test_oversize_exits_1_and_prints_the_finding():
    result = cli("check", OVERSIZE)
    assert result.exit_code == 1
    assert OVERSIZE_LINE in result.stdout.splitlines()


def test_exit_zero_keeps_the_findings_but_exits_0():
    result = cli("check", "--exit-zero", OVERSIZE)
    assert result.exit_code == 0
    assert OVERSIZE_LINE in result.stdout.splitlines()


def test_fail_on_thresholds():
    # unused_suppression.cu has a warning (CL902) only; unknown_header.cu an info (CL903) only
    assert codes(cli("check", UNUSED).stdout) == ["CL902"]
    assert cli("check", UNUSED).exit_code == 0
    assert cli("check", "--fail-on", "warning", UNUSED).exit_code == 1
    assert cli("check", "--fail-on", "error", UNUSED).exit_code == 0
    assert codes(cli("check", UNKNOWN_HEADER).stdout) == ["CL903"]
    assert cli("check", "--fail-on", "warning", UNKNOWN_HEADER).exit_code == 0
    assert cli("check", "--fail-on", "info", UNKNOWN_HEADER).exit_code == 1
    assert cli("check", "--fail-on", "info", "--exit-zero", UNKNOWN_HEADER).exit_code == 0


def test_fail_on_rejects_an_unknown_level():
    result = cli("check", "--fail-on", "fatal", CLEAN)
    assert result.exit_code == 2


def test_python_syntax_error_is_a_finding_not_an_input_error():
    result = cli("check", SYNTAX_ERROR)
    assert result.exit_code == 1
    assert result.stderr == ""
    assert result.stdout.splitlines()[0] == (
        "tests/fixtures/cli/syntax_error.py:18:26: CL400 [error] Python syntax error: '(' was never closed; "
        "the file cannot be imported")


def test_directory_is_searched_recursively(tmp_path):
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    shutil.copy(OVERSIZE, nested / "kernel.cu")
    shutil.copy(CLEAN, tmp_path / "clean.cuh")
    (tmp_path / "notes.txt").write_text("not a source\0")  # ignored: not a .cu/.cuh/.py file
    result = cli("check", "--no-config", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert codes(result.stdout) == ["CL301"]
    assert DIAGNOSTIC.match(result.stdout.splitlines()[0]).group("path") == str(nested / "kernel.cu")


def test_jobs_gives_the_same_output(tmp_path):
    for name in ("clean.cu", "oversize.cu", "statistics.cu", "syntax_error.py"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    serial = cli("check", "--no-config", str(tmp_path))
    parallel = cli("check", "--no-config", "--jobs", "2", str(tmp_path))
    assert serial.exit_code == parallel.exit_code == 1
    assert serial.stdout == parallel.stdout
    assert cli("check", "--jobs", "0", CLEAN).exit_code == 0  # 0: one worker per core for large batches
    assert cli("check", "--jobs", "-1", CLEAN).exit_code == 2


# ------------------------------------------------------------------------------ input errors: exit 2


def test_missing_path():
    assert_one_line_error(cli("check", "nowhere/kernel.cu"), "nowhere/kernel.cu: no such file or directory")


def test_path_whose_parent_is_a_file():
    # fails for root too, unlike a chmod 000 file
    assert_one_line_error(cli("check", CLEAN + "/kernel.cu"), "clean.cu/kernel.cu")


def test_binary_file(tmp_path):
    path = tmp_path / "kernel.cu"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)))
    assert_one_line_error(cli("check", str(path)), f"{path}: binary file")


def test_non_utf8_file(tmp_path):
    path = tmp_path / "kernel.cu"
    path.write_bytes(b"// caf\xe9 kernel\n__global__ void k() {}\n")
    assert_one_line_error(cli("check", str(path)), f"{path}: not UTF-8 text (byte 6)")


def test_too_large_file(tmp_path):
    path = tmp_path / "huge.cu"
    path.write_text("// padding\n" * (4 * 1024 * 1024 // 11 + 1))
    assert_one_line_error(cli("check", str(path)), f"{path}: larger than 4 MiB")


def test_broken_symlink_found_in_a_directory(tmp_path):
    (tmp_path / "gone.cu").symlink_to(tmp_path / "deleted.cu")
    assert_one_line_error(cli("check", "--no-config", str(tmp_path)), "gone.cu: no such file")


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux /proc/self/mem")
def test_unreadable_file_even_for_root():
    # reading /proc/self/mem from offset 0 fails with EIO for every user, root included
    assert_one_line_error(cli("check", "/proc/self/mem"), "/proc/self/mem: cannot read")


def test_unreadable_file_chmod_000(tmp_path):
    path = tmp_path / "secret.cu"
    shutil.copy(CLEAN, path)
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as a user who can read a mode-000 file (root)")
        assert_one_line_error(cli("check", str(path)), f"{path}: cannot read")
    finally:
        path.chmod(0o644)


def test_input_errors_do_not_hide_the_other_findings():
    result = cli("check", OVERSIZE, "nowhere.cu")
    assert result.exit_code == 2
    assert OVERSIZE_LINE in result.stdout.splitlines()
    assert result.stderr == "cudalint: error: nowhere.cu: no such file or directory\n"
    # the same with --exit-zero: input errors still exit 2
    assert cli("check", "--exit-zero", OVERSIZE, "nowhere.cu").exit_code == 2


def test_bad_input_with_json_keeps_stdout_parseable(tmp_path):
    path = tmp_path / "kernel.cu"
    path.write_bytes(b"\xff\xfe")
    result = cli("check", "--format", "json", OVERSIZE, str(path))
    assert result.exit_code == 2
    assert [f["code"] for f in json.loads(result.stdout)] == ["CL301"]
    assert "not UTF-8" in result.stderr


# ---------------------------------------------------------------------------------- select / ignore


@pytest.mark.parametrize(("args", "expected"), [
    ((), ["CL301", "CL301", "CL302"]),
    (("--select", "CL301"), ["CL301", "CL301"]),
    (("--select", "CL3"), ["CL301", "CL301", "CL302"]),
    (("--select", "invalid-launch-config"), ["CL302"]),
    (("--select", "CL302,shared-memory-oversize"), ["CL301", "CL301", "CL302"]),
    (("--select", "CL302", "--select", "CL301"), ["CL301", "CL301", "CL302"]),
    (("--ignore", "CL301"), ["CL302"]),
    (("--ignore", "shared-memory-oversize"), ["CL302"]),
    (("--ignore", "CL3"), []),
    (("--select", "CL3", "--ignore", "CL302"), ["CL301", "CL301"]),
])
def test_select_and_ignore(args, expected):
    result = cli("check", *args, STATISTICS)
    assert codes(result.stdout) == expected, result.output
    assert result.exit_code == (1 if expected else 0)


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_unknown_rule_selector(option):
    assert_one_line_error(cli("check", option, "CL999", CLEAN), "unknown rule selector 'CL999'")


def test_unknown_arch():
    assert_one_line_error(cli("check", "--arch", "sm_42", CLEAN), "unknown architecture 'sm_42'")


# -------------------------------------------------------------------------------------------- formats


def test_quiet_prints_only_the_findings():
    result = cli("check", "-q", OVERSIZE)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == OVERSIZE_LINE
    assert "Found" not in result.stdout
    clean = cli("check", "--quiet", CLEAN)
    assert clean.exit_code == 0
    assert clean.stdout == ""


def test_text_related_colour_and_summary():
    plain = cli("check", STATISTICS)
    assert plain.stdout.splitlines()[-1] == "Found 3 findings (3 errors) in 1 file."
    assert "\033[" not in plain.stdout
    coloured = cli("check", STATISTICS, env={"FORCE_COLOR": "1"})
    assert "\033[" in coloured.stdout
    no_color = cli("check", STATISTICS, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert no_color.stdout == plain.stdout


def test_json_output():
    result = cli("check", "--format", "json", STATISTICS, CLEAN)
    assert result.exit_code == 1
    findings = json.loads(result.stdout)
    assert [f["code"] for f in findings] == ["CL301", "CL301", "CL302"]
    required = {"code", "name", "severity", "path", "line", "column", "end_line", "end_column", "message",
                "related"}
    for finding in findings:
        assert required <= set(finding), finding
        assert set(finding) - required <= {"fix"}
        assert finding["path"] == STATISTICS
        assert finding["severity"] == "error"
    assert findings[0]["name"] == "shared-memory-oversize"
    assert (findings[0]["line"], findings[0]["column"]) == (7, 5)
    assert json.loads(cli("check", "--format", "json", CLEAN).stdout) == []


def test_github_output():
    result = cli("check", "--format", "github", OVERSIZE, UNUSED, UNKNOWN_HEADER, "--fail-on", "info")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "::error title=CL301 shared-memory-oversize,file=tests/fixtures/cli/oversize.cu,line=7,col=5,"
        "endLine=7,endColumn=30::static shared memory of kernel `row_sum` exceeds the 48 KB limit: `row` "
        "alone is 64 KB; use dynamic shared memory with cudaFuncSetAttribute for more")
    assert re.match(r"^::warning title=CL902 unused-suppression,file=tests/fixtures/cli/unused_suppression\.cu,"
                    r"line=7,col=\d+,endLine=7,endColumn=\d+::unused suppression of CL302", lines[1]), lines[1]
    assert lines[2].startswith("::notice title=CL903 unknown-header,file=tests/fixtures/cli/unknown_header.cu,"
                               "line=2,col=11,")
    assert len(lines) == 3


def test_sarif_output_is_json_with_results():
    result = cli("check", "--format", "sarif", "--select", "CL3", STATISTICS)
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["CL301", "CL302"]  # the selected rules
    assert [r["ruleId"] for r in run["results"]] == ["CL301", "CL301", "CL302"]
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "tests/fixtures/cli/statistics.cu", "uriBaseId": "%SRCROOT%"}


def test_statistics():
    result = cli("check", "--statistics", STATISTICS, OVERSIZE)
    assert result.exit_code == 1
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows == [["3", "CL301", "shared-memory-oversize"], ["1", "CL302", "invalid-launch-config"]]
    as_json = json.loads(cli("check", "--statistics", "--format", "json", STATISTICS).stdout)
    assert as_json == [{"count": 2, "code": "CL301", "name": "shared-memory-oversize"},
                       {"count": 1, "code": "CL302", "name": "invalid-launch-config"}]
    assert cli("check", "--statistics", CLEAN).stdout == ""


# ------------------------------------------------------------------------------------- configuration


def _project(tmp_path: Path, config_name: str, config_text: str) -> Path:
    (tmp_path / config_name).write_text(config_text)
    (tmp_path / "src").mkdir()
    shutil.copy(STATISTICS, tmp_path / "src" / "kernel.cu")
    return tmp_path / "src" / "kernel.cu"


def test_cudalint_toml_is_discovered(tmp_path):
    kernel = _project(tmp_path, "cudalint.toml", 'ignore = ["CL301"]\n')
    result = cli("check", str(kernel))
    assert codes(result.stdout) == ["CL302"]
    assert result.exit_code == 1


def test_pyproject_tool_cudalint_is_discovered(tmp_path):
    kernel = _project(tmp_path, "pyproject.toml", '[project]\nname = "x"\n\n[tool.cudalint]\nignore = ["CL3"]\n')
    result = cli("check", str(kernel))
    assert codes(result.stdout) == []
    assert result.exit_code == 0


def test_pyproject_without_tool_cudalint_is_not_a_config(tmp_path):
    kernel = _project(tmp_path, "pyproject.toml", '[tool.ruff]\nline-length = 100\n')
    assert codes(cli("check", str(kernel)).stdout) == ["CL301", "CL301", "CL302"]


def test_config_fail_on_and_cli_override(tmp_path):
    kernel = _project(tmp_path, "cudalint.toml", 'fail-on = "warning"\n')
    kernel.write_text(Path(UNUSED).read_text())
    assert cli("check", str(kernel)).exit_code == 1
    assert cli("check", "--fail-on", "error", str(kernel)).exit_code == 0


def test_no_config_and_explicit_config(tmp_path):
    kernel = _project(tmp_path, "cudalint.toml", 'ignore = ["CL301"]\n')
    assert codes(cli("check", "--no-config", str(kernel)).stdout) == ["CL301", "CL301", "CL302"]
    other = tmp_path / "strict.toml"
    other.write_text('select = ["CL301"]\n')
    assert codes(cli("check", "--config", str(other), str(kernel)).stdout) == ["CL301", "CL301"]
    assert cli("check", "--config", str(other), "--no-config", str(kernel)).exit_code == 2


def test_cli_select_overrides_the_configured_selection(tmp_path):
    kernel = _project(tmp_path, "cudalint.toml", 'select = ["CL302"]\nignore = ["CL301"]\n')
    assert codes(cli("check", str(kernel)).stdout) == ["CL302"]
    # naming the rule exactly on the command line beats the configured ignore ...
    assert codes(cli("check", "--select", "CL301", str(kernel)).stdout) == ["CL301", "CL301"]
    # ... a prefix does not; --ignore adds to the configured ignores
    assert codes(cli("check", "--select", "CL3", str(kernel)).stdout) == ["CL302"]
    assert codes(cli("check", "--select", "CL3", "--ignore", "CL302", str(kernel)).stdout) == []


def test_per_file_ignores(tmp_path):
    kernel = _project(tmp_path, "cudalint.toml", '[per-file-ignores]\n"src/*.cu" = ["CL302"]\n')
    assert codes(cli("check", str(kernel)).stdout) == ["CL301", "CL301"]


def test_config_with_unknown_key(tmp_path):
    kernel = _project(tmp_path, "cudalint.toml", 'ignore = ["CL301"]\nselekt = ["CL3"]\n')
    assert_one_line_error(cli("check", str(kernel)), "unknown configuration key 'selekt'")


def test_config_with_unknown_selector_and_bad_toml(tmp_path):
    kernel = _project(tmp_path, "cudalint.toml", 'ignore = ["CL777"]\n')
    assert_one_line_error(cli("check", str(kernel)), "unknown rule selector 'CL777'")
    (tmp_path / "cudalint.toml").write_text('ignore = ["CL301"\n')
    assert_one_line_error(cli("check", str(kernel)), "cannot read configuration")


def test_missing_explicit_config():
    assert_one_line_error(cli("check", "--config", "nowhere.toml", CLEAN), "nowhere.toml")


# -------------------------------------------------------------------------------------- suppressions


@pytest.mark.parametrize("name", ["suppress_same_line.cu", "suppress_next_line.cu", "suppress_file.cu"])
def test_suppressions(name):
    result = cli("check", str(FIXTURES / name))
    assert result.exit_code == 0, result.output
    assert result.stdout == "All checks passed.\n"


def test_suppressions_cover_only_their_rule_and_line(tmp_path):
    text = Path(STATISTICS).read_text()
    # a file-level suppression of CL301 leaves CL302 alone
    whole = tmp_path / "whole.cu"
    whole.write_text("// cudalint: ignore-file[CL301]\n" + text)
    assert codes(cli("check", "--no-config", str(whole)).stdout) == ["CL302"]
    # a same-line suppression covers that line only: the other kernel's CL301 stays
    line = tmp_path / "line.cu"
    line.write_text(text.replace("float window[13312];", "float window[13312];  // cudalint: ignore[CL301]"))
    result = cli("check", "--no-config", str(line))
    assert [(m.group("code"), m.group("line")) for m in map(DIAGNOSTIC.match, result.stdout.splitlines()) if m] \
        == [("CL301", "19"), ("CL302", "32")]
    # a blanket ignore-next-line (no code list) covers every rule on the next line
    blanket = tmp_path / "blanket.cu"
    blanket.write_text(text.replace("    scale_staged<<<", "    // cudalint: ignore-next-line\n    scale_staged<<<"))
    assert codes(cli("check", "--no-config", str(blanket)).stdout) == ["CL301", "CL301"]


def test_unused_suppression_is_cl902():
    result = cli("check", UNUSED)
    lines = result.stdout.splitlines()
    match = DIAGNOSTIC.match(lines[0])
    assert match and match.group("code") == "CL902" and match.group("sev") == "warning"
    assert (match.group("path"), match.group("line")) == (UNUSED, "7")
    assert "CL302" in match.group("msg")
    assert lines[1].endswith("// cudalint: ignore[CL302]")
    # an unused suppression of a rule that did not run is not reported
    assert codes(cli("check", "--ignore", "CL302", UNUSED).stdout) == []


def test_ignore_noqa_reports_what_the_comments_suppress():
    # ruff's --ignore-noqa: the comments are not honoured, so neither is an unused one reported
    suppressed = str(FIXTURES / "suppress_file.cu")
    result = cli("check", "--ignore-noqa", "--output-format", "concise", suppressed)
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[0] == (
        f"{suppressed}:8:5: error: static shared memory of kernel `row_sum` exceeds the 48 KB limit: `row` alone "
        f"is 64 KB; use dynamic shared memory with cudaFuncSetAttribute for more [CL301]")
    assert cli("check", suppressed).exit_code == 0  # honoured without it
    assert cli("check", "--ignore-noqa", UNUSED).stdout == "All checks passed.\n"


def test_ignore_noqa_cannot_go_with_add_ignore():
    assert_one_line_error(cli("check", "--ignore-noqa", "--add-ignore", CLEAN),
                          "--add-ignore writes suppression comments that --ignore-noqa ignores: give one of them")


def test_no_comment_suppresses_an_incomplete_analysis(tmp_path, monkeypatch):
    def broken(*args):
        raise RuntimeError("a bug in the kernel model")

    monkeypatch.setattr("cudalint.engine.build_program", broken)
    path = tmp_path / "k.cu"
    path.write_text("// cudalint: ignore-file\n// cudalint: ignore-file[CL900]\n__global__ void k(float* x) { x[0] = 1; }\n")
    for extra in ([], ["--ignore", "CL900"], ["--select", "CL201"]):
        result = cli("check", "--no-config", "--output-format", "concise", *extra, str(path))
        assert result.exit_code == 2, (extra, result.output)
        assert "[CL900]" in result.stdout
        assert result.stderr == (f"cudalint: error: {path}: the analysis did not complete (CL900), so the file "
                                 f"was not fully checked\n")
    # the comment naming CL900 alone is told why it does nothing
    assert f"{path}:2:1: warning: `CL900` cannot be suppressed: a file whose analysis did not complete never " \
           f"passes [CL902]" in cli("check", "--no-config", "--output-format", "concise", str(path)).stdout


def test_code_not_analysed_fails_the_file_and_nothing_hides_it(tmp_path):
    path = tmp_path / "solution.py"
    path.write_text("# cudalint: ignore-file\n# cudalint: ignore-file[CL904]\n"
                    "from torch.utils.cpp_extension import load_inline\n"
                    "SOURCE = open('kernel.cu').read()\n"
                    "ext = load_inline('ext', '', cuda_sources=SOURCE.strip())\n")
    line = (f"{path}:4:10: error: CUDA source not analysed: `open('kernel.cu').read(...)` is computed when the file "
            f"runs [CL904]")
    for extra in ([], ["--ignore", "CL904"], ["--select", "CL201"]):
        result = cli("check", "--no-config", "--output-format", "concise", *extra, str(path))
        assert result.exit_code == 1, (extra, result.output)
        assert line in result.stdout.splitlines()
    # the comment naming CL904 alone is told why it does nothing
    assert f"{path}:2:1: warning: `CL904` cannot be suppressed: a file with code no rule checked never passes " \
           f"[CL902]" in cli("check", "--no-config", "--output-format", "concise", str(path)).stdout
    verdict = cudalint.prefilter([str(path)], jobs=1, use_config=False, honour_suppressions=True)
    assert [f.code for f in verdict.rejected[0].reasons] == ["CL904"]


def test_a_crash_while_reading_a_file_is_an_incomplete_analysis_of_that_file(tmp_path, monkeypatch):
    def broken(*args):
        raise RuntimeError("a bug in the reader")

    monkeypatch.setattr("cudalint.engine.load_document", broken)
    path = tmp_path / "k.py"
    path.write_text("x = 1\n")
    result = cli("check", "--no-config", "--output-format", "concise", str(path))
    assert result.exit_code == 2
    assert result.stdout.startswith(f"{path}:1:1: warning: cudalint internal error in reading the file: RuntimeError: "
                                    f"a bug in the reader (")


# ------------------------------------------------------------------------------------- rule docs


def test_rule_prints_the_page():
    result = cli("rule", "CL301")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "# CL301 shared-memory-oversize"
    for heading in ("## What it finds", "## Why it is a bug", "## Example", "## Use instead", "## How to repair"):
        assert heading in result.stdout
    assert cli("rule", "shared-memory-oversize").stdout == result.stdout
    assert cli("rule", "cl301").stdout == result.stdout


def test_rule_unknown():
    assert_one_line_error(cli("rule", "CL999"), "unknown rule 'CL999'")


def test_rules_lists_every_rule():
    result = cli("rules")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["CODE", "NAME", "SEVERITY", "CATEGORY", "SUMMARY"]
    row = next(line for line in lines if line.startswith("CL301"))
    assert row.split()[:4] == ["CL301", "shared-memory-oversize", "error", "resources-and-launch"]
    from cudalint.checks.registry import all_rules

    assert [line.split()[0] for line in lines[1:]] == [r.code for r in all_rules()]


def test_rules_markdown_and_json():
    markdown = cli("rules", "--format", "markdown").stdout.splitlines()
    assert markdown[0] == "| Code | Name | Severity | Category | Summary |"
    assert markdown[1] == "| --- | --- | --- | --- | --- |"
    assert any(line.startswith("| [CL301](rules/CL301.md) | `shared-memory-oversize` | error |") for line in markdown)
    assert all(line.count(" | ") == 4 for line in markdown[2:])
    rows = json.loads(cli("rules", "--format", "json").stdout)
    assert {"code": "CL903", "name": "unknown-header"}.items() <= next(r for r in rows if r["code"] == "CL903").items()


def test_version_and_help():
    assert cli("--version").stdout == f"cudalint {cudalint.__version__}\n"
    help_text = cli("check", "--help").stdout
    for option in ("--format", "--select", "--ignore", "--arch", "--fail-on", "--exit-zero", "--statistics",
                   "--quiet", "--config", "--no-config", "--jobs"):
        assert option in help_text
    assert cli("frobnicate").exit_code == 2


def test_dynamic_shared_overrun_and_missing_bytes_exit_1_with_the_exact_lines():
    warp_sums = "tests/fixtures/rules/CL215/bad_warp_sums_sized_in_elements.cu"
    no_bytes = "tests/fixtures/rules/CL215/bad_reduction_launched_without_bytes.cu"
    result = cli("check", "--select", "CL215", "--quiet", no_bytes, warp_sums)
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if DIAGNOSTIC.match(line)]
    assert lines == [
        f"{no_bytes}:22:5: CL215 [error] launch of `block_max` passes no dynamic shared-memory size, but the kernel "
        "uses `extern __shared__ float red[]` (`red[tid]` at line 9): with 0 bytes every access to it is out of "
        "bounds; pass the bytes the kernel uses as the third launch argument (`<<<grid, block, bytes>>>`)",
        f"{warp_sums}:14:20: CL215 [error] `warp_sums[warp]` accesses `float` element 2 (bytes 8 to 11) of the "
        "dynamic shared memory `warp_sums` when threadIdx.x = 64 with a block of 256 threads, past the end of the 8 "
        "bytes (`threads / 32`) that the launch of `row_sum` at line 26 passes: an out-of-bounds shared-memory "
        "access; size the launch's third argument for every element the kernel uses",
        f"{warp_sums}:18:38: CL215 [error] `warp_sums[lane]` accesses `float` element 2 (bytes 8 to 11) of the "
        "dynamic shared memory `warp_sums` when threadIdx.x = 2 with a block of 256 threads, past the end of the 8 "
        "bytes (`threads / 32`) that the launch of `row_sum` at line 26 passes: an out-of-bounds shared-memory "
        "access; size the launch's third argument for every element the kernel uses",
    ]
