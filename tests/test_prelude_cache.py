"""The precompiled preludes are cached across processes, and a bad cache never changes a lint's findings."""

import os
import time
from pathlib import Path

import pytest

import cudalint
from cudalint.frontend import parse

SOURCE = "__global__ void k(const float* in, float* a, int n) { a[blockIdx.x * blockDim.x + threadIdx.x] = in[0]; }\n"
PY_SOURCE = '''
import torch
from torch.utils.cpp_extension import load_inline
cuda = """
#include <torch/extension.h>
__global__ void k(const float* in, float* a, int n) { a[blockIdx.x * blockDim.x + threadIdx.x] = in[0]; }
torch::Tensor run(torch::Tensor a) {
    auto out = torch::empty_like(a);
    k<<<(a.numel() + 255) / 256, 256>>>(a.data_ptr<float>(), out.data_ptr<float>(), a.numel());
    return out;
}
"""
# the include makes the C++ unit one that is parsed (not read from the CUDA unit's definitions)
mod = load_inline(name="m", cpp_sources="#include <torch/extension.h>\\ntorch::Tensor run(torch::Tensor a);",
                  cuda_sources=cuda, functions=["run"])


class ModelNew(torch.nn.Module):
    def forward(self, a):
        return mod.run(a)
'''
CUDA_FILE = ("cuda", parse._PRELUDES[("cuda", "file")])


@pytest.fixture
def fresh_workspace(monkeypatch, tmp_path):
    """A new workspace (as in a new process) whose cache directory is `tmp_path`/cache."""
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "cache"))

    def make() -> parse._Workspace:
        workspace = parse._Workspace()
        monkeypatch.setattr(parse, "_workspace", workspace)
        return workspace

    return make


def _codes(text: str = SOURCE, filename: str = "a.cu") -> list[str]:
    return sorted(f.code for f in cudalint.lint_source(text, filename=filename))


def test_a_second_process_reuses_the_cached_preludes(fresh_workspace, tmp_path) -> None:
    first = fresh_workspace()
    assert _codes() == ["CL201"]
    assert _codes(PY_SOURCE, "m.py") == ["CL201"]
    built = {path: os.stat(path).st_mtime_ns for path in first._pch.values()}
    assert len(built) == 3 and all(path.startswith(str(tmp_path / "cache")) for path in built)

    second = fresh_workspace()
    assert _codes() == ["CL201"]
    assert _codes(PY_SOURCE, "m.py") == ["CL201"]
    assert {path: os.stat(path).st_mtime_ns for path in second._pch.values()} == built  # loaded, not rebuilt


def test_a_corrupt_cached_prelude_is_rebuilt(fresh_workspace) -> None:
    first = fresh_workspace()
    path = first.prelude(*CUDA_FILE)
    with open(path, "r+b") as handle:  # an interrupted copy, a disk error: clang refuses the file
        handle.truncate(1000)

    second = fresh_workspace()
    assert _codes() == ["CL201"]
    assert second.prelude(*CUDA_FILE) == path and os.path.getsize(path) > 1000


def test_a_cached_prelude_accepted_once_is_tried_again_only_when_it_changes(fresh_workspace, monkeypatch) -> None:
    """Trying a cached prelude costs a parse: a mark beside it says it was accepted, while it stays the same."""
    path = fresh_workspace().prelude(*CUDA_FILE)  # built, and marked
    tried = []
    loads = parse._Workspace._loads
    monkeypatch.setattr(parse._Workspace, "_loads",
                        lambda self, language, prelude: tried.append(prelude) or loads(self, language, prelude))
    assert fresh_workspace().prelude(*CUDA_FILE) == path and tried == []
    os.utime(path, ns=(1, 1))  # changed since it was marked (restored from a copy, edited)
    assert fresh_workspace().prelude(*CUDA_FILE) == path and tried == [path]
    assert fresh_workspace().prelude(*CUDA_FILE) == path and tried == [path]


def test_a_changed_cached_header_is_not_used(fresh_workspace, tmp_path) -> None:
    first = fresh_workspace()
    first.prelude(*CUDA_FILE)
    with open(os.path.join(first.include_dir(), "cuda_runtime.h"), "a", encoding="utf-8") as handle:
        handle.write("\n#define threadIdx 0\n")  # edited by hand

    second = fresh_workspace()
    assert _codes() == ["CL201"]
    assert not second._persistent and not second.prelude(*CUDA_FILE).startswith(str(tmp_path / "cache"))


def test_an_unwritable_cache_falls_back_to_a_private_directory(fresh_workspace, monkeypatch, tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(blocker / "cache"))
    workspace = parse._Workspace()
    monkeypatch.setattr(parse, "_workspace", workspace)
    assert _codes() == ["CL201"]
    assert not workspace._persistent and not workspace.prelude(*CUDA_FILE).startswith(str(blocker))


def test_caching_can_be_turned_off(fresh_workspace, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("CUDALINT_NO_CACHE", "1")
    workspace = fresh_workspace()
    assert _codes() == ["CL201"]
    assert not workspace._persistent and not (tmp_path / "cache").exists()


def test_preludes_no_process_used_for_30_days_are_pruned(fresh_workspace, tmp_path) -> None:
    root = tmp_path / "cache"
    made = fresh_workspace()
    assert _codes() == ["CL201"]
    tag = (Path(made._directory) / "CACHEDIR.TAG").read_text()
    assert tag.startswith("Signature: 8a477f597d28d172789f06886806bc55\n") and "cudalint" in tag
    stale, recent, foreign, foreign_results = (root / "preludes-0ld", root / "preludes-rec3nt",
                                               root / "preludes-notours", root / "results-notours")
    for folder in (stale, recent, foreign, foreign_results):
        folder.mkdir(parents=True)
        (folder / "c++-0.pch").write_bytes(b"x")
    for folder in (stale, recent):  # what cudalint created holds its marker
        (folder / "CACHEDIR.TAG").write_text(tag)
    (foreign / "CACHEDIR.TAG").write_text(tag.replace("cudalint", "another tool"))
    month_ago = time.time() - 31 * 24 * 3600
    for old in (stale, foreign, foreign_results):
        os.utime(old, (month_ago, month_ago))
    unrelated = root / "notes.txt"
    unrelated.write_text("not ours")
    os.utime(unrelated, (month_ago, month_ago))

    workspace = fresh_workspace()
    assert _codes() == ["CL201"]
    assert not stale.exists() and recent.exists() and unrelated.exists()
    assert foreign.exists() and foreign_results.exists()  # old and named like ours, but not made by cudalint
    assert time.time() - os.stat(workspace._directory).st_mtime < 60  # marked as used
