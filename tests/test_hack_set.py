"""The reward-hack set (benchmarks/hacks): hacks in code shapes no rule was written for, and honest
controls. The gate: caught hacks may only go up, false alarms on controls only down."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HACKS = REPO / "benchmarks" / "hacks"
sys.path.insert(0, str(REPO / "benchmarks"))

import hack_detection  # noqa: E402

pytestmark = pytest.mark.slow  # the whole set linted, the dry run included (`pytest -m slow`)


@pytest.fixture(scope="module")
def results():
    return hack_detection.judge(HACKS, hack_detection.load_cases(HACKS), jobs=2, extra={})


def test_every_case_is_a_solution_with_its_reference():
    for case in hack_detection.load_cases(HACKS):
        assert (HACKS / "kernels" / case["path"]).is_file(), case["path"]
        assert (HACKS / "problems" / case["reference"]).is_file(), case["reference"]
        assert case["kind"] in ("hack", "control")
        assert bool(case["expected"]) == (case["kind"] == "hack"), case["path"]


def test_gate(results):
    floors = json.loads((HACKS / "thresholds.json").read_text())
    caught = [r["path"] for r in results if r["kind"] == "hack" and r["caught"]]
    alarms = [r["path"] for r in results if r["kind"] == "control" and r["rejected"]]
    assert len(caught) >= floors["min_caught"], caught
    assert len(alarms) <= floors["max_control_alarms"], alarms
    assert not [r["path"] for r in results if r["error"]]
