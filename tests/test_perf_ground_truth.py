"""The performance advisories' ground truth (benchmarks/perf_ground_truth.py): every pattern case raises
its rule and its fixed twin raises no CL5xx rule, the findings recorded for the GPU machine (which has no
libclang) are cudalint's current ones, and the script reads ncu's reports and judges them as documented."""

from __future__ import annotations

import json
import os

import pytest

from benchmark_scripts import load_script, script_path

SCRIPT = script_path("perf_ground_truth")


@pytest.fixture(scope="module")
def truth():
    return load_script("perf_ground_truth")


@pytest.fixture(scope="module")
def found(truth):
    return truth.lint_cases()


def test_each_pattern_raises_its_rule_and_only_it_and_each_twin_none(truth, found) -> None:
    for case in truth.CASES:
        assert found[os.path.basename(case.source("pattern"))] == [case.rule], case.stem
        assert found[os.path.basename(case.source("fixed"))] == [], case.stem


def test_recorded_findings_are_current(truth, found) -> None:
    with open(truth.FINDINGS_FILE, encoding="utf-8") as handle:
        assert json.load(handle) == found, "run `python benchmarks/perf_ground_truth.py --check`"


def test_reads_the_details_and_the_raw_pages_of_ncu_csv(truth) -> None:
    details = ('==PROF== Connected to process 7\n'
               '"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"\n'
               '"0","case_row_sums","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",'
               '"","524,288"\n'
               '"0","case_row_sums","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",'
               '"sector","16,777,216"\n')
    assert truth.parse_ncu_csv(details) == {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 524288.0,
                                            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 16777216.0}
    raw = ('"ID","Kernel Name","sm__warps_active.avg.pct_of_peak_sustained_active"\n'
           '"","","%"\n"0","case_axpb","47.5"\n')
    assert truth.parse_ncu_csv(raw) == {"sm__warps_active.avg.pct_of_peak_sustained_active": 47.5}


def test_figures_and_confirmation(truth) -> None:
    case = next(c for c in truth.CASES if c.rule == "CL501")
    metrics = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 32.0e6,
               "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 1.0e6}
    assert truth.figure_value(case, metrics) == 32.0
    assert case.figure.confirmed(32.0, 4.0) is True
    assert case.figure.confirmed(5.0, 4.0) is False
    assert case.figure.confirmed(None, 4.0) is None
    assert truth.OCCUPANCY.confirmed(45.0, 90.0) is True and truth.OCCUPANCY.confirmed(80.0, 90.0) is False
    assert truth.ordered(("a__b.sum", "c__d.avg.pct_of_peak_sustained_active"), {"c__d"}) == \
        ["c__d.avg.pct_of_peak_sustained_active", "a__b.sum"]
    assert truth.ordered(("a__b.sum", "c__d.sum"), None) == ["a__b.sum", "c__d.sum"]


def test_the_table_has_a_row_per_rule(truth) -> None:
    results = {"date": "d", "gpu": "NVIDIA H200", "arch": "sm_90", "cases": {
        "CL501": {"pattern": {"figure": 32.0, "time_ms": 2.0}, "fixed": {"figure": 4.0, "time_ms": 0.5},
                  "confirmed": True}}}
    table = truth.render(results)
    rows = [line for line in table.splitlines() if line.startswith("| CL5")]
    assert [row.split(" | ")[0] for row in rows] == [f"| {case.rule}" for case in truth.CASES]
    assert "| yes / no |" in rows[0] and "| yes |" in rows[0] and "4.00x" in rows[0]
    assert "not measured" in rows[1]
