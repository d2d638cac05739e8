"""The corpus evaluation gate: no rule may fall below the floors recorded in corpus/thresholds.json.

This is the regression net for rule quality: a change that costs a rule precision or recall on the
labelled corpus or on the generated mutants fails here. Floors only go up.
"""

from pathlib import Path

import pytest

from cudalint.evaluation.run import evaluate
from cudalint.evaluation.thresholds import load_thresholds, violations

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

pytestmark = pytest.mark.slow  # the whole corpus and its mutants linted (`pytest -m slow`)


@pytest.fixture(scope="module")
def result():
    return evaluate(str(CORPUS), per_operator=2)


def test_every_rule_meets_its_recorded_floors(result) -> None:
    problems = violations(result, load_thresholds(str(CORPUS / "thresholds.json")))
    assert not problems, "\n".join(problems)


def test_no_false_alarm_on_clean_corpus_kernels(result) -> None:
    alarms = [m for m in result.misses if m.kind == "false-alarm"]
    assert result.clean_files_with_false_alarms == 0, alarms


def test_every_labelled_rule_has_a_floor(result) -> None:
    floors = load_thresholds(str(CORPUS / "thresholds.json"))
    assert set(result.corpus_scores) - set(floors) == set()
