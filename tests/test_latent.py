"""Latent findings: a defect proven not to occur at the reference problem's shapes is reported (marked
latent in text and JSON) but rejects only under `--strict` / `prefilter(strict=True)`."""

import json
from pathlib import Path

from typer.testing import CliRunner

import cudalint
from cudalint.cli import app
from cudalint.config import LintOptions

FIXTURE = Path(__file__).parent / "fixtures" / "rules" / "CL102" / "bad_exit_before_barrier_latent_at_reference.py"


def _cl102(text: str):
    return [f for f in cudalint.lint_source(text, filename="level_1_problem_1.py", options=LintOptions(select=["CL102"]))]


def test_an_exit_no_graded_thread_takes_is_latent():
    (finding,) = _cl102(FIXTURE.read_text())
    assert finding.latent
    assert "latent: at the reference's shapes no thread of the launches takes that exit" in finding.message
    assert finding.to_dict()["latent"] is True
    assert type(finding).from_dict(finding.to_dict()).latent


def test_an_exit_some_graded_thread_takes_is_not_latent():
    # 1000 x 1001 elements: the last block's tail threads return before the barrier
    (finding,) = _cl102(FIXTURE.read_text().replace("torch.randn(16384, 1024)", "torch.randn(1000, 1001)"))
    assert not finding.latent
    assert "latent" not in finding.to_dict()


def test_without_a_reference_nothing_is_latent():
    text = FIXTURE.read_text()
    (finding,) = _cl102(text[:text.index("def get_inputs")])
    assert not finding.latent


def test_prefilter_accepts_a_latent_finding_unless_strict():
    text = FIXTURE.read_text()
    lenient = cudalint.prefilter([("level_1_problem_1.py", text)], jobs=1, use_config=False)
    strict = cudalint.prefilter([("level_1_problem_1.py", text)], jobs=1, use_config=False, strict=True)
    assert [item.name for item in lenient.accepted] == ["level_1_problem_1.py"]
    assert [f.code for f in lenient.accepted[0].findings] == ["CL102"]
    assert [item.name for item in strict.rejected] == ["level_1_problem_1.py"]


def test_cli_marks_latent_and_fails_only_with_strict():
    runner = CliRunner()
    lenient = runner.invoke(app, ["check", "--no-cache", "--select", "CL102", str(FIXTURE)])
    assert lenient.exit_code == 0, lenient.output
    assert "CL102 [error] [latent] `__syncthreads()`" in lenient.output
    strict = runner.invoke(app, ["check", "--no-cache", "--strict", "--select", "CL102", str(FIXTURE)])
    assert strict.exit_code == 1
    as_json = runner.invoke(app, ["check", "--no-cache", "--select", "CL102", "--output-format", "json", str(FIXTURE)])
    assert [f["latent"] for f in json.loads(as_json.output)] == [True]


def test_json_files_rejects_a_latent_finding_only_with_strict():
    runner = CliRunner()
    verdicts = []
    for extra in ([], ["--strict"]):
        result = runner.invoke(app, ["check", "--no-cache", *extra, "--select", "CL102", "--output-format",
                                     "json-files", str(FIXTURE)])
        payload = json.loads(result.output)
        verdicts.append((payload["strict"], [entry["rejected"] for entry in payload["files"]]))
    assert verdicts == [(False, [False]), (True, [True])]


def test_latency_is_proven_whatever_python_shape_reaches_the_launch():
    """The launch's shapes are read however the file spells ModelNew and its call: the class bound under
    another name, built by a factory, forward attached after the class, the bound function fetched with
    getattr, the extension from a cached factory (metamorphic rewrites of the real-kernel set lost the proof
    on each)."""
    text = FIXTURE.read_text()
    model = text[text.index("class ModelNew"):text.index("def get_inputs")]
    rewrites = {
        "rebound": model.replace("class ModelNew", "class _Impl") + "\nModelNew = _Impl\n\n\n",
        "factory": "def _make():\n" + "".join("    " + line + "\n" for line in model.strip().splitlines())
                   + "    return ModelNew\n\n\nModelNew = _make()\n\n\n",
        "attached": "class ModelNew(nn.Module):\n    pass\n\n\ndef _forward(self, x):\n    return ext.shift(x)\n\n\n"
                    "setattr(ModelNew, 'forward', _forward)\n\n\n",
        "getattr": model.replace("ext.shift(x)", "getattr(ext, 'shift')(x)"),
        "cached": "import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef _ext():\n    return ext\n\n\n"
                  + model.replace("ext.shift(x)", "_ext().shift(x)"),
    }
    for name, rewritten in rewrites.items():
        (finding,) = _cl102(text.replace(model, rewritten))
        assert finding.latent, name
