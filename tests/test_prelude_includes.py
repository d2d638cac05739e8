"""A unit's leading `#include`s of heavy stub headers are precompiled with its prelude; the unit must read exactly
as if it were parsed with them in its text (the same diagnostics and the same code)."""

import pytest

from cudalint.frontend import parse
from cudalint.frontend.lower import lower_unit
from cudalint.sources import CudaUnit


def _headers(text: str, origin: str = "file", directory: str | None = None) -> tuple[str, ...]:
    return parse.prelude_headers(CudaUnit("k.cu", text, "cuda", origin), [directory] if directory else [])


def test_the_leading_run_of_stub_includes_joins_the_prelude_when_it_brings_a_heavy_header() -> None:
    text = "// a kernel\n/* two\n   lines */\n#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <mma.h>\n"
    assert _headers(text + "__global__ void k() {}\n") == ("cuda_runtime.h", "cuda_fp16.h", "mma.h")
    # torch for a .cu file: the build force-includes only cuda_runtime.h
    assert _headers("#include <torch/extension.h>\n") == ("cuda_runtime.h", "torch/extension.h")


@pytest.mark.parametrize("text", [
    "#include <cuda_runtime.h>\n#include <math.h>\n",  # light: parsed faster than a prelude is built
    "#define HALF 1\n#include <cuda_fp16.h>\n",  # a macro first could change how the header reads
    "__global__ void k() {}\n#include <cuda_fp16.h>\n",  # code first
    "#if 1\n#include <cuda_fp16.h>\n#endif\n",
    '#include "mine.h"\n#include <cuda_fp16.h>\n',  # not a stub: it and what follows stay in the unit
])
def test_no_prelude_of_its_own(text: str) -> None:
    assert _headers(text) == ("cuda_runtime.h",)


def test_headers_the_build_already_precompiles_do_not_make_a_new_prelude() -> None:
    base = parse._PRELUDES[("cuda", "load_inline")]
    assert _headers("#include <torch/extension.h>\n#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n",
                    "load_inline") == base
    assert _headers("#include <torch/extension.h>\n#include <vector>\n", "load_inline") == base


def test_a_file_next_to_the_unit_that_shadows_a_stub_header_keeps_the_headers_in_the_unit(tmp_path) -> None:
    assert _headers("#include <mma.h>\n", directory=str(tmp_path)) == ("cuda_runtime.h", "mma.h")
    (tmp_path / "cuda_fp16.h").write_text("#pragma once\n")
    # mma.h includes cuda_fp16.h, which the unit's build would find next to the file
    assert _headers("#include <mma.h>\n", directory=str(tmp_path)) == ("cuda_runtime.h",)
    assert _headers("#include <cuda_fp16.h>\n#include <mma.h>\n", directory=str(tmp_path)) == ("cuda_runtime.h",)


UNITS = [
    # half arithmetic and a wmma tile: the precompiled headers' declarations in use
    """#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;
__global__ void k(const half* a, const half* b, float* c, half* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) h[i] = __hadd(h[i], __float2half(1.0f));
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
""",
    # errors the build would report, in the unit and in its use of the headers
    """#include <cuda_fp16.h>
#include <vector>
__global__ void k(half* h, int n) {
    h[0] = __hadd(h[0]);
    undeclared = 1;
    std::vector<int> v = host_only();
}
""",
]


def _read(text: str) -> tuple:
    lowered = lower_unit(CudaUnit("k.cu", text, "cuda", "file"))
    diagnostics = [(d.severity, d.message, d.line, d.column) for d in lowered.diagnostics]
    code = [(type(n).__name__, n.span, getattr(n, "text", ""), getattr(n, "type", ""), getattr(n, "ref", None))
            for f in lowered.functions for n in f.nodes]
    return diagnostics, code


@pytest.mark.parametrize("text, errors", list(zip(UNITS, [0, 3])))
def test_a_unit_reads_the_same_with_its_headers_precompiled(text: str, errors: int, monkeypatch) -> None:
    assert len(_headers(text)) > 1  # the case under test: a prelude of its own
    precompiled = _read(text)
    assert sum(1 for d in precompiled[0] if d[0] == "error") == errors
    assert len(precompiled[1]) > 10
    monkeypatch.setattr(parse, "_HEAVY_LINES", 10 ** 9)  # the headers parsed from the unit's text instead
    assert _headers(text) == ("cuda_runtime.h",)
    assert _read(text) == precompiled


def test_past_the_limit_of_preludes_a_unit_reads_its_headers_from_its_text(monkeypatch, tmp_path) -> None:
    plain = "__global__ void k(float* a) { a[threadIdx.x] = 0.0f; }\n"
    texts = [plain, UNITS[0], "#include <torch/extension.h>\n" + plain]
    expected = [_read(text) for text in texts]
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "cache"))
    workspace = parse._Workspace()
    monkeypatch.setattr(parse, "_workspace", workspace)
    monkeypatch.setattr(workspace, "MAX_PRELUDES", 2)
    assert [_read(text) for text in texts] == expected
    # the build's prelude and the second unit's own; the third unit's own was not built: it used the first
    assert sorted(workspace._pch) == [("cuda", ("cuda_runtime.h",)), ("cuda", _headers(UNITS[0]))]
    assert len(_headers(texts[2])) == 2


def test_a_full_cache_gets_no_more_unit_preludes(monkeypatch, tmp_path) -> None:
    plain = "__global__ void k(float* a) { a[threadIdx.x] = 0.0f; }\n"
    expected = _read(UNITS[0])
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "cache"))
    workspace = parse._Workspace()
    monkeypatch.setattr(parse, "_workspace", workspace)
    monkeypatch.setattr(workspace, "MAX_CACHED", 1)
    _read(plain)  # the build's prelude: always made
    assert _read(UNITS[0]) == expected
    assert len(list((tmp_path / "cache").rglob("*.pch"))) == 1
    assert workspace._pch[("cuda", _headers(UNITS[0]))] is None
