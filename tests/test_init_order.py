"""The random draws of a model's constructor (cudalint/harness/init_order.py) and CL420 with a reference
given from outside the file (`--reference`, `--problems`).

The layer facts below (order, shapes, bounds of each nn layer's default init) were checked against torch
2.11 on the real CPU stream: seeding, building the layer, and replaying the predicted draws with
`uniform_`/`normal_` on `torch.empty(shape)` gives the same parameter values and leaves the stream at the
same place, for every layer listed here."""

from __future__ import annotations

import ast
import math
import textwrap
from pathlib import Path

import pytest

from cudalint import lint_source
from cudalint.config import LintOptions
from cudalint.dryrun.runner import torch_version
from cudalint.harness import init_order
from cudalint.harness.init_order import first_difference, init_draws, reference_init, same_shape

FIXTURES = Path(__file__).parent / "fixtures" / "rules" / "CL420"


def draws_of(body: str, args: tuple = (), prelude: str = ""):
    code = ("import math\nimport torch\nimport torch.nn as nn\n" + textwrap.dedent(prelude) +
            "class Model(nn.Module):\n    def __init__(self, *args):\n        super().__init__()\n" +
            textwrap.indent(textwrap.dedent(body), "        "))
    return init_draws(ast.parse(code), "Model", list(args))


def summary(result):
    return [(d.dist, d.shape, tuple(round(p, 6) for p in d.params) if d.params else None) for d in result.draws]


@pytest.mark.parametrize(("layer", "expected"), [
    ("nn.Linear(64, 32)", [("uniform", (32, 64), (-0.125, 0.125)), ("uniform", (32,), (-0.125, 0.125))]),
    ("nn.Linear(64, 32, bias=False)", [("uniform", (32, 64), (-0.125, 0.125))]),
    ("nn.Conv2d(8, 16, (3, 5), groups=2)",
     [("uniform", (16, 4, 3, 5), (-1 / math.sqrt(60),) * 1 + (1 / math.sqrt(60),)),
      ("uniform", (16,), (-1 / math.sqrt(60), 1 / math.sqrt(60)))]),
    # ConvTranspose: the weight is [in, out // groups, *k] and fan_in is its size(1) * receptive field
    ("nn.ConvTranspose3d(8, 16, 3, stride=2, groups=2)",
     [("uniform", (8, 8, 3, 3, 3), (-1 / math.sqrt(216), 1 / math.sqrt(216))),
      ("uniform", (16,), (-1 / math.sqrt(216), 1 / math.sqrt(216)))]),
    ("nn.Embedding(100, 16, padding_idx=0)", [("normal", (100, 16), (0.0, 1.0))]),
    ("nn.BatchNorm2d(16)", []),
    ("nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.LayerNorm(4), nn.Dropout(0.1))",
     [("uniform", (4, 8), (-1 / math.sqrt(8), 1 / math.sqrt(8))), ("uniform", (4,), (-1 / math.sqrt(8), 1 / math.sqrt(8)))]),
])
def test_layer_default_init(layer, expected):
    result = draws_of(f"self.m = {layer}\n")
    assert result.complete
    assert summary(result) == [(d, s, tuple(round(p, 6) for p in ps)) for d, s, ps in expected]


def test_recurrent_layers_draw_every_parameter_in_registration_order():
    result = draws_of("self.m = nn.LSTM(16, 32, num_layers=2, bidirectional=True)\n")
    shapes = [d.shape for d in result.draws]
    layer0 = [(128, 16), (128, 32), (128,), (128,)]
    layer1 = [(128, 64), (128, 32), (128,), (128,)]
    assert shapes == layer0 * 2 + layer1 * 2
    assert {d.params for d in result.draws} == {(-1 / math.sqrt(32), 1 / math.sqrt(32))}
    assert [d.shape for d in draws_of("self.m = nn.GRUCell(16, 32, bias=False)\n").draws] == [(96, 16), (96, 32)]


def test_multihead_attention_draws_out_proj_then_the_packed_projection():
    result = draws_of("self.m = nn.MultiheadAttention(64, 8)\n")
    assert [d.shape for d in result.draws] == [(64, 64), (64,), (192, 64)]
    assert result.draws[2].params[1] == pytest.approx(math.sqrt(6 / (64 + 192)))


def test_the_default_recipe_rebuilt_exactly_equals_the_layer():
    layer = draws_of("self.m = nn.Linear(in_f, out_f)\n", prelude="in_f, out_f = 1024, 512\n")
    recipe = draws_of("""
        self.weight = nn.Parameter(torch.empty(512, 1024))
        self.bias = nn.Parameter(torch.empty(512))
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        fan_in, _ = nn.init._calculate_fan_in_and_fan_out(self.weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        nn.init.uniform_(self.bias, -bound, bound)
    """)
    assert first_difference(layer, recipe) is None and len(recipe.draws) == 2


@pytest.mark.parametrize(("body", "index"), [
    ("self.w = nn.Parameter(torch.randn(512, 1024))\n", 0),  # normal instead of kaiming-uniform
    ("self.w = nn.Parameter(torch.empty(1024, 512)).data.uniform_(-1 / 32, 1 / 32)\n", 0),  # transposed
    ("self.b = nn.Parameter(torch.randn(512))\nself.m = nn.Linear(1024, 512)\n", 0),  # order
    ("self.m = nn.Linear(1024, 512)\nself.b = nn.Parameter(torch.rand(512))\n", 2),  # an extra draw mid-stream
    ("self.m = nn.Linear(1024, 512)\nself.n = nn.Linear(512, 8)\nself.b = nn.Parameter(torch.rand(9))\n", None),
    ("self.m = nn.Linear(1024, 512)\n", None),  # missing draws at the end
    ("self.m = nn.Linear(1024, 512, device='cuda')\n", 0),  # another generator
    ("self.m = nn.Linear(1024, 512, bias=False)\nself.n = nn.Linear(512, 8)\n", 1),  # a bias dropped mid-stream
])
def test_first_difference(body, index):
    reference = draws_of("self.m = nn.Linear(1024, 512)\nself.n = nn.Linear(512, 8)\n")
    assert first_difference(reference, draws_of(body)) == index


def test_transformed_draws_keep_family_and_shape_only():
    scaled = draws_of("self.w = nn.Parameter(torch.randn(64, 32) * 0.02)\n")
    normal = draws_of("self.w = nn.Parameter(torch.empty(64, 32))\nnn.init.normal_(self.w, std=0.02)\n")
    assert scaled.draws[0].params is None and first_difference(normal, scaled) is None
    # an affine map of rand() is uniform_: the same values, not a difference
    affine = draws_of("self.w = nn.Parameter((torch.rand(64, 32) * 2 - 1) * 0.125)\n")
    assert first_difference(draws_of("self.m = nn.Linear(32, 64, bias=False)\n"), affine) is None


def test_what_cannot_be_followed_ends_the_known_part():
    result = draws_of("self.m = nn.Linear(8, 4)\nn = compute()\nself.w = nn.Parameter(torch.randn(n))\n")
    assert not result.complete and len(result.draws) == 2
    loop = draws_of("for size in sizes:\n    self.add_module(str(size), nn.Linear(size, size))\n", args=(),
                    prelude="sizes = [4, 8]\n")
    assert loop.complete and [d.shape for d in loop.draws] == [(4, 4), (4,), (8, 8), (8,)]


def test_same_shape():
    assert same_shape((64, 1, 1), (64,)) and same_shape((16, 8 * 9), (16, 8, 3, 3))
    assert not same_shape((8, 16), (16, 8)) and not same_shape((4, 6), (6, 4))


# ------------------------------------------------------------------------- CL420, reference outside


REFERENCE = '''\
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.gemm(x))


batch_size = 128
in_features = 1024
out_features = 512


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
'''


def _solution(fixture: str) -> str:
    """A fixture without its own Model and problem functions: the solution of a run."""
    text = (FIXTURES / fixture).read_text()
    start = text.index("class Model(nn.Module):")
    end = text.index("class ModelNew(nn.Module):")
    text = text[:start] + text[end:]
    return text[: text.index("\nbatch_size")] + "\n"


def _cl420(text: str, filename: str, options: LintOptions) -> list:
    return [f for f in lint_source(text, filename=filename, options=options) if f.code == "CL420"]


def test_reference_file_given(tmp_path):
    reference = tmp_path / "12_Gemm_ReLU.py"
    reference.write_text(REFERENCE)
    options = LintOptions(reference=str(reference), dry_run=False)  # the static reading (the dry run's: below)
    [finding] = _cl420(_solution("bad_randn_weight.py"), "solution.py", options)
    assert "12_Gemm_ReLU.py:8" in finding.message and "uniform(±0.03125) over [512, 1024]" in finding.message
    if torch_version() is not None:
        [observed] = _cl420(_solution("bad_randn_weight.py"), "solution.py", LintOptions(reference=str(reference)))
        assert "the reference's (12_Gemm_ReLU.py:8) is `uniform(-0.03125, 0.03125) of [512, 1024]" in observed.message
    assert not _cl420(_solution("good_same_layer.py"), "solution.py", options)
    assert not _cl420(_solution("good_exact_recipe.py"), "solution.py", options)
    # without the reference, the same solution is not judged
    assert not _cl420(_solution("bad_randn_weight.py"), "solution.py", LintOptions())


def test_reference_found_in_a_problems_directory(tmp_path):
    (tmp_path / "level2").mkdir()
    (tmp_path / "level2" / "12_Gemm_ReLU.py").write_text(REFERENCE)
    options = LintOptions(problems=str(tmp_path))
    found = _cl420(_solution("bad_randn_then_kaiming.py"), "run/level_2_problem_12_sample_0_kernel.py", options)
    assert [f.line for f in found] == [_solution("bad_randn_then_kaiming.py").splitlines().index(
        "        self.weight = nn.Parameter(torch.randn(out_features, in_features))") + 1]
    assert not _cl420(_solution("bad_randn_then_kaiming.py"), "run/level_2_problem_13_sample_0_kernel.py", options)


def test_the_reference_is_read_once_per_process(tmp_path):
    reference = tmp_path / "ref.py"
    reference.write_text(REFERENCE)
    init_order._reference_init_cached.cache_clear()
    first = reference_init(str(reference))
    assert reference_init(str(reference)) is first
    assert init_order._reference_init_cached.cache_info().misses == 1
    assert first.args == [1024, 512] and len(first.draws.draws) == 2


def test_min_max_and_sum_of_a_huge_range_are_computed_from_its_ends():
    """`max(range(10**15))` once listed the range: terabytes. Its ends give each value at once."""
    code = "def get_init_inputs():\n    return [max(range(10**15)), min(range(5, 10**15, 3)), sum(range(10**12)), sum(range(0))]\n"
    assert init_order.init_inputs(ast.parse(code)) == [10**15 - 1, 5, (10**12 - 1) * 10**12 // 2, 0]
