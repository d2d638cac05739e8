"""`cudalint repair --perf` and `cudalint prompt --perf`: the performance advisories (CL5xx, opt-in) are
selected and framed as the request for a faster kernel that stays correct; a plain repair of a file that
only has advisories has nothing to do. Driven through the local OpenAI-compatible stub server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openai_stub_server import Reply, StubServer
from test_repair_loop import app, fenced, run, transcript

from typer.testing import CliRunner

SLOW = """#include <cuda_runtime.h>

__global__ void row_sums(const float* a, float* out, int M, int K) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M) {
        float s = 0.0f;
        for (int k = 0; k < K; ++k) s += a[row * K + k];
        out[row] = s;
    }
}

void launch_row_sums(const float* a, float* out, int M, int K) {
    row_sums<<<(M + 255) / 256, 256>>>(a, out, M, K);
}
"""
FAST = """#include <cuda_runtime.h>

__global__ void row_sums(const float* a, float* out, int M, int K) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row < M) {
        float s = 0.0f;
        for (int k = lane; k < K; k += 32) s += a[row * K + k];
        for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffff, s, offset);
        if (lane == 0) out[row] = s;
    }
}

void launch_row_sums(const float* a, float* out, int M, int K) {
    row_sums<<<(M + 7) / 8, 256>>>(a, out, M, K);
}
"""


@pytest.fixture
def slow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("CUDALINT_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "rows.cu").write_text(SLOW, encoding="utf-8")
    return tmp_path


def test_perf_repair_asks_for_a_faster_kernel_and_writes_one_without_the_advisory(slow: Path) -> None:
    with StubServer([Reply(content=fenced(FAST, "cuda"))]) as server:
        result = run(server, "repair", "rows.cu", "--perf", "--llm", "stub-model", "--out", "out")
    assert result.exit_code == 0, result.output
    assert (slow / "out" / "rows.cu").read_text(encoding="utf-8") == FAST
    assert "rows.cu: 1 finding (1 warning) to repair" in result.output
    assert "CL501 uncoalesced-global-access" in result.output
    assert "rows.cu: clean (result of round 1)" in result.output
    system, user = server.requests[0].messages
    assert "You make GPU kernels faster" in system["content"]
    assert "Keep the precision of the inputs, the outputs and the accumulation" in system["content"]
    assert user["content"].startswith("cudalint found 1 performance problem in `rows.cu`. Make the kernel faster")
    assert "## Performance problems" in user["content"] and "## What cudalint found" not in user["content"]
    assert "### CL501 uncoalesced-global-access" in user["content"]  # the rule page's How to repair
    records = transcript(slow / "out" / "rows.cu.repair.jsonl")
    assert records[0]["perf"] is True and records[0]["findings"][0]["code"] == "CL501"
    assert records[-1]["status"] == "clean"


def test_perf_repair_that_does_not_remove_the_advisory_is_not_written(slow: Path) -> None:
    with StubServer([Reply(content=fenced(SLOW.replace("0.0f", "0.f"), "cuda"))]) as server:
        result = run(server, "repair", "rows.cu", "--perf", "--llm", "stub-model", "--rounds", "1", "--out", "out")
    assert result.exit_code == 1, result.output
    assert not (slow / "out" / "rows.cu").exists()
    assert "not improved" in result.output


def test_plain_repair_leaves_advisories_alone_and_perf_needs_a_model(slow: Path) -> None:
    with StubServer([Reply(content=fenced(FAST, "cuda"))]) as server:
        result = run(server, "repair", "rows.cu", "--llm", "stub-model")
        assert result.exit_code == 0 and "nothing to repair (no warning or error findings)" in result.output
        assert not server.requests
    result = run(None, "repair", "rows.cu", "--perf")
    assert result.exit_code == 2 and "--perf asks a model for a faster kernel" in result.output


def test_prompt_perf_prints_the_request_and_plain_prompt_has_none(slow: Path) -> None:
    plain = CliRunner().invoke(app(), ["prompt", "rows.cu"])
    assert plain.exit_code == 0 and plain.stdout == ""
    assert "nothing to repair (no warning or error findings)" in plain.stderr
    perf = CliRunner().invoke(app(), ["prompt", "rows.cu", "--perf", "--json"])
    payload = json.loads(perf.stdout)
    assert [f["code"] for f in payload["findings"]] == ["CL501"]
    assert "Make the kernel faster" in payload["messages"][1]["content"]


def test_selected_advisories_in_a_bug_repair_prompt_come_apart_as_advice(slow: Path) -> None:
    from cudalint.findings import Finding, Location, Severity
    from cudalint.repairing.prompts import render_repair

    bug = Finding("CL201", "unguarded-thread-index", Severity.ERROR, Location("rows.cu", 7, 40, 7, 54), "unguarded")
    advice = Finding("CL501", "uncoalesced-global-access", Severity.WARNING, Location("rows.cu", 7, 40, 7, 54),
                     "lanes K apart")
    text = render_repair("rows.cu", SLOW, [bug, advice], guidance=[])
    assert text.startswith("cudalint found 2 problems in `rows.cu`. Repair them.")
    assert text.index("## What cudalint found") < text.index("## Performance problems")
    assert "These are not bugs: address them after any problem above" in text
