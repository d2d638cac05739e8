"""File selection as ruff does it: default exclusions, .gitignore, --exclude/--extend-exclude and the
configuration's, paths named explicitly always checked (unless --force-exclude), --show-files and
--show-settings; standard input with --fix and --diff; meaningless flag combinations refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import cudalint
from cudalint.cli import app

KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 0.0f; }\n"
OFF_BY_ONE = """__global__ void k(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) x[i] = 0.0f;
}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with its virtualenv, build output, caches and ignored logs beside the sources."""
    root = tmp_path / "proj"
    for folder in ("src", "src/deep", "venv/lib", ".venv/lib", "build", "dist", "node_modules/pkg", "__pycache__",
                   ".git/info", "logs", "gen"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        if not folder.startswith(".git"):
            (root / folder / "k.cu").write_text(KERNEL)
    (root / "src" / "scratch.gen.cu").write_text(KERNEL)
    (root / ".gitignore").write_text("logs/\n")
    (root / "src" / ".gitignore").write_text("*.gen.cu\n")
    (root / ".git" / "info" / "exclude").write_text("gen/\n")
    monkeypatch.chdir(root)
    return root


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(app, ["check", "--no-cache", *args], input=input)


def shown(*args: str) -> list[str]:
    result = run("--show-files", *args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_default_exclusions_and_gitignore(project: Path) -> None:
    assert shown(".") == ["./src/k.cu", "./src/deep/k.cu"]
    assert shown("--no-respect-gitignore", ".") == ["./gen/k.cu", "./logs/k.cu", "./src/k.cu", "./src/scratch.gen.cu",
                                                    "./src/deep/k.cu"]
    assert [path.replace("\\", "/") for path in shown("--exclude", "deep", "--no-respect-gitignore", ".")] == [
        "./.venv/lib/k.cu", "./__pycache__/k.cu", "./build/k.cu", "./dist/k.cu", "./gen/k.cu", "./logs/k.cu",
        "./node_modules/pkg/k.cu", "./src/k.cu", "./src/scratch.gen.cu", "./venv/lib/k.cu"]
    assert shown("--extend-exclude", "src/deep", ".") == ["./src/k.cu"]
    checked = cudalint.prefilter([str(project)], jobs=1, use_config=False)  # the API selects the same files
    assert sorted(Path(item.path).relative_to(project).as_posix() for item in checked.items) == ["src/deep/k.cu",
                                                                                                 "src/k.cu"]


def test_configured_exclusions_are_relative_to_the_configuration(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.cudalint]\nextend-exclude = ["/src/deep"]\n')
    assert shown("src") == ["src/k.cu"]
    (project / "pyproject.toml").write_text('[tool.cudalint]\nexclude = ["deep"]\nrespect-gitignore = false\n')
    files = shown(".")  # the configured exclusions replace the defaults
    assert "./venv/lib/k.cu" in files and "./logs/k.cu" in files and "./src/deep/k.cu" not in files
    (project / "pyproject.toml").write_text('[tool.cudalint]\nrespect-gitignore = "no"\n')
    assert run("--show-files", ".").exit_code == 2


def test_a_path_named_explicitly_is_checked_unless_force_exclude(project: Path) -> None:
    assert shown("venv/lib/k.cu", "logs", "src/scratch.gen.cu") == ["venv/lib/k.cu", "logs/k.cu", "src/scratch.gen.cu"]
    assert shown("--force-exclude", "venv/lib/k.cu", "logs", "src/scratch.gen.cu", "src/k.cu") == ["src/k.cu"]
    result = run("venv/lib/k.cu")
    assert result.exit_code == 0 and result.stdout == "All checks passed.\n"


def test_show_settings(project: Path) -> None:
    result = run("--show-settings", "--select", "CL2", "--extend-exclude", "gen", "src")
    assert result.exit_code == 0, result.output
    settings = {line.split(" = ", 1)[0]: json.loads(line.split(" = ", 1)[1]) for line in result.stdout.splitlines()}
    assert settings["file"] == "src/k.cu" and settings["select"] == ["CL2"] and settings["config"] is None
    assert settings["rules"][0] == "CL201" and all(code.startswith("CL2") for code in settings["rules"])
    assert settings["exclude"][-1] == {"relative-to": str(project), "patterns": ["gen"]}
    assert settings["respect-gitignore"] is True


def test_standard_input_with_fix_and_diff(tmp_path: Path) -> None:
    fixed = run("-", "--fix", "--stdin-filename", "k.cu", input=OFF_BY_ONE)
    assert fixed.exit_code == 0 and fixed.stdout == OFF_BY_ONE.replace("i <= n", "i < n")
    assert fixed.stderr == "cudalint: fixed 1 finding in 1 file\nAll checks passed.\n"
    diff = run("-", "--diff", "--stdin-filename", "k.cu", input=OFF_BY_ONE)
    assert diff.exit_code == 1 and "-    if (i <= n) x[i] = 0.0f;\n+    if (i < n) x[i] = 0.0f;\n" in diff.stdout
    only = run("-", "--fix-only", "--stdin-filename", "k.cu", input=OFF_BY_ONE + "__global__ void g() { __shared__ "
                                                                             "float big[20000]; big[0] = 1; }\n")
    assert only.exit_code == 0 and "i < n" in only.stdout and "CL301" not in only.output


@pytest.mark.parametrize("args", [
    ["--unsafe-fixes"], ["--show-fixes"], ["--exit-non-zero-on-fix"], ["--fix", "--diff"], ["--fix-only", "--diff"],
    ["--fix-only", "--exit-zero"], ["--statistics", "--diff"], ["--show-files", "--fix"],
    ["--stdin-filename", "k.cu"],
])
def test_meaningless_flag_combinations_are_refused(project: Path, args: list[str]) -> None:
    result = run(*args, "src")
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.startswith("cudalint: error: ") and result.stderr.count("\n") == 1


def test_a_bad_pattern_is_an_error_and_a_bad_gitignore_line_is_skipped(project: Path) -> None:
    result = run("--show-files", "--extend-exclude", "!", ".")
    assert result.exit_code == 2 and result.stderr == ("cudalint: error: exclude pattern '!' is not a gitignore "
                                                       "pattern: Invalid git pattern: '!'\n")
    (project / ".gitignore").write_text("!\nlogs/\n")  # git skips a line it cannot read; so do we
    assert shown(".") == ["./src/k.cu", "./src/deep/k.cu"]


def test_standard_input_exit_codes_follow_the_files_ones() -> None:
    worse = OFF_BY_ONE + "__global__ void g() { __shared__ float big[20000]; big[0] = 1; }\n"  # CL301: no fix
    assert run("-", "--fix", "--stdin-filename", "k.cu", input=worse).exit_code == 1  # findings left
    assert run("-", "--fix", "--exit-non-zero-on-fix", "--stdin-filename", "k.cu", input=OFF_BY_ONE).exit_code == 1
    fixed = OFF_BY_ONE.replace("i <= n", "i < n")
    assert run("-", "--fix", "--exit-non-zero-on-fix", "--stdin-filename", "k.cu", input=fixed).exit_code == 0
    assert run("-", "--fix-only", "--exit-non-zero-on-fix", "--stdin-filename", "k.cu", input=worse).exit_code == 1


def test_outside_a_repository_no_gitignore_applies(project: Path) -> None:
    import shutil

    shutil.rmtree(project / ".git")  # as git: a .gitignore means something only in a repository
    assert "./logs/k.cu" in shown(".") and "./gen/k.cu" in shown(".")
    (project / ".git").write_text("gitdir: /elsewhere/.git/worktrees/proj\n")  # a worktree's .git is a file
    assert "./logs/k.cu" not in shown(".") and "./gen/k.cu" in shown(".")
