"""`--harness kernelbench` (KernelBench's current eval) and `--harness kernelbench-v0.1`: the tolerance each
chooses, its `precision` argument from the CLI to the worker, the excessive-speedup flag; and on the CPU
(with torch), the real worker's input and model casting and its tolerance."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cudalint.verify.cli import register
from cudalint.verify.runner import (DEFAULT_TOLERANCES, Candidate, VerifyOptions, harness_tolerances, verify_batch)

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures" / "verify"
RUN = FIXTURES / "run"
PROBLEMS = FIXTURES / "problems"
RELU_REF = PROBLEMS / "level1" / "19_ReLU.py"
STANDIN = str(FIXTURES / "standin_worker.py")


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)

    @app.callback()
    def _root() -> None:
        pass

    return app


def test_each_harness_chooses_its_tolerance() -> None:
    assert harness_tolerances("cudalint") is None  # cudalint's own, per output dtype
    assert DEFAULT_TOLERANCES["float32"] == (1e-4, 1e-4) and DEFAULT_TOLERANCES["float16"] == (1e-2, 1e-2)
    # v0/v0.1: 1e-2 for every dtype
    assert set(harness_tolerances("kernelbench-v0.1").values()) == {(1e-2, 1e-2)}
    # now: the tolerance of the eval's precision for every output, whatever its dtype
    assert set(harness_tolerances("kernelbench").values()) == {(1e-4, 1e-4)}
    assert set(harness_tolerances("kernelbench", "fp16").values()) == {(1e-2, 1e-2)}
    assert set(harness_tolerances("kernelbench", "bf16").values()) == {(1e-2, 1e-2)}


def test_precision_is_kernelbenchs_argument_only() -> None:
    with pytest.raises(ValueError, match="unknown precision"):
        VerifyOptions(parity="kernelbench", precision="fp8").validate()
    with pytest.raises(ValueError, match="needs --harness kernelbench"):
        VerifyOptions(parity="kernelbench-v0.1", precision="fp16").validate()
    VerifyOptions(parity="kernelbench", precision="bf16").validate()
    VerifyOptions(parity="kernelbench-v0.1").validate()


@pytest.mark.parametrize("arguments, parity, precision, float32", [
    ([], "cudalint", "fp32", (1e-4, 1e-4)),
    (["--harness", "kernelbench"], "kernelbench", "fp32", (1e-4, 1e-4)),
    (["--harness", "kernelbench", "--precision", "bf16"], "kernelbench", "bf16", (1e-2, 1e-2)),
    (["--harness", "kernelbench-v0.1"], "kernelbench-v0.1", "fp32", (1e-2, 1e-2)),
    # an explicit --tolerance still wins over the harness's
    (["--harness", "kernelbench-v0.1", "--tolerance", "float32=1e-3"], "kernelbench-v0.1", "fp32", (1e-3, 1e-3)),
])
def test_cli_plumbs_the_harness_and_precision(monkeypatch, arguments, parity, precision, float32) -> None:
    seen = []
    monkeypatch.setattr(VerifyOptions, "missing_gpu", lambda self: None)
    monkeypatch.setattr("cudalint.verify.runner.verify_batch",
                        lambda candidates, options, progress: seen.append(options) or [])
    done = CliRunner().invoke(_app(), ["verify", str(RUN), "--problems", str(PROBLEMS), *arguments])
    assert done.exit_code == 0, done.output
    [options] = seen
    assert (options.parity, options.precision, options.tolerances["float32"]) == (parity, precision, float32)


def test_cli_refuses_an_unknown_precision_or_one_without_the_harness() -> None:
    runner = CliRunner()
    done = runner.invoke(_app(), ["verify", str(RUN), "--problems", str(PROBLEMS), "--harness", "kernelbench",
                                  "--precision", "fp8"])
    assert done.exit_code == 2 and "unknown precision" in done.output
    done = runner.invoke(_app(), ["verify", str(RUN), "--problems", str(PROBLEMS), "--precision", "fp16"])
    assert done.exit_code == 2 and "needs --harness kernelbench" in done.output


def _standin_solution(tmp_path: Path, behaviour: str) -> str:
    path = tmp_path / f"{behaviour}.py"
    path.write_text(f"# standin: {behaviour}\nimport torch\nclass ModelNew(torch.nn.Module):\n"
                    f"    def forward(self, x):\n        return x\n")
    return str(path)


@pytest.mark.parametrize("parity, flagged", [("kernelbench", True), ("kernelbench-v0.1", False), ("cudalint", False)])
def test_excessive_speedup_is_flagged_as_kernelbench_flags_it(tmp_path: Path, monkeypatch, parity, flagged) -> None:
    import sys

    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    options = VerifyOptions(worker=[sys.executable, STANDIN], device="cuda", gpus=["0"], lint=False,
                            cache_dir=str(tmp_path / "cache"), run_timeout=20.0, build_timeout=20.0,
                            pass_env=("STANDIN_LOG",), parity=parity,
                            tolerances=harness_tolerances(parity) or dict(DEFAULT_TOLERANCES))
    fast, ordinary = verify_batch([Candidate(_standin_solution(tmp_path, "fast"), str(RELU_REF)),
                                   Candidate(_standin_solution(tmp_path, "ok"), str(RELU_REF))], options)
    assert fast["status"] == "correct" and fast["passed"]  # the flag never changes the verdict
    assert bool(fast.get("excessive_speedup")) is flagged and not ordinary.get("excessive_speedup")
    assert any("excessive speedup: 20.0x" in note for note in fast["notes"]) is flagged
    runs = [json.loads(line) for line in log.read_text().splitlines() if '"run"' in line]
    assert {(r["parity"], r["precision"]) for r in runs} == {(parity, "fp32")}


_REFERENCE = """\
import torch
import torch.nn as nn
class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.lin = nn.Linear(32, 16)
        self.scale = scale
    def forward(self, x):
        return self.lin(x) * self.scale
def get_inputs():
    return [torch.randn(8, 32)]
def get_init_inputs():
    return [2.0]
"""


def _candidate(tmp_path: Path, name: str, forward: str) -> Candidate:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(f"""\
        import torch
        import torch.nn as nn
        class ModelNew(nn.Module):
            def __init__(self, scale):
                super().__init__()
                self.lin = nn.Linear(32, 16)
                self.scale = scale
            def forward(self, x):
        """) + textwrap.indent(forward, " " * 8) + "\n")
    return Candidate(str(path), str(tmp_path / "ref.py"))


def test_real_worker_casts_inputs_and_models_and_compares_with_the_precisions_tolerance(tmp_path: Path) -> None:
    """On the CPU: KernelBench's precision casts the input and both models (the candidate sees bf16); an
    error of 5e-4 relative passes v0.1's 1e-2 and fails the current eval's fp32 1e-4."""
    pytest.importorskip("torch")
    (tmp_path / "ref.py").write_text(_REFERENCE)
    sees_bf16 = _candidate(tmp_path, "bf16", "assert x.dtype == torch.bfloat16 and self.lin.weight.dtype == "
                                             "torch.bfloat16, (x.dtype, self.lin.weight.dtype)\n"
                                             "return self.lin(x) * self.scale")
    off = _candidate(tmp_path, "off", "return self.lin(x) * self.scale * (1 + 5e-4)")

    def run(candidates, parity, precision="fp32"):
        options = VerifyOptions(device="cpu", lint=False, cache_dir=str(tmp_path / "cache"), timing_trials=2,
                                run_timeout=120, build_timeout=120, parity=parity, precision=precision,
                                tolerances=harness_tolerances(parity, precision) or dict(DEFAULT_TOLERANCES))
        return [(r["status"], r["message"]) for r in verify_batch(candidates, options)]

    [(status, message)] = run([sees_bf16], "kernelbench", "bf16")
    assert status == "correct", message
    [(status, message)] = run([sees_bf16], "kernelbench-v0.1")
    assert status == "runtime_error" and "torch.float32" in message  # v0.1 casts nothing
    assert run([off], "kernelbench-v0.1")[0][0] == "correct"
    [(status, message)] = run([off], "kernelbench")
    assert status == "incorrect" and "atol=0.0001" in message
