"""cudalint.fixes: applying the edits findings carry, and the checked fixing that keeps only fixes whose
result parses and re-lints free of the fixed finding."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cudalint.findings import Edit, Finding, Fix, Location, Severity
from cudalint.fixes import apply_fix_edits, apply_fixes, default_linter, fix_source, map_offset


def finding(*edits: Edit, code: str = "CL103", line: int = 1, column: int = 1, message: str = "m",
            severity: Severity = Severity.ERROR, path: str = "k.cu") -> Finding:
    fix = Fix("fix it", tuple(edits)) if edits else None
    return Finding(code, "some-rule", severity, Location(path, line, column, line, column + 1), message, (), fix)


# ------------------------------------------------------------------------------------------ apply_fixes


def test_insertion_replacement_and_deletion_use_one_based_positions_with_exclusive_end() -> None:
    text = "int a;\nint b;\nint c;\n"
    insert = finding(Edit(1, 1, 1, 1, "const "))
    replace = finding(Edit(2, 5, 2, 6, "beta"), line=2)
    delete = finding(Edit(3, 1, 4, 1, ""), line=3)  # the whole third line, newline included
    new_text, applied = apply_fixes(text, [delete, insert, replace])
    assert new_text == "const int a;\nint beta;\n"
    assert applied == [insert, replace, delete]  # in position order


def test_a_fix_with_several_edits_wraps_a_statement() -> None:
    text = "  y[i] = x[i];\n"
    guard = finding(Edit(1, 3, 1, 3, "if (i < n) { "), Edit(1, 15, 1, 15, " }"))
    assert apply_fixes(text, [guard]) == ("  if (i < n) { y[i] = x[i]; }\n", [guard])


def test_edits_are_applied_from_the_end_so_positions_stay_valid() -> None:
    text = "aaa bbb ccc\n"
    first = finding(Edit(1, 1, 1, 4, "A"))
    last = finding(Edit(1, 9, 1, 12, "CCCCC"))
    assert apply_fixes(text, [last, first])[0] == "A bbb CCCCC\n"


def test_overlapping_fix_is_skipped_whole_and_reported() -> None:
    text = "0123456789\n"
    taken = finding(Edit(1, 3, 1, 6, "X"))
    # its first edit is fine, its second overlaps `taken`: none of its edits may be applied
    overlapping = finding(Edit(1, 9, 1, 10, "Y"), Edit(1, 5, 1, 7, "Z"), line=1, column=5)
    outcome = apply_fix_edits(text, [overlapping, taken])
    assert outcome.text == "01X56789\n"
    assert outcome.applied == [taken]
    assert outcome.skipped == [(overlapping, "its edits overlap the fix of another finding")]


def test_two_different_insertions_at_one_point_conflict_but_identical_edits_are_shared() -> None:
    text = "__syncthreads();\n"
    one = finding(Edit(1, 1, 1, 1, "// a\n"))
    same = finding(Edit(1, 1, 1, 1, "// a\n"), code="CL101")
    other = finding(Edit(1, 1, 1, 1, "// b\n"), code="CL102")
    outcome = apply_fix_edits(text, [one, same, other])
    assert outcome.text == "// a\n__syncthreads();\n"
    assert outcome.applied == [one, same]
    assert [f for f, _ in outcome.skipped] == [other]


def test_insertion_inside_a_replaced_range_conflicts_but_at_its_edges_it_does_not() -> None:
    text = "abcdef\n"
    replace = finding(Edit(1, 2, 1, 5, "XY"))
    inside = finding(Edit(1, 3, 1, 3, "!"))
    at_start = finding(Edit(1, 2, 1, 2, "<"))
    at_end = finding(Edit(1, 5, 1, 5, ">"))
    outcome = apply_fix_edits(text, [replace, inside, at_start, at_end])
    assert [f for f, _ in outcome.skipped] == [inside]
    # an insertion at the start of a replaced range goes before the replacement
    assert outcome.text == "a<XY>ef\n"


def test_edits_outside_the_text_or_backwards_or_overlapping_each_other_are_skipped() -> None:
    text = "ab\ncd\n"
    past_line_end = finding(Edit(1, 4, 1, 4, "x"))  # line 1 has 2 characters: column 3 is its end
    past_last_line = finding(Edit(4, 1, 4, 1, "x"))
    backwards = finding(Edit(2, 2, 2, 1, "x"))
    self_overlap = finding(Edit(1, 1, 1, 3, "x"), Edit(1, 2, 1, 2, "y"))
    outcome = apply_fix_edits(text, [past_line_end, past_last_line, backwards, self_overlap])
    assert outcome.text == text and outcome.applied == []
    reasons = dict((id(f), why) for f, why in outcome.skipped)
    assert "outside the file" in reasons[id(past_line_end)]
    assert "outside the file" in reasons[id(past_last_line)]
    assert "ends before it starts" in reasons[id(backwards)]
    assert reasons[id(self_overlap)] == "its edits overlap each other"


def test_end_of_line_and_end_of_file_positions_are_valid() -> None:
    text = "ab\ncd\n"
    eol = finding(Edit(1, 3, 1, 3, ";"))
    eof = finding(Edit(3, 1, 3, 1, "ef\n"))
    assert apply_fixes(text, [eol, eof])[0] == "ab;\ncd\nef\n"


def test_findings_without_fixes_are_ignored() -> None:
    plain = finding()
    assert apply_fixes("x\n", [plain]) == ("x\n", [])
    assert apply_fix_edits("x\n", [plain]).skipped == []


def test_map_offset_moves_characters_after_edits_and_into_replacements() -> None:
    edits = [(2, 2, "12"), (5, 8, "Z")]  # insert at 2, replace [5, 8)
    assert map_offset(0, edits) == 0
    assert map_offset(2, edits) == 4  # the character at an insertion point moves after the insertion
    assert map_offset(6, edits) == 7  # inside the replaced range: the replacement's start
    assert map_offset(9, edits) == 9  # +2 -2


# ------------------------------------------------------------------------------------------ fix_source

LEGACY = re.compile(r"__shfl_down\(")


def fake_lint(text: str, path: str) -> list[Finding]:
    """A stand-in for the engine, rule-agnostic as the fixer is:
    - CL103 (error) on each `__shfl_down(`, fixed to `__shfl_down_sync(0xffffffff, `;
    - CL901 (error) on each line holding `@@`, which no C++ parser accepts;
    - CL205 (error) on each `BAD`; CL501 (warning) on each `slow(`, with a fix that does nothing useful;
    - CL104 (error) on each `grid_sync_legacy()`, fixed to `unrolled(v)`;
    - CL502 (warning) on each `unrolled(`, fixed to `unrolled_ok(`;
    - CL204 (error) on each `floor_grid`, fixed to `__shfl_down(v, 1)` (which CL103 reports, with its fix);
    - CL206 (error) on each `round_grid`, fixed to `BAD` (which CL205 reports, without a fix).
    """
    found = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        for match in LEGACY.finditer(line):
            col = match.start() + 1
            edit = Edit(number, col, number, col + len("__shfl_down("), "__shfl_down_sync(0xffffffff, ")
            found.append(Finding("CL103", "warp-sync-misuse", Severity.ERROR,
                                 Location(path, number, col, number, col + 11), "legacy shuffle", (),
                                 Fix("use __shfl_down_sync", (edit,))))
        if "@@" in line:
            found.append(finding(code="CL901", line=number, message="expected expression", path=path))
        if "BAD" in line:
            found.append(finding(code="CL205", line=number, column=line.index("BAD") + 1, message="bad", path=path))
        if "slow(" in line:
            col = line.index("slow(") + 1
            found.append(finding(Edit(number, 1, number, 1, "// hint\n"), code="CL501", line=number, column=col,
                                 message="slow", severity=Severity.WARNING, path=path))
        if "grid_sync_legacy()" in line:
            col = line.index("grid_sync_legacy()") + 1
            found.append(finding(Edit(number, col, number, col + len("grid_sync_legacy()"), "unrolled(v)"),
                                 code="CL104", line=number, column=col, message="legacy grid sync", path=path))
        for word, code, replacement in (("floor_grid", "CL204", "__shfl_down(v, 1)"), ("round_grid", "CL206", "BAD")):
            if word in line:
                col = line.index(word) + 1
                found.append(finding(Edit(number, col, number, col + len(word), replacement), code=code,
                                     line=number, column=col, message=word, path=path))
        if "unrolled(" in line:
            col = line.index("unrolled(") + 1
            found.append(finding(Edit(number, col, number, col + len("unrolled("), "unrolled_ok("), code="CL502",
                                 line=number, column=col, message="unrolled", severity=Severity.WARNING,
                                 path=path))
    return found


def test_fix_source_applies_fixes_that_relint_clean() -> None:
    text = "v += __shfl_down(v, 16);\nv += __shfl_down(v, 8);\n"
    report = fix_source(text, "k.cu", fake_lint)
    assert report.text == ("v += __shfl_down_sync(0xffffffff, v, 16);\n"
                           "v += __shfl_down_sync(0xffffffff, v, 8);\n")
    assert [a.finding.line for a in report.applied] == [1, 2]
    assert report.rejected == [] and report.findings_after == []
    assert report.changed and report.passes == 1


def bad_fix_lint(edit_text: str, code: str = "CL103"):
    def lint(text: str, path: str) -> list[Finding]:
        found = [f for f in fake_lint(text, path) if f.code != "CL103"]
        if "FIXME" in text:
            line = text.splitlines().index("FIXME") + 1
            found.append(finding(Edit(line, 1, line, 6, edit_text), code=code, line=line, message="fixme",
                                 path=path))
        return found
    return lint


@pytest.mark.parametrize("edit_text, reason", [
    ("x = @@;", "the fixed code does not parse (CL901 at line 2: expected expression)"),
    ("FIXME", "CL103 is still reported at line 2 after the fix"),
    ("BAD", "the fix brings a new error that has no built-in fix: CL205 at line 2: bad"),
])
def test_fix_source_rejects_fixes_that_break_parsing_keep_the_finding_or_add_errors(edit_text, reason) -> None:
    text = "int a;\nFIXME\n"
    report = fix_source(text, "k.cu", bad_fix_lint(edit_text))
    assert report.text == text and not report.changed
    assert report.applied == []
    assert [(f.code, why) for f, why in report.rejected] == [("CL103", reason)]


def test_a_bad_fix_does_not_stop_the_good_ones() -> None:
    text = "v = __shfl_down(v, 1);\nFIXME\n"

    def lint(text: str, path: str) -> list[Finding]:
        found = fake_lint(text, path)
        if "FIXME" in text:
            line = text.splitlines().index("FIXME") + 1
            found.append(finding(Edit(line, 1, line, 6, "x = @@;"), code="CL102", line=line, path=path))
        return found

    report = fix_source(text, "k.cu", lint)
    assert report.text == "v = __shfl_down_sync(0xffffffff, v, 1);\nFIXME\n"
    assert [a.finding.code for a in report.applied] == ["CL103"]
    assert [f.code for f, _ in report.rejected] == ["CL102"]
    assert [f.code for f in report.findings_after] == ["CL102"]


def test_warning_fix_that_does_not_remove_its_finding_is_rejected() -> None:
    text = "slow(x);\n"
    report = fix_source(text, "k.cu", fake_lint)
    assert not report.changed
    assert [why for _, why in report.rejected] == ["CL501 is still reported at line 2 after the fix"]


def test_fixes_run_in_passes_when_a_fix_reveals_another_fixable_finding() -> None:
    # the revealed finding is a warning: a fix that brings a new error is never kept, even a fixable one
    text = "v = grid_sync_legacy();\n"
    report = fix_source(text, "k.cu", fake_lint)
    assert report.text == "v = unrolled_ok(v);\n"
    assert [(a.finding.code, a.pass_number) for a in report.applied] == [("CL104", 1), ("CL502", 2)]
    assert report.passes == 2 and report.findings_after == []


def test_fix_source_with_the_real_engine_changes_nothing_without_fixable_findings() -> None:
    path = Path(__file__).parent / "fixtures" / "repair" / "sigmoid_block2048.py"
    text = path.read_text()
    report = fix_source(text, str(path))
    assert "CL302" in {f.code for f in report.findings_before}
    assert report.text == text and report.applied == [] and report.rejected == [] and not report.changed
    assert report.findings_after == report.findings_before


def test_a_fix_may_bring_an_error_that_the_next_pass_fixes() -> None:
    report = fix_source("v = floor_grid;\n", "k.cu", fake_lint)
    assert report.text == "v = __shfl_down_sync(0xffffffff, v, 1);\n"
    assert [(a.finding.code, a.pass_number) for a in report.applied] == [("CL204", 1), ("CL103", 2)]
    assert report.findings_after == [] and report.rejected == []


def test_a_fix_whose_revealed_error_cannot_be_fixed_is_undone() -> None:
    def lint(text: str, path: str) -> list[Finding]:
        found = fake_lint(text, path)
        # the revealed CL103's own fix is broken here: it writes code that does not parse
        return [finding(Edit(f.line, 1, f.line, 1, "@@ "), code="CL103", line=f.line, column=f.column,
                        message=f.message, path=path) if f.code == "CL103" else f for f in found]

    text = "v = floor_grid;\n"
    report = fix_source(text, "k.cu", lint)
    assert report.text == text and report.applied == [] and not report.changed
    assert [(f.code, why.split(" (")[0]) for f, why in report.rejected] == [
        ("CL103", "the fixed code does not parse"),
        ("CL204", "undone: the findings that the fixes brought could not all be fixed in turn")]
    assert [f.code for f in report.findings_after] == ["CL204"]


def test_a_fix_that_brings_an_error_without_a_fix_is_rejected() -> None:
    report = fix_source("x = round_grid;\n", "k.cu", fake_lint)
    assert not report.changed
    assert [why for _, why in report.rejected] == [
        "the fix brings a new error that has no built-in fix: CL205 at line 1: bad"]


ADD = """__global__ void add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}

void launch(const float *a, const float *b, float *c, int n) {
    add<<<n / 256, 256>>>(a, b, c, n);
}
"""


def test_real_rules_fix_a_floor_grid_and_then_the_access_it_reveals() -> None:
    report = fix_source(ADD, "add.cu")
    if not any(f.fix is not None for f in report.findings_before):
        pytest.skip("no rule carries a fix for this kernel yet")
    assert report.changed and report.rejected == []
    assert [f for f in report.findings_after if f.severity.rank >= Severity.WARNING.rank] == []
    assert len({a.pass_number for a in report.applied}) >= 1


NO_SIZE_PY = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>

__global__ void scale_kernel(const float* x, float* y, float alpha) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    y[idx] = alpha * x[idx];
}

torch::Tensor scale_cuda(torch::Tensor x, double alpha) {
    auto y = torch::empty_like(x);
    const int threads = 256;
    scale_kernel<<<(x.numel() + threads - 1) / threads, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), alpha);
    return y;
}
"""

scale = load_inline(name="scale", cpp_sources="torch::Tensor scale_cuda(torch::Tensor x, double alpha);",
                    cuda_sources=source, functions=["scale_cuda"])


class ModelNew(nn.Module):
    def forward(self, x):
        return scale.scale_cuda(x, 2.0)
'''


def test_an_unguarded_kernel_with_no_size_parameter_gets_one_passed_at_every_launch() -> None:
    report = fix_source(NO_SIZE_PY, "scale.py")
    assert report.rejected == [] and [f.code for f in report.findings_before if f.fix] == ["CL201"]
    assert "__global__ void scale_kernel(const float* x, float* y, float alpha, long long n) {" in report.text
    assert "    if (idx < n) {\n    y[idx] = alpha * x[idx];\n    }" in report.text
    assert "y.data_ptr<float>(), alpha, x.numel());" in report.text
    assert not [f for f in report.findings_after if f.code == "CL201"]


def test_the_new_parameter_fix_is_unsafe_in_a_cu_file() -> None:
    """A .cu kernel may be launched from another translation unit with the old signature."""
    cuda = NO_SIZE_PY.split('source = """')[1].split('"""')[0]
    [cl201] = [f for f in default_linter()(cuda, "scale.cu") if f.code == "CL201"]
    assert cl201.fix is not None and not cl201.fix.safe
    assert not fix_source(cuda, "scale.cu").changed
    assert "long long n" in fix_source(cuda, "scale.cu", unsafe=True).text
