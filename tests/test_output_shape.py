"""Shape inference for CL430: torch's shape rules (harness/torch_shapes.py), the reading of a reference
problem and of a solution's forward through its C++ wrapper (harness/output_shape.py)."""

from __future__ import annotations

import ast
import textwrap

import pytest

import cudalint
from cudalint.harness.output_shape import problem_of_module
from cudalint.harness.torch_shapes import TensorType, ValuesIndices, apply_op


def _t(*shape: int) -> TensorType:
    return TensorType(shape, "float32")


# each expected result was read from torch 2.11 on meta tensors
TORCH_CASES = [
    ("conv2d", [_t(2, 2, 13, 11), _t(4, 2, 2, 2)], {"stride": 3, "dilation": 2}, (2, 4, 4, 3)),
    ("conv2d", [_t(3, 4, 17, 3), _t(2, 4, 4, 4)], {"stride": 3, "padding": 2}, (3, 2, 6, 2)),
    ("conv1d", [_t(1, 4, 8), _t(2, 4, 3)], {"padding": 1, "dilation": 2}, (1, 2, 6)),
    ("conv3d", [_t(1, 4, 10, 6, 3), _t(2, 2, 2, 2, 2)], {"padding": 2, "groups": 2}, (1, 2, 13, 9, 6)),
    ("conv_transpose1d", [_t(3, 6, 6), _t(6, 2, 4)], {"stride": 3, "output_padding": 2, "dilation": 2}, (3, 2, 24)),
    ("conv_transpose2d", [_t(2, 4, 17, 6), _t(4, 3, 3, 3)],
     {"stride": 2, "padding": 2, "output_padding": 1, "groups": 2, "dilation": 2}, (2, 6, 34, 12)),
    ("conv_transpose3d", [_t(3, 6, 15, 8, 11), _t(6, 1, 1, 1, 1)], {"output_padding": 1, "dilation": 2},
     (3, 1, 16, 9, 12)),
    ("max_pool3d", [_t(2, 2, 15, 4, 8)], {"kernel_size": 4, "stride": 3, "padding": 1, "ceil_mode": True,
                                          "dilation": 2}, (2, 2, 5, 1, 2)),
    ("max_pool2d", [_t(3, 2, 7, 6)], {"kernel_size": 3, "dilation": 2}, (3, 2, 1, 1)),
    ("max_pool1d", [_t(1, 2, 7)], {"kernel_size": 4, "stride": 3, "ceil_mode": True}, (1, 2, 2)),
    ("avg_pool2d", [_t(2, 2, 5, 15)], {"kernel_size": 2, "stride": 3, "ceil_mode": True}, (2, 2, 2, 5)),
    ("avg_pool3d", [_t(1, 6, 14, 10, 12)], {"kernel_size": 2, "stride": 3, "ceil_mode": True}, (1, 6, 5, 4, 4)),
    ("adaptive_avg_pool2d", [_t(1, 6, 4, 10)], {"output_size": 3}, (1, 6, 3, 3)),
    ("interpolate", [_t(3, 6, 4, 7, 6)], {"scale_factor": 0.5}, (3, 6, 2, 3, 3)),
    ("matmul", [_t(5), _t(7, 1, 5, 4)], {}, (7, 1, 4)),
    ("cat", [[_t(2, 6, 14, 12), _t(2, 7, 14, 12)]], {"dim": 1}, (2, 13, 14, 12)),
    ("flatten", [_t(1, 4, 9, 6)], {"start_dim": 1}, (1, 216)),
    ("sum", [_t(1, 2, 8)], {"dim": 1, "keepdim": True}, (1, 1, 8)),
    ("mean", [_t(2, 6, 5, 16)], {"dim": [1, 2]}, (2, 16)),
    ("amax", [_t(2, 4, 17, 6, 12)], {}, ()),
    ("var", [_t(2, 6, 17, 5)], {"dim": [1, 2], "keepdim": True}, (2, 1, 1, 5)),
    ("std", [_t(2, 6, 12)], {"keepdim": True}, (1, 1, 1)),
    ("norm", [_t(3, 2, 9)], {"dim": [1, 2], "keepdim": True}, (3, 1, 1)),
    ("logsumexp", [_t(3, 6, 4, 7)], {"dim": 1}, (3, 4, 7)),
]


@pytest.mark.parametrize("name, args, kwargs, shape", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_shape_rule_agrees_with_torch(name, args, kwargs, shape):
    assert apply_op(name, args, kwargs).shape == shape


def test_reductions_over_a_dimension_give_values_and_indices():
    result = apply_op("max", [_t(2, 4, 11)], {"dim": -1})
    assert isinstance(result, ValuesIndices)
    assert (result.values.shape, result.indices.dtype) == ((2, 4), "int64")
    assert apply_op("argmax", [_t(3, 2, 11, 5)], {"dim": 1, "keepdim": True}) == TensorType((3, 1, 11, 5), "int64")


def test_views_infer_the_free_dimension():
    assert apply_op("view", [_t(16, 3, 8, 8), 16, -1], {}).shape == (16, 192)
    assert apply_op("reshape", [_t(16, 3, 8, 8), (4, -1, 8)], {}).shape == (4, 96, 8)
    assert apply_op("permute", [_t(2, 3, 4), 2, 0, 1], {}).shape == (4, 2, 3)
    assert apply_op("unsqueeze", [_t(2, 3), -1], {}).shape == (2, 3, 1)
    assert apply_op("squeeze", [_t(2, 1, 3, 1)], {}).shape == (2, 3)


def test_broadcasting_and_dtypes():
    assert apply_op("add", [_t(128, 64, 30, 30), _t(64, 1, 1)], {}).shape == (128, 64, 30, 30)
    assert apply_op("gt", [_t(4, 1), _t(1, 5)], {}) == TensorType((4, 5), "bool")
    assert apply_op("float", [TensorType((3,), "float16")], {}).dtype == "float32"


@pytest.mark.parametrize("name, args, kwargs", [
    ("add", [_t(4, 3), _t(4, 2)], {}),  # shapes that do not broadcast: torch raises
    ("view", [_t(4, 3), 5, -1], {}),  # 12 elements do not fill rows of 5
    ("conv2d", [_t(1, 3, 8, 8), _t(4, 3, 3, 3), _t(8)], {}),  # a bias of another channel count
    ("sum", [_t(2, 3)], {"keepdim": True}),  # no whole-tensor sum takes keepdim
    ("linear", [_t(2, 3), _t(4, 5)], {}),  # inner sizes differ
    ("einsum", ["ij->j", _t(2, 3)], {}),  # not in the table
    ("softmax", [_t(2, 3)], {}),  # the implicit dimension of old torch
    ("mean", [_t(2, 3)], {"dim": 1, "out": _t(2)}),  # an argument the rule does not read
])
def test_results_torch_would_not_give_are_not_known(name, args, kwargs):
    assert apply_op(name, args, kwargs) is None


@pytest.mark.parametrize("name, args, reason", [
    ("conv2d", [_t(1, 3, 8, 8), _t(4, 3, 3, 3), _t(8)], "expected bias to be 1-dimensional with 4 elements, but "
                                                         "got bias of size [8]"),
    ("conv2d", [_t(1, 3, 8, 8), _t(4, 5, 3, 3)], "weight of size [4, 5, 3, 3], expected input[1, 3, 8, 8] to have 5 "
                                                 "channels, but got 3 channels instead"),
    ("conv_transpose2d", [_t(1, 32, 8, 8), _t(16, 32, 3, 3)], "given transposed=1, weight of size [16, 32, 3, 3], "
                                                              "expected input[1, 32, 8, 8] to have 16 channels"),
    ("view", [_t(4, 3), 5, 2], "shape '[5, 2]' is invalid for input of size 12"),
    ("linear", [_t(2, 3), _t(4, 5)], "mat1 and mat2 shapes cannot be multiplied"),
])
def test_calls_torch_rejects_say_why(name, args, reason):
    """torch's own check, with the shapes it got (the words of torch's message where it has one)."""
    reasons: list[str] = []
    assert apply_op(name, args, {}, reasons.append) is None
    assert len(reasons) == 1 and reasons[0].startswith(reason), reasons


def test_unknown_is_not_a_rejection():
    reasons: list[str] = []
    assert apply_op("conv2d", [_t(1, 3, 8, 8), "w"], {}, reasons.append) is None  # the weight is not known
    assert apply_op("view", [_t(4, 3), 5, -1], {}, reasons.append) is None  # -1 that cannot be inferred
    assert reasons == []


_PROBLEM = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool):
        super().__init__()
        self.conv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=2, padding=1,
                                       output_padding=1)
        self.pool = nn.MaxPool2d(pool)

    def forward(self, x):
        x = self.pool(torch.tanh(self.conv(x)))
        return x.mean(dim=(2, 3), keepdim=True).flatten(1)

batch_size = 8
height = width = 64
height, width = 31, 33
in_channels, out_channels = 16, 32

def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]

def get_init_inputs():
    return [in_channels, out_channels, 4, 2]
"""


def test_reference_output_at_its_inputs():
    problem = problem_of_module(ast.parse(_PROBLEM))
    assert problem.inputs[0].shape == (8, 16, 31, 33)  # the last binding of height and width
    assert (problem.output.shape, problem.output.dtype) == ((8, 32), "float32")


def test_forward_branch_on_an_unknown_value_leaves_the_output_unknown():
    text = _PROBLEM.replace("        return x.mean(dim=(2, 3), keepdim=True).flatten(1)",
                            "        if x.sum() > 0:\n            x = x[:, :1]\n        return x")
    assert problem_of_module(ast.parse(text)).output is None


def _solution(wrapper: str) -> str:
    return textwrap.dedent('''
        import torch
        import torch.nn as nn
        from torch.utils.cpp_extension import load_inline

        source = """
        torch::Tensor scan_cuda(torch::Tensor x, int dim) {
        %s
        }
        """

        ext = load_inline(name="scan", cpp_sources="torch::Tensor scan_cuda(torch::Tensor x, int dim);",
                          cuda_sources=source, functions=["scan_cuda"])


        class Model(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.dim = dim

            def forward(self, x):
                return torch.cumsum(x, dim=self.dim)


        class ModelNew(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.dim = dim

            def forward(self, x):
                return ext.scan_cuda(x, self.dim)


        def get_inputs():
            return [torch.randn(64, 1000)]


        def get_init_inputs():
            return [1]
        ''') % textwrap.indent(textwrap.dedent(wrapper), "    ")


def _shape_findings(text: str) -> list[str]:
    return [f.message for f in cudalint.lint_source(text, filename="scan.py") if f.code == "CL430"]


def test_a_branch_the_arguments_decide_is_followed_in_the_wrapper():
    wrapper = """
        if (dim != x.dim() - 1) {
            return torch::cumsum(x, dim);
        }
        auto out = torch::zeros({x.size(0), x.size(1) + 1}, x.options());
        return out;
    """
    [message] = _shape_findings(_solution(wrapper))
    assert "[64, 1001]" in message and "[64, 1000]" in message


def test_a_wrapper_with_returns_of_unknown_shape_is_not_reported():
    wrapper = """
        if (x.is_contiguous()) {
            return torch::zeros({x.size(0), x.size(1) + 1}, x.options());
        }
        return torch::cumsum(x, dim);
    """
    assert _shape_findings(_solution(wrapper)) == []


def test_reassigned_tensor_locals_and_tensor_operators_are_followed():
    wrapper = """
        auto out = torch::cumsum(x, dim);
        out = out.view({-1, 8});
        return out * 2.0 + 1.0;
    """
    [message] = _shape_findings(_solution(wrapper))
    assert "[8000, 8]" in message


def test_a_parameter_the_wrapper_writes_is_followed_from_its_argument():
    wrapper = """
        if (dim < 0) dim += x.dim();
        if (dim == 1) return torch::cumsum(x, dim).sum(dim, true);
        return torch::cumsum(x, dim);
    """
    [message] = _shape_findings(_solution(wrapper))
    assert "[64, 1]" in message
