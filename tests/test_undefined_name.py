"""CL432 counts the reference problem's names as bound: KernelBench's harness executes the solution in the
namespace it executed the reference in."""

from pathlib import Path

import cudalint
from cudalint.config import LintOptions

SOLUTION = '''
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = ResidualBlock(64)

    def forward(self, x):
        return self.block(x)
'''

REFERENCE = '''
import torch
import torch.nn as nn


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return x + self.conv(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = ResidualBlock(64)

    def forward(self, x):
        return self.block(x)


def get_inputs():
    return [torch.randn(8, 64, 32, 32)]


def get_init_inputs():
    return []
'''


def _cl432(tmp_path: Path, reference: str | None) -> list:
    solution = tmp_path / "level_3_problem_1_sample_0_kernel.py"
    solution.write_text(SOLUTION)
    options = LintOptions(select=["CL432"])
    if reference is not None:
        path = tmp_path / "1_Residual.py"
        path.write_text(reference)
        options = LintOptions(select=["CL432"], reference=str(path))
    return [f for result in cudalint.lint_paths([str(solution)], options=options) for f in result.findings]


def test_a_class_the_reference_defines_is_bound(tmp_path):
    assert _cl432(tmp_path, REFERENCE) == []


def test_a_class_neither_defines_is_reported(tmp_path):
    findings = _cl432(tmp_path, REFERENCE.replace("ResidualBlock", "Block"))
    assert [(f.code, f.line) for f in findings] == [("CL432", 9)]
    assert "`ResidualBlock` is never defined" in findings[0].message
    assert "`ModelNew(...)` (its `__init__`) raises NameError" in findings[0].message


def test_without_a_reference_the_rule_is_silent(tmp_path):
    assert _cl432(tmp_path, None) == []
