"""`cudalint check --add-ignore`: a suppression comment for every finding, in the syntax that is then
honoured (in CUDA, in CUDA inside a Python string, on a Python line), merged with one already on the line;
a re-check reports nothing and the file still parses; files without findings are not touched."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cudalint.cli import app
from cudalint.sources import load_document
from cudalint.suppressions import add_suppressions

REPO = Path(__file__).resolve().parents[1]

UNGUARDED_CU = """__global__ void k(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] = 0.0f;
}
"""

# embedded CUDA in three shapes: a triple-quoted string, a statement continued with a backslash (a `//`
# comment after it would end the continuation), one line with `\\n` escapes (a `//` comment there would end
# the CUDA code that follows it on the file line)
PYTHON = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>
__global__ void zero(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] = 0.0f;
}
__global__ void zero2(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] = \\\\
        1.0f;
}
torch::Tensor zero_cuda(torch::Tensor x) {
    int n = x.numel();
    zero<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), n);
    zero2<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), n);
    return x;
}
"""
other = "__global__ void one(float* y, int n) {\\n    int j = blockIdx.x * blockDim.x + threadIdx.x;\\n    y[j] = 1.0f; }\\ntorch::Tensor one_cuda(torch::Tensor y) { int n = y.numel(); one<<<(n + 255) / 256, 256>>>(y.data_ptr<float>(), n); return y; }\\n"

ext = load_inline(name="zero", cpp_sources="torch::Tensor zero_cuda(torch::Tensor x);", cuda_sources=source,
                  functions=["zero_cuda"], verbose=False)
ext2 = load_inline(name="one", cpp_sources="torch::Tensor one_cuda(torch::Tensor y);", cuda_sources=other,
                   functions=["one_cuda"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.zero_cuda(ext2.one_cuda(x))
'''


def check(*args: str):
    return CliRunner().invoke(app, ["check", "--no-config", "--no-cache", *args])


def findings(path: Path) -> list[str]:
    result = check("-q", "--output-format", "concise", str(path))
    return result.stdout.splitlines()


def test_cuda_file_gets_line_comments_and_rechecks_clean(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(UNGUARDED_CU)
    assert [line.rsplit(" ", 1)[-1] for line in findings(path)] == ["[CL201]"]
    result = check("--add-ignore", "--reason", "legacy kernel", str(path))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "cudalint: added 1 suppression in 1 file\n")
    assert path.read_text() == UNGUARDED_CU.replace("x[i] = 0.0f;",
                                                    "x[i] = 0.0f; // cudalint: ignore[CL201] legacy kernel")
    assert findings(path) == []


def test_python_file_comments_land_inside_the_cuda_strings(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_text(PYTHON)
    assert [line.split(": ")[0].rsplit("/", 1)[1] + " " + line.rsplit(" ", 1)[1] for line in findings(path)] == [
        "model.py:9:5 [CL201]", "model.py:13:5 [CL201]", "model.py:23:106 [CL201]", "model.py:23:183 [CL411]"]
    result = check("--add-ignore", str(path))
    assert (result.exit_code, result.stderr) == (0, "cudalint: added 3 suppressions in 1 file\n")
    text = path.read_text()
    ast.parse(text)  # still Python
    assert findings(path) == []
    lines = text.splitlines()
    assert lines[8] == "    x[i] = 0.0f; // cudalint: ignore[CL201]"
    assert lines[12] == "    x[i] =  /* cudalint: ignore[CL201] */\\\\"  # before the continuation
    assert lines[22].endswith(" return y; } /* cudalint: ignore[CL201, CL411] */\\n\"")
    # each comment is part of the CUDA source the extension compiles, not of the Python around it
    cuda = [unit.text for unit in load_document(str(path), text).units if unit.language == "cuda"]
    assert len(cuda) == 2 and all("cudalint: ignore" in unit for unit in cuda)


def test_an_existing_suppression_on_the_line_is_extended(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    kernel = ("__global__ void k(float* x) { __shared__ float t[20000]; "
              "int i = blockIdx.x * blockDim.x + threadIdx.x; t[threadIdx.x] = x[i]; }")
    path.write_text(kernel + "  // cudalint: ignore[CL301] reviewed\n")
    assert [line.rsplit(" ", 1)[-1] for line in findings(path)] == ["[CL201]"]
    result = check("--add-ignore", str(path))
    assert (result.exit_code, result.stderr) == (0, "cudalint: added 1 suppression in 1 file\n")
    assert path.read_text() == kernel + "  // cudalint: ignore[CL301, CL201] reviewed\n"
    assert findings(path) == []


def test_python_level_findings_get_a_hash_comment(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("import torch\nx = (1,\n")
    assert [line.rsplit(" ", 1)[-1] for line in findings(path)] == ["[CL400]"]
    assert check("--add-ignore", str(path)).exit_code == 0
    assert findings(path) == []
    assert "# cudalint: ignore[CL400]" in path.read_text()


def test_files_without_findings_are_not_touched(tmp_path: Path) -> None:
    clean = tmp_path / "clean.cu"
    shutil.copy(REPO / "tests" / "fixtures" / "cli" / "clean.cu", clean)
    before = clean.stat().st_mtime_ns, clean.read_bytes()
    result = check("--add-ignore", str(tmp_path))
    assert (result.exit_code, result.stderr) == (0, "cudalint: added 0 suppressions in 0 files\n")
    assert (clean.stat().st_mtime_ns, clean.read_bytes()) == before


def test_a_line_ending_inside_a_python_string_is_left_and_said(tmp_path: Path) -> None:
    path = tmp_path / "doc.py"
    path.write_text('text = """\nnot cuda\n"""\nx = (\n')  # CL400 on line 4; line 1 ends in a string
    document = load_document(str(path), path.read_text())
    from cudalint.findings import Finding, Location, Severity

    finding = Finding("CL400", "invalid-solution", Severity.ERROR, Location(str(path), 1, 8, 1, 9), "m")
    assert add_suppressions(document, [finding]).unplaced == [1]


def test_corpus_files_recheck_clean_and_still_parse(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    picked = sorted((REPO / "corpus").rglob("*.py"))[:14] + sorted((REPO / "corpus").rglob("*.cu"))[:10]
    for source in picked:
        target = corpus / source.relative_to(REPO / "corpus")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
    parses = {p: _parses(p.read_text()) for p in corpus.rglob("*.py")}
    assert check("-q", str(corpus)).exit_code == 1
    result = check("--add-ignore", str(corpus))
    assert result.exit_code == 0, result.stderr
    unplaced = [line for line in result.stderr.splitlines() if line.startswith("cudalint: warning: ")]
    assert [line for line in findings(corpus)
            if not any(line.startswith(w.split(": ")[2] + ":") for w in unplaced)] == []  # PATH:LINE:
    assert {p: _parses(p.read_text()) for p in parses} == parses


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize("args, message", [
    (["--add-ignore", "--fix"], "--add-ignore cannot be used with --fix, --fix-only or --diff"),
    (["--reason", "x"], "--reason is the text of the comments --add-ignore adds"),
    (["--add-ignore", "--reason", "a */ b"], "the --reason must be one line without `*/`"),
])
def test_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    path = tmp_path / "k.cu"
    path.write_text(UNGUARDED_CU)
    result = check(*args, str(path))
    assert result.exit_code == 2 and message in result.stderr
    assert path.read_text() == UNGUARDED_CU
