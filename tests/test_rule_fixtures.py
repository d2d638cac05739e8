"""Every fixture under tests/fixtures/rules/<CODE>/ is linted; the findings of rule <CODE> (and any
compile error) must be exactly the ones its `expect:` markers name, line by line. A fixture in a
subdirectory is linted under its path below <CODE>/ (`level_2/problem_7.py`): run layouts name the level."""

from pathlib import Path

import pytest

import cudalint
from cudalint.config import LintOptions
from cudalint.expectations import expected_findings

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
CASES = sorted(p for p in FIXTURES.glob("CL*/**/*") if p.suffix in (".cu", ".cuh", ".py"))


def _code_and_name(path: Path) -> tuple[str, str]:
    relative = path.relative_to(FIXTURES)
    return relative.parts[0], str(Path(*relative.parts[1:]))


@pytest.mark.parametrize("path", CASES, ids=lambda p: "/".join(_code_and_name(p)))
def test_fixture(path: Path) -> None:
    code, name = _code_and_name(path)
    text = path.read_text()
    checked = {code, "CL901", "CL900"}
    options = LintOptions(select=["ALL", code])  # opt-in rules (CL5xx) run when named
    found = {(f.line, f.code) for f in cudalint.lint_source(text, filename=name, options=options) if f.code in checked}
    expected = {(line, c) for line, c in expected_findings(text) if c in checked}
    assert found == expected, f"missing: {sorted(expected - found)}; unexpected: {sorted(found - expected)}"


def test_every_rule_family_member_has_good_and_bad_fixtures() -> None:
    for directory in FIXTURES.glob("CL*"):
        texts = [p.read_text() for p in directory.rglob("*") if p.suffix in (".cu", ".cuh", ".py")]
        assert any(expected_findings(t) for t in texts), f"{directory.name}: no bad fixture"
        assert any(not expected_findings(t) for t in texts), f"{directory.name}: no good fixture"
