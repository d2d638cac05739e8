"""The wheel carries what the installed tool needs: rule pages, prompt templates, stub headers."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cudalint.checks.registry import all_rules

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory) -> set[str]:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=600)
    wheel = next(out.glob("cudalint-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_wheel_ships_a_page_for_every_rule(wheel_names: set[str]) -> None:
    for rule in all_rules():
        assert f"cudalint/rule_pages/{rule.code}.md" in wheel_names, rule.code


def test_wheel_ships_prompt_templates(wheel_names: set[str]) -> None:
    templates = sorted(p.name for p in (ROOT / "repair").glob("*.j2"))
    assert templates, "no prompt templates in repair/"
    for name in templates:
        assert f"cudalint/prompt_templates/{name}" in wheel_names, name


def test_wheel_ships_stub_headers(wheel_names: set[str]) -> None:
    stubs = ROOT / "cudalint" / "frontend" / "stubs"
    for header in stubs.rglob("*"):
        if header.is_file():
            assert f"cudalint/frontend/stubs/{header.relative_to(stubs).as_posix()}" in wheel_names, header


def test_wheel_ships_every_code_package(wheel_names: set[str]) -> None:
    for init in (ROOT / "cudalint").rglob("__init__.py"):
        assert f"{init.relative_to(ROOT).as_posix()}" in wheel_names, init


def test_wheel_ships_the_report_template(wheel_names: set[str]) -> None:
    templates = sorted(p.name for p in (ROOT / "cudalint" / "report" / "html_templates").glob("*.j2"))
    assert templates
    for name in templates:
        assert f"cudalint/report/html_templates/{name}" in wheel_names, name


def test_wheel_says_it_is_typed(wheel_names: set[str]) -> None:
    assert "cudalint/py.typed" in wheel_names  # PEP 561: type checkers read cudalint's annotations
