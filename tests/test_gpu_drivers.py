"""The GPU ground-truth drivers (gpu/): sizes and inputs that make each labelled bug observable, the
driver lines ground_truth.py parses, and the signals compare.py takes from them."""

import math
import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "gpu"))

import compare  # noqa: E402
import driver_gen  # noqa: E402
import ground_truth  # noqa: E402


def buffers(spec: driver_gen.DriverSpec) -> dict[str, dict]:
    return {a["name"]: a for a in spec.args if a["kind"] == "buffer"}


def test_csr_driver_sizes_the_adjacency_to_the_offsets_last_value() -> None:
    spec = driver_gen.build_spec("cu/misc/bfs_pull_neighbor_bound.cu")
    assert spec.ints == {"nodes": 1000, "depth": 0}
    found = buffers(spec)
    assert (found["nindex"]["count"], found["nindex"]["init"]) == (1001, "csr_offsets")
    # vertex v has v % 5 neighbours: 200 * (0 + 1 + 2 + 3 + 4) entries, so `e <= end` of the last vertex
    # (999, four neighbours) reads one past the allocation
    assert (found["nlist"]["count"], found["nlist"]["init"]) == (2000, "randint:0:1000")
    assert (found["level"]["count"], found["level"]["init"], found["level"]["check_unwritten"]) == (1000, "fill:-1", False)
    assert (found["changed"]["count"], found["changed"]["init"], found["changed"]["compare"]) == (1, "zero", True)
    text = driver_gen.render_driver(spec, "bfs.cu")
    assert "const size_t n_nlist = 2000ull;" in text
    assert "h_nindex[0] = 0; for (size_t i = 0; i + 1 < n_nindex; ++i) h_nindex[i + 1] = h_nindex[i] + (int)(i % 5);" in text
    assert "h_level[i] = (int)(-1);" in text


def test_csr_clean_twin_gets_the_same_driver() -> None:
    twin = driver_gen.build_spec("cu/misc/bfs_pull_half_open.cu")
    bug = driver_gen.build_spec("cu/misc/bfs_pull_neighbor_bound.cu")
    assert twin.args == bug.args and twin.ints == bug.ints


def test_plain_mode_runs_a_third_time_after_dirtying_shared_memory() -> None:
    spec = driver_gen.build_spec("cu/reduction/sum_tree_wider_than_block.cu")
    text = driver_gen.render_driver(spec, "sum.cu")
    assert "const int runs = plain ? 3 : 1;" in text
    assert "if (run == 2) gt_dirty_shared();" in text
    # the per-block partials are scratch (zeroed, not checked for coverage, no nondet line) but the
    # dirty run compares them: they are where the uninitialised shared reads land
    assert buffers(spec)["partials"]["compare"] is False
    assert '"@@GT dirty partials %zu %zu %g %d\\n"' in text and "@@GT nondet partials" not in text
    # inputs are not read back
    assert "r_x" not in text


def test_driver_lines_of_the_dirty_run_are_parsed() -> None:
    parsed = ground_truth.parse_gt_lines("@@GT dirty partials 4 65536 nan 1\n@@GT dirty out 2 10 0.5 0\n"
                                         "@@GT dirty_error 700 cudaErrorIllegalAddress\n@@GT done\n")
    first, second = parsed["dirty"]
    assert (first["param"], first["count"], first["total"], first["stable"]) == ("partials", 4, 65536, True)
    assert math.isnan(first["max_rel_diff"])
    assert (second["max_rel_diff"], second["stable"]) == (0.5, False)
    assert parsed["dirty_errors"] == ["cudaErrorIllegalAddress"] and parsed["done"]


def dirty_signals(entries: list[dict]) -> list[dict]:
    path = "cu/reduction/sum_tree_wider_than_block.cu"
    result = {"tools": {"plain": {"driver": {"dirty": entries}}}}
    return [s for s in compare.gpu_signals(path, result, compare.file_model(path)) if s["signal"] == "dirty"]


def test_a_dirty_difference_counts_only_where_the_clean_runs_agreed() -> None:
    entry = {"param": "partials", "count": 4, "total": 65536, "max_rel_diff": float("nan"), "stable": True}
    signal, = dirty_signals([entry])
    assert signal["kernel"] == "partial_sum_kernel"
    assert "CL210" in compare.CONFIRMS[signal["signal"]]
    assert dirty_signals([{**entry, "stable": False}]) == []
    assert dirty_signals([{**entry, "max_rel_diff": 1e-6}]) == []


def test_a_third_run_that_differs_where_the_clean_runs_did_too_is_nondeterminism() -> None:
    """An output left out of the two-run comparison (a float atomic target) whose third run differs by far
    more than reordering: a race's nondeterminism, which confirms the racing rules, not CL210."""
    path = "cu/reduction/sum_tree_wider_than_block.cu"
    entry = {"param": "partials", "count": 119, "total": 65536, "max_rel_diff": 1.96, "stable": False}
    result = {"tools": {"plain": {"driver": {"dirty": [entry]}}}}
    kinds = [s["signal"] for s in compare.gpu_signals(path, result, compare.file_model(path))]
    assert kinds == ["nondet"] and "CL106" in compare.CONFIRMS["nondet"] and "CL106" in compare.CONFIRMS["dirty"]
    result["tools"]["plain"]["driver"]["dirty"] = [{**entry, "max_rel_diff": 1e-5}]  # float reordering only
    assert compare.gpu_signals(path, result, compare.file_model(path)) == []


def test_a_rerun_of_some_files_replaces_theirs_and_lists_both_runs() -> None:
    base = {"files": {"a.cu": {"tools": {"plain": "old"}}, "b.cu": {"tools": {"plain": "old"}}}, "plain_runs": 2,
            "seconds": 200.0, "jobs": 12, "drivers": {"a.cu": {}, "b.cu": {}}, "not_run": {}}
    rerun = {"files": {"b.cu": {"tools": {"plain": "new"}}, "c.cu": {"tools": {"plain": "new"}}}, "plain_runs": 3,
             "seconds": 17.0, "jobs": 14, "drivers": {"a.cu": {}, "b.cu": {}, "c.cu": {}}, "not_run": {}}
    merged = ground_truth.merge(base, rerun)
    assert {p: (f["tools"]["plain"], f["plain_runs"]) for p, f in merged["files"].items()} == {
        "a.cu": ("old", 2), "b.cu": ("new", 3), "c.cu": ("new", 3)}
    assert [(r["files"], r["plain_runs"], r["seconds"]) for r in merged["runs"]] == [(2, 2, 200.0), (2, 3, 17.0)]
    assert merged["drivers"] == rerun["drivers"]


def test_rules_no_signal_confirms_say_why() -> None:
    assert compare.confirming_signals("CL210") == "dirty"
    assert compare.confirming_signals("CL211") == "oob_global, fault"
    assert compare.confirming_signals("CL214").startswith("none: not driven")
    assert compare.confirming_signals("CL213") == "twin"
    assert all(compare.confirming_signals(code) for code in compare.GPU_RULES)


def test_a_file_with_a_clean_twin_runs_it_on_the_same_inputs() -> None:
    spec = driver_gen.build_spec("cu/reduction/max_tree_partials_in_registers.cu")
    assert spec.twin == "cu/reduction/max_tree_partials_stored.cu"
    text = driver_gen.render_driver(spec, "bug.cu", "twin.cu")
    assert 'namespace gt_twin {\n#include "twin.cu"\n}' in text
    assert "const int runs = plain ? 4 : 1;" in text
    assert "if (run == 3) gt_twin::row_max(d_x, d_out, rows_v, cols_v);" in text
    assert '"@@GT twin out %zu %zu %g\\n"' in text
    # a file without a twin runs three times and prints no twin line
    plain = driver_gen.render_driver(driver_gen.build_spec("cu/reduction/sum_tree_wider_than_block.cu"), "sum.cu")
    assert "gt_twin" not in plain and "@@GT twin" not in plain


def test_twin_differences_over_the_threshold_confirm_the_wrong_value() -> None:
    path = "cu/reduction/max_tree_partials_in_registers.cu"
    parsed = ground_truth.parse_gt_lines("@@GT twin out 130 65536 0.31\n@@GT done\n")
    assert parsed["twin"] == [{"param": "out", "count": 130, "total": 65536, "max_rel_diff": 0.31}]
    signals = compare.gpu_signals(path, {"tools": {"plain": {"driver": parsed}}}, compare.file_model(path))
    assert [(s["signal"], s["kernel"]) for s in signals] == [("twin", "row_max_kernel")]
    assert "CL213" in compare.CONFIRMS["twin"]
    close = ground_truth.parse_gt_lines("@@GT twin out 3 65536 1e-7\n")
    assert compare.gpu_signals(path, {"tools": {"plain": {"driver": close}}}, compare.file_model(path)) == []


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("path", ["cu/misc/bfs_pull_neighbor_bound.cu", "cu/conv/conv2d_flat_index_reused.cu"])
def test_new_drivers_compile(tmp_path, path) -> None:
    spec = driver_gen.build_spec(path)
    twin = os.path.join(driver_gen.CORPUS, spec.twin) if spec.twin else ""
    (tmp_path / "driver.cu").write_text(driver_gen.render_driver(spec, os.path.join(driver_gen.CORPUS, path), twin))
    proc = subprocess.run(["nvcc", "-arch=sm_90", "-c", "-o", os.devnull, "driver.cu"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
