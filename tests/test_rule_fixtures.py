"""Every fixture under tests/fixtures/rules/<CODE>/ is linted; the findings of rule <CODE> (and any
compile error) must be exactly the ones its `expect:` markers name, line by line."""

from pathlib import Path

import pytest

import cudalint
from cudalint.expectations import expected_findings

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
CASES = sorted(p for p in FIXTURES.glob("CL*/*") if p.suffix in (".cu", ".cuh", ".py"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture(path: Path) -> None:
    code = path.parent.name
    text = path.read_text()
    checked = {code, "CL901", "CL900"}
    found = {(f.line, f.code) for f in cudalint.lint_source(text, filename=path.name) if f.code in checked}
    expected = {(line, c) for line, c in expected_findings(text) if c in checked}
    assert found == expected, f"missing: {sorted(expected - found)}; unexpected: {sorted(found - expected)}"


def test_every_rule_family_member_has_good_and_bad_fixtures() -> None:
    for directory in FIXTURES.glob("CL*"):
        texts = [p.read_text() for p in directory.iterdir() if p.suffix in (".cu", ".cuh", ".py")]
        assert any(expected_findings(t) for t in texts), f"{directory.name}: no bad fixture"
        assert any(not expected_findings(t) for t in texts), f"{directory.name}: no good fixture"
