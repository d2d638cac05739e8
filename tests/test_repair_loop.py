"""The repair loop and `cudalint repair`, driving the model client against a local OpenAI-compatible
server (tests/openai_stub_server.py) with scripted answers; and the extraction of code from answers."""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import cudalint.repairing.loop as loop_module
from cudalint.findings import Edit, Finding, Fix, Location, Severity
from cudalint.repairing.cli import register
from cudalint.repairing.client import ChatClient, ClientSettings, ModelAPIError, ServerUnreachable
from cudalint.repairing.extract import extract_code, merge_cuda, python_string_literal, top_level_items
from cudalint.repairing.loop import OutputPlan, repair_file

sys.path.insert(0, str(Path(__file__).parent))
from openai_stub_server import Reply, StubServer  # noqa: E402

FIXTURE = Path(__file__).parent / "fixtures" / "repair" / "sigmoid_block2048.py"
KEY = "sk-test-0123456789abcdef-DO-NOT-LEAK"
ORIGINAL = FIXTURE.read_text(encoding="utf-8")
GOOD = ORIGINAL.replace("block_size = 2048", "block_size = 256")
_KERNEL_LINE = "    int idx = blockIdx.x * blockDim.x + threadIdx.x;\n"
# fixes the launch but stages through a 64 KB static array: CL302 gone, CL301 new (same number of errors)
NEW_FINDING = GOOD.replace(_KERNEL_LINE, "    __shared__ float staging[16384];\n" + _KERNEL_LINE, 1)
# keeps the bad launch and adds the array: two errors instead of one
WORSE = ORIGINAL.replace(_KERNEL_LINE, "    __shared__ float staging[16384];\n" + _KERNEL_LINE, 1)


def fenced(code: str, language: str = "python") -> str:
    return f"I reduced the block size to 256 threads.\n\n```{language}\n{code}```\n"


def app() -> typer.Typer:
    application = typer.Typer()
    register(application)

    @application.callback()
    def _root() -> None:
        """cudalint"""

    return application


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CUDALINT_MODEL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    (tmp_path / "sigmoid.py").write_text(ORIGINAL, encoding="utf-8")
    return tmp_path


def run(server: StubServer | None, *args: str, key: str | None = KEY, **env: str | None):
    environment: dict[str, str | None] = {"OPENAI_API_KEY": key, "CUDALINT_MODEL": None,
                                          "OPENAI_BASE_URL": server.base_url if server else None}
    environment.update(env)
    return CliRunner().invoke(app(), list(args), env=environment)


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def assert_key_nowhere(root: Path, result) -> None:
    assert KEY not in result.output
    for name, data in files_under(root).items():
        assert KEY.encode() not in data, name
        assert KEY[:12].encode() not in data, name


def transcript(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# ----------------------------------------------------------------------------------------- good fixes


def test_good_fix_is_written_under_out_with_a_transcript(work: Path) -> None:
    with StubServer([Reply(content=fenced(GOOD), prompt_tokens=1234, completion_tokens=567)]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--out", "out")
        prompt = run(server, "prompt", "sigmoid.py", "--json")
    assert result.exit_code == 0, result.output
    assert (work / "out" / "sigmoid.py").read_text() == GOOD
    assert (work / "sigmoid.py").read_text() == ORIGINAL
    assert "  round 1: whole file; findings 1 -> 0 (resolved: CL302); tokens: 1234 prompt + 567 completion" \
        in result.stdout
    assert "sigmoid.py: clean (result of round 1); written to out/sigmoid.py" in result.stdout
    assert "1 file: 1 clean; tokens: 1234 prompt + 567 completion" in result.stdout

    request = server.requests[0]
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["model"] == "stub-model"
    assert request.body["temperature"] == 0.3 and request.body["max_tokens"] == 4096
    # `cudalint prompt --json` prints exactly what `repair` sends in round 1
    assert json.loads(prompt.stdout)["messages"] == request.messages

    records = transcript(work / "out" / "sigmoid.py.repair.jsonl")
    assert [r["type"] for r in records] == ["run", "prompt", "prompt", "answer", "round", "result"]
    assert records[0]["model"] == "stub-model" and records[0]["api_key_env"] == "OPENAI_API_KEY"
    assert [r["content"] for r in records if r["type"] == "prompt"] == [m["content"] for m in request.messages]
    assert records[3]["content"] == fenced(GOOD)
    assert records[3]["prompt_tokens"] == 1234 and records[3]["finish_reason"] == "stop"
    assert records[4]["findings_before"][0]["code"] == "CL302" and records[4]["findings_after"] == []
    assert records[5] == {**records[5], "status": "clean", "result_round": 1, "written": "out/sigmoid.py"}
    assert_key_nowhere(work, result)


def test_model_from_cudalint_model_and_key_from_another_variable(work: Path) -> None:
    with StubServer([Reply(content=fenced(GOOD))]) as server:
        result = run(server, "repair", "sigmoid.py", "--api-key-env", "MY_KEY", "--temperature", "0",
                     "--max-tokens", "100", key=None, MY_KEY=KEY, CUDALINT_MODEL="env-model")
    assert result.exit_code == 0, result.output
    assert server.requests[0].body["model"] == "env-model"
    assert server.requests[0].body["temperature"] == 0 and server.requests[0].body["max_tokens"] == 100
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    # default output: next to the input
    assert (work / "sigmoid.repaired.py").read_text() == GOOD
    assert (work / "sigmoid.py.repair.jsonl").exists()
    assert_key_nowhere(work, result)


def test_kernel_only_answer_is_merged_into_the_cuda_sources_string(work: Path) -> None:
    start = GOOD.index("torch::Tensor sigmoid_cuda(")
    host_function = GOOD[start:GOOD.index("}\n", start) + 2]
    with StubServer([Reply(content=fenced(host_function, "cuda"))]) as server:
        result = run(server, "repair", "sigmoid.py", "-m", "stub-model", "--out", "out")
    assert result.exit_code == 0, result.output
    assert "round 1: function sigmoid_cuda only, merged into the cuda_sources string; findings 1 -> 0" in result.stdout
    assert (work / "out" / "sigmoid.py").read_text() == GOOD


# ------------------------------------------------------------------------------ answers that fall short


def test_fix_that_brings_a_new_finding_gets_a_followup_naming_it(work: Path) -> None:
    with StubServer([Reply(content=fenced(NEW_FINDING)), Reply(content=fenced(GOOD))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--out", "out")
    assert result.exit_code == 0, result.output
    assert "round 1: whole file; findings 1 -> 1 (resolved: CL302; new: CL301)" in result.stdout
    assert "round 2: whole file; findings 1 -> 0 (resolved: CL301)" in result.stdout
    assert "clean (result of round 2)" in result.stdout
    assert (work / "out" / "sigmoid.py").read_text() == GOOD
    second = server.requests[1].messages
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"] == fenced(NEW_FINDING)
    followup = second[3]["content"]
    assert "probably introduced by your change: CL301" in followup
    assert "Resolved since the version before: CL302" in followup
    assert "### 1. CL301 shared-memory-oversize (error) at line 10" in followup
    records = transcript(work / "out" / "sigmoid.py.repair.jsonl")
    assert [(r["type"], r.get("round")) for r in records if r["type"] in ("prompt", "answer")] == [
        ("prompt", 1), ("prompt", 1), ("answer", 1), ("prompt", 2), ("answer", 2)]


@pytest.mark.parametrize("answer, after", [(NEW_FINDING, "findings 1 -> 1"), (WORSE, "findings 1 -> 2")])
def test_result_no_better_than_the_input_is_not_written(work: Path, answer: str, after: str) -> None:
    with StubServer([Reply(content=fenced(answer))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--rounds", "1", "--out", "out")
    assert result.exit_code == 1, result.output
    assert f"round 1: whole file; {after}" in result.stdout
    assert ("sigmoid.py: not improved; nothing written: no answer lints better than the input (fewer error "
            "findings, or as many and fewer warnings)") in result.stdout
    assert not (work / "out" / "sigmoid.py").exists()
    assert (work / "sigmoid.py").read_text() == ORIGINAL
    assert transcript(work / "out" / "sigmoid.py.repair.jsonl")[-1]["written"] is None


def test_prose_without_code_is_not_used_and_followed_up(work: Path) -> None:
    prose = "You should reduce the block size to 256 threads and recompute the grid."
    with StubServer([Reply(content=prose), Reply(content=fenced(GOOD))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--out", "out")
    assert result.exit_code == 0, result.output
    assert "round 1: answer not used (no code): it contains no code block; tokens: 100 prompt + 50 completion" \
        in result.stdout
    followup = server.requests[1].messages[3]["content"]
    assert followup.startswith("Your previous answer was not used: it contains no code block.")
    assert "## The file as it stands now\n\n```python\n" + ORIGINAL.rstrip("\n") in followup
    assert (work / "out" / "sigmoid.py").read_text() == GOOD


def test_token_counts_missing_from_the_server_are_reported_as_missing(work: Path) -> None:
    with StubServer([Reply(content=fenced(GOOD), prompt_tokens=None, completion_tokens=None)]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--out", "out")
    assert result.exit_code == 0, result.output
    assert "findings 1 -> 0 (resolved: CL302); tokens: not reported by the server" in result.stdout
    assert "tokens: 0 prompt + 0 completion (the server did not report all token counts)" in result.stdout


def test_only_prose_leaves_nothing_written(work: Path) -> None:
    with StubServer([Reply(content="Use fewer threads.")]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--rounds", "2")
    assert result.exit_code == 1
    assert len(server.requests) == 2
    assert "sigmoid.py: not improved; nothing written: no answer held usable code" in result.stdout
    assert sorted(files_under(work)) == ["sigmoid.py", "sigmoid.py.repair.jsonl"]


def test_truncated_answer_is_rejected(work: Path) -> None:
    cut = "Here is the file:\n```python\n" + GOOD[:300]
    with StubServer([Reply(content=cut, finish_reason="length"), Reply(content=fenced(GOOD))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--out", "out")
    assert result.exit_code == 0, result.output
    assert 'round 1: answer not used (truncated): it reached the token limit (finish_reason "length")' in result.stdout
    assert "Keep the explanation short so that the whole file fits." in server.requests[1].messages[3]["content"]
    assert (work / "out" / "sigmoid.py").read_text() == GOOD


def test_refusal_stops_the_file_and_writes_nothing(work: Path) -> None:
    with StubServer([Reply(content=None, refusal="I can't help with that.")]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model")
    assert result.exit_code == 1, result.output
    assert "round 1: the model refused: I can't help with that." in result.stdout
    assert len(server.requests) == 1
    assert not (work / "sigmoid.repaired.py").exists()


# ------------------------------------------------------------------------------------------ HTTP errors


def test_http_429_then_success_is_retried(work: Path) -> None:
    script = [Reply.error(429, "slow down", headers={"Retry-After": "0"}), Reply(content=fenced(GOOD))]
    with StubServer(script) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--out", "out")
    assert result.exit_code == 0, result.output
    assert len(server.requests) == 2
    assert "(after 1 retry: HTTP 429, retried after 0.00 s)" in result.stdout
    assert transcript(work / "out" / "sigmoid.py.repair.jsonl")[3]["attempts"] == 2
    assert (work / "out" / "sigmoid.py").read_text() == GOOD


def test_http_500_stops_the_run_and_writes_no_result(work: Path) -> None:
    (work / "second.py").write_text(ORIGINAL)
    with StubServer([Reply.error(500, "upstream exploded", headers={"Retry-After": "0"})]) as server:
        result = run(server, "repair", "sigmoid.py", "second.py", "--llm", "stub-model", "--out", "out")
    assert result.exit_code == 2
    assert len(server.requests) == 4  # one attempt and three retries, for the first file only
    assert "HTTP 500, server error after 4 attempts: upstream exploded" in result.stdout
    assert "stopping: 1 file not processed" in result.stderr
    assert not (work / "out" / "sigmoid.py").exists() and not (work / "out" / "second.py").exists()
    assert (work / "sigmoid.py").read_text() == ORIGINAL
    records = transcript(work / "out" / "sigmoid.py.repair.jsonl")
    assert [r["type"] for r in records] == ["run", "prompt", "prompt", "error", "result"]
    assert_key_nowhere(work, result)


def test_key_echoed_by_the_server_is_redacted(work: Path) -> None:
    with StubServer([Reply.error(401, f"Incorrect API key provided: {KEY}")]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model")
    assert result.exit_code == 2
    assert "HTTP 401, the key in OPENAI_API_KEY was not accepted: Incorrect API key provided: [redacted]" \
        in result.stdout
    assert_key_nowhere(work, result)


def test_missing_key_is_a_clear_error_and_nothing_is_sent(work: Path) -> None:
    with StubServer([Reply(content=fenced(GOOD))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", key=None)
    assert result.exit_code == 2
    assert "the environment variable OPENAI_API_KEY is not set" in result.stderr
    assert server.requests == []
    assert sorted(files_under(work)) == ["sigmoid.py"]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_server_is_a_clear_fatal_error(work: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    client = ChatClient(ClientSettings("m", base_url=url, retries=1, backoff=0.01), environ={"OPENAI_API_KEY": KEY})
    with pytest.raises(ServerUnreachable, match=r"cannot connect \(2 attempts\)"):
        client.complete([{"role": "user", "content": "hi"}])
    outcome = repair_file("sigmoid.py", ORIGINAL, client)
    assert outcome.fatal and "cannot connect" in outcome.error
    assert outcome.status == "not improved" and outcome.written is None
    assert outcome.not_written == "the model gave no answer"
    assert not (work / "sigmoid.repaired.py").exists()


def test_back_off_doubles_between_retries() -> None:
    waits: list[float] = []
    with StubServer([Reply.error(503), Reply.error(429), Reply(content="ok")]) as server:
        client = ChatClient(ClientSettings("m", base_url=server.base_url, backoff=0.5),
                            environ={"OPENAI_API_KEY": KEY}, sleep=waits.append)
        completion = client.complete([{"role": "user", "content": "hi"}])
    assert completion.text == "ok" and completion.attempts == 3
    assert 0.5 <= waits[0] <= 0.55 and 1.0 <= waits[1] <= 1.1
    assert [n.split(",")[0] for n in completion.retry_notes] == ["HTTP 503", "HTTP 429"]


def test_client_errors_that_retrying_cannot_fix_are_not_retried() -> None:
    with StubServer([Reply.error(400, "context too long")]) as server:
        client = ChatClient(ClientSettings("m", base_url=server.base_url, backoff=0.01), environ={"OPENAI_API_KEY": KEY})
        with pytest.raises(ModelAPIError, match="HTTP 400: context too long") as error:
            client.complete([{"role": "user", "content": "hi"}])
    assert len(server.requests) == 1 and not error.value.fatal


# -------------------------------------------------------------------------------------- write and diff


def test_write_replaces_the_input_atomically(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = work / "sigmoid.py"
    target.chmod(0o640)
    replaced: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(source, destination):
        # the input is whole until the moment it is replaced by a complete temporary file beside it
        assert Path(destination).read_text() == ORIGINAL
        assert Path(source).read_text() == GOOD and Path(source).parent == Path(destination).resolve().parent
        replaced.append((str(source), str(destination)))
        return real_replace(source, destination)

    monkeypatch.setattr(os, "replace", spy)
    with StubServer([Reply(content=fenced(GOOD))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--write")
    assert result.exit_code == 0, result.output
    assert "input replaced: sigmoid.py" in result.stdout
    assert [Path(d).name for _, d in replaced] == ["sigmoid.py"]
    assert target.read_text() == GOOD
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(files_under(work)) == ["sigmoid.py", "sigmoid.py.repair.jsonl"]  # no temporary file left


def test_diff_writes_nothing(work: Path) -> None:
    before = files_under(work)
    with StubServer([Reply(content=fenced(GOOD))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--diff")
    assert result.exit_code == 0, result.output
    assert files_under(work) == before
    assert result.stdout.startswith("--- a/sigmoid.py\n+++ b/sigmoid.py\n")
    assert "-    const int block_size = 2048;\n+    const int block_size = 256;\n" in result.stdout
    assert "diff on stdout, nothing written" in result.stderr and "transcript" not in result.stderr


@pytest.mark.parametrize("args, message", [
    (["--diff", "--write"], "--diff writes nothing"),
    (["--diff", "--out", "o"], "--diff writes nothing"),
    (["--write", "--out", "o"], "--write replaces the inputs"),
    (["--out", "."], "would overwrite the input"),
])
def test_conflicting_output_options_are_usage_errors(work: Path, args: list[str], message: str) -> None:
    result = run(None, "repair", "sigmoid.py", "--llm", "m", *args)
    assert result.exit_code == 2 and message in result.stderr
    assert sorted(files_under(work)) == ["sigmoid.py"]


def test_output_paths(work: Path) -> None:
    assert OutputPlan().output_path("sub/k.cu") == "sub/k.repaired.cu"
    assert OutputPlan().transcript_path("sub/k.cu") == "sub/k.cu.repair.jsonl"
    out = OutputPlan(out_dir="out")
    assert out.output_path("sub/k.cu") == "out/sub/k.cu"
    assert out.transcript_path("sub/k.cu") == "out/sub/k.cu.repair.jsonl"
    assert out.output_path(str(work.parent / "elsewhere" / "k.cu")) == "out/k.cu"  # outside the working directory
    assert OutputPlan(write=True).output_path("k.cu") == "k.cu"
    assert OutputPlan(diff=True).output_path("k.cu") is None and OutputPlan(diff=True).transcript_path("k.cu") is None


def test_already_clean_file_is_not_sent(work: Path) -> None:
    (work / "sigmoid.py").write_text(GOOD)
    with StubServer([Reply(content="unused")]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model")
    assert result.exit_code == 0
    assert "sigmoid.py: nothing to repair (no warning or error findings)" in result.stdout
    assert server.requests == [] and sorted(files_under(work)) == ["sigmoid.py"]


def test_stub_server_and_repair_in_subprocesses(work: Path) -> None:
    import subprocess

    from openai_stub_server import dump_script

    dump_script([Reply(content=fenced(GOOD))], str(work / "script.json"))
    server = subprocess.Popen([sys.executable, str(Path(__file__).parent / "openai_stub_server.py"), "script.json"],
                              stdout=subprocess.PIPE, text=True)
    try:
        base_url = server.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:")
        program = ("import sys, typer; from cudalint.repairing.cli import register\n"
                   "app = typer.Typer(); register(app)\n"
                   "app.callback()(lambda: None)\n"
                   "app(sys.argv[1:])\n")
        env = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": base_url}
        env.pop("CUDALINT_MODEL", None)
        done = subprocess.run([sys.executable, "-c", program, "repair", "sigmoid.py", "--llm", "stub-model",
                               "--write"], env=env, capture_output=True, text=True, timeout=120)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (work / "sigmoid.py").read_text() == GOOD
    assert KEY not in done.stdout + done.stderr


# -------------------------------------------------------------------------------- built-in fixes only


def test_without_a_model_only_built_in_fixes_run_and_it_says_so(work: Path) -> None:
    with StubServer([Reply(content=fenced(GOOD))]) as server:
        result = run(server, "repair", "sigmoid.py")  # a key is set, but no model is configured
    assert result.exit_code == 1
    assert result.stdout.startswith("no model configured (--model MODEL or $CUDALINT_MODEL): applying built-in "
                                    "fixes only\n")
    assert "sigmoid.py: not improved; nothing written: no finding has a built-in fix" in result.stdout
    assert "CL302 invalid-launch-config" in result.stdout and "[no built-in fix]" in result.stdout
    assert server.requests == [] and sorted(files_under(work)) == ["sigmoid.py"]


def _fixable_lint(text: str, path: str) -> list[Finding]:
    """A stand-in engine: CL103 on `__shfl_down(`, with the `_sync` fix."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        column = line.find("__shfl_down(") + 1
        if column:
            edit = Edit(number, column, number, column + len("__shfl_down("), "__shfl_down_sync(0xffffffff, ")
            found.append(Finding("CL103", "warp-sync-misuse", Severity.ERROR,
                                 Location(path, number, column, number, column + 11), "legacy shuffle", (),
                                 Fix("use __shfl_down_sync", (edit,))))
    return found


@pytest.mark.parametrize("args", [["--out", "out"], ["--write"], ["--diff"]])
def test_built_in_fixes_are_written_as_asked(work: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    monkeypatch.setattr(loop_module, "default_linter", lambda options=None: _fixable_lint)
    kernel = work / "reduce.cu"
    kernel.write_text("v += __shfl_down(v, 16);\n")
    result = run(None, "repair", "reduce.cu", *args)
    assert result.exit_code == 0, result.output
    fixed = "v += __shfl_down_sync(0xffffffff, v, 16);\n"
    report = result.stderr if "--diff" in args else result.stdout
    assert "  fixed: CL103 at 1:6: use __shfl_down_sync" in report
    if "--diff" in args:
        assert kernel.read_text() == "v += __shfl_down(v, 16);\n"
        assert "+" + fixed in result.stdout and not (work / "out").exists()
    elif "--write" in args:
        assert kernel.read_text() == fixed and "reduce.cu: clean; input replaced: reduce.cu" in report
    else:
        assert (work / "out" / "reduce.cu").read_text() == fixed
        assert kernel.read_text() == "v += __shfl_down(v, 16);\n"
        assert "reduce.cu: clean; written to out/reduce.cu" in report


# ------------------------------------------------------------------------------------------ extraction


CU = """#include <cuda_runtime.h>
#define BLOCK 1024

__global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] *= 2.0f;
}

void launch(float *x, int n) {
    scale<<<n / BLOCK, BLOCK>>>(x, n);
}
"""
CU_FIXED_KERNEL = """__global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
"""


def test_whole_file_answer_in_a_cuda_fence() -> None:
    whole = CU.replace("x[i] *= 2.0f;", "if (i < n) x[i] *= 2.0f;")
    extraction = extract_code(f"Fixed.\n```cuda\n{whole}```\nDone.", "stop", CU, "k.cu")
    assert extraction.ok and extraction.form == "whole file" and extraction.text == whole


@pytest.mark.parametrize("fence", ["```cpp", "```c++", "```", "~~~cuda"])
def test_kernel_only_answer_replaces_the_function_of_the_same_name(fence: str) -> None:
    close = fence[:3]
    extraction = extract_code(f"{fence}\n{CU_FIXED_KERNEL}{close}\n", "stop", CU, "k.cu")
    assert extraction.ok and extraction.form == "function scale only, merged into the file"
    assert extraction.text == CU.replace("    x[i] *= 2.0f;", "    if (i < n) x[i] *= 2.0f;")


def test_kernel_only_answer_brings_its_helpers_defines_and_includes() -> None:
    answer = ("#include <cuda_fp16.h>\n#define BLOCK 256\n__device__ float twice(float v) { return 2.0f * v; }\n"
              + CU_FIXED_KERNEL.replace("x[i] *= 2.0f", "x[i] = twice(x[i])"))
    merged = merge_cuda(CU, answer)
    assert merged.ok
    assert merged.text.startswith("#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#define BLOCK 256\n")
    assert "__device__ float twice(float v) { return 2.0f * v; }\n\n__global__ void scale(" in merged.text
    assert merged.text.endswith("void launch(float *x, int n) {\n    scale<<<n / BLOCK, BLOCK>>>(x, n);\n}\n")


def test_answer_replacing_none_of_the_functions_is_unusable() -> None:
    extraction = extract_code("```cuda\n__global__ void other(float *x) { x[0] = 1; }\n```", "stop", CU, "k.cu")
    assert extraction.status == "unusable" and "launch, scale" in extraction.reason


@pytest.mark.parametrize("answer, finish, status, reason", [
    ("Just lower the block size.", "stop", "no_code", "it contains no code block"),
    ("```cuda\n__global__ void scale(", "stop", "truncated", "it ends inside a code block that is never closed"),
    ("```cuda\n" + CU + "```", "length", "truncated", 'it reached the token limit (finish_reason "length")'),
    ("```bash\nnvcc k.cu\n```", "stop", "no_code", "it contains no CUDA code block (only bash)"),
])
def test_answers_without_usable_code(answer: str, finish: str, status: str, reason: str) -> None:
    extraction = extract_code(answer, finish, CU, "k.cu")
    assert (extraction.status, extraction.reason, extraction.text) == (status, reason, None)


def test_unfenced_whole_file_is_accepted_only_when_it_starts_like_code() -> None:
    assert extract_code(CU, "stop", CU, "k.cu").ok
    assert extract_code("Here it is:\n" + CU, "stop", CU, "k.cu").status == "no_code"


def test_python_block_without_the_load_inline_call_is_not_a_whole_file() -> None:
    extraction = extract_code("```python\nclass ModelNew:\n    pass\n```", "stop", ORIGINAL, "m.py")
    assert extraction.status == "unusable"
    assert extraction.reason == "the Python code block is not the complete file: it has no load_inline(...) call"


def test_cuda_answer_for_a_python_file_goes_into_the_cuda_string_with_escapes_kept() -> None:
    source = 'import torch\nsrc = """\n__global__ void k(float *x) { printf("a\\\\n"); }\n"""\nm = load_inline(name="m", cpp_sources="", cuda_sources=src)\n'
    answer = '```cuda\n__global__ void k(float *x) { printf("b\\n"); }\n```'
    extraction = extract_code(answer, "stop", source, "m.py")
    assert extraction.ok and extraction.form == "CUDA code only, put into the cuda_sources string"
    assert 'printf("b\\\\n");' in extraction.text  # the C escape stays an escape in the Python string
    namespace: dict = {}
    exec(extraction.text.split("m = load_inline")[0].replace("import torch\n", ""), namespace)  # noqa: S102
    assert namespace["src"] == '__global__ void k(float *x) { printf("b\\n"); }\n'


@pytest.mark.parametrize("value", ['a\\nb "x" """ y', "plain\n", 'ends with "', "back\\\\", "it's\n"])
@pytest.mark.parametrize("like", ['"""x"""', 'r"""x"""', "'x'", "r'x'", "'''x'''"])
def test_python_string_literal_round_trips(value: str, like: str) -> None:
    import ast

    assert ast.literal_eval(python_string_literal(value, like)) == value


def test_top_level_items_know_templates_attributes_and_structs() -> None:
    source = ('template <typename T, int N = 4>\n__global__ void __launch_bounds__(256) k(T *x) { x[0] = 0; }\n'
              'struct S { int a; } s;\nnamespace ns { void f() {} }\nextern "C" void g() {}\n'
              'static const int table[] = {1, 2};\nvoid h();\n')
    items = [(i.kind, i.name) for i in top_level_items(source)]
    assert items == [("function", "k"), ("block", None), ("block", None), ("function", "g"), ("block", None),
                     ("decl", None)]


# ---------------------------------------------------------------------------------- repair --verify


class ScriptedGpu:
    """A gpu_check: the reports each checked text gets, by a marker it contains (the GPU stage's stand-in)."""

    def __init__(self, verdicts: dict[str, list]) -> None:
        self.verdicts = verdicts
        self.checked: list[str] = []

    def __call__(self, path: str, text: str) -> list:
        self.checked.append(text)
        return next((list(reports) for marker, reports in self.verdicts.items() if marker in text), [])


def _client(server: StubServer) -> ChatClient:
    return ChatClient(ClientSettings(model="stub", base_url=server.base_url, api_key_env="CUDALINT_TEST_KEY",
                                     frequency_penalty=0.5, stop=("<END>",)))


def test_gpu_feedback_drives_the_second_round(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Round 1 lints clean but fails on the GPU; its mismatch goes into round 2's prompt; round 2 passes."""
    from cudalint.repairing.prompts import GpuReport

    monkeypatch.setenv("CUDALINT_TEST_KEY", KEY)
    wrong = GOOD.replace("__expf(-x[idx])", "__expf(x[idx])")
    assert wrong != GOOD
    mismatch = GpuReport("mismatch", "trial 1 (seed 42): output: 262087 of 262144 elements differ")
    gpu = ScriptedGpu({"__expf(x[idx])": [mismatch]})
    with StubServer([Reply(content=fenced(wrong)), Reply(content=fenced(GOOD))]) as server:
        outcome = repair_file("sigmoid.py", ORIGINAL, _client(server), rounds=3, gpu_check=gpu,
                              plan=OutputPlan(out_dir="out"))
    assert [r.outcome for r in outcome.rounds] == ["same", "clean"]  # one lint error traded for one GPU failure
    assert [r.gpu_checked for r in outcome.rounds] == [True, True]
    assert outcome.rounds[0].gpu_reports == [mismatch] and outcome.status == "clean"
    second_prompt = server.requests[1].messages[-1]["content"]
    assert "## Reports from building and running it on a GPU" in second_prompt
    assert "262087 of 262144 elements differ" in second_prompt
    assert server.requests[0].body["frequency_penalty"] == 0.5 and server.requests[0].body["stop"] == ["<END>"]
    assert (work / "out" / "sigmoid.py").read_text() == GOOD
    assert len(gpu.checked) == 2  # the original lints dirty: only the answers reach the GPU


def test_a_lint_clean_file_that_fails_on_the_gpu_is_repaired(work: Path, monkeypatch) -> None:
    from cudalint.repairing.prompts import SLOW, GpuReport

    monkeypatch.setenv("CUDALINT_TEST_KEY", KEY)
    slow = GpuReport(SLOW, "correct, but 0.62x the speed of the PyTorch reference")
    faster = GOOD.replace("block_size = 256", "block_size = 512")
    gpu = ScriptedGpu({"block_size = 256": [slow]})
    with StubServer([Reply(content=fenced(faster))]) as server:
        outcome = repair_file("sigmoid.py", GOOD, _client(server), rounds=2, gpu_check=gpu,
                              plan=OutputPlan(diff=True))
    first_prompt = server.requests[0].messages[-1]["content"]
    assert "passes cudalint's checks, but it failed when it was built and run on a GPU" in first_prompt
    assert "0.62x the speed of the PyTorch reference" in first_prompt and "## What cudalint found" not in first_prompt
    assert outcome.gpu_reports_before == [slow] and outcome.status == "clean" and outcome.result_text == faster
    # passing on the GPU as it is: nothing is sent
    with StubServer([Reply(content="unused")]) as server:
        outcome = repair_file("sigmoid.py", faster, _client(server), gpu_check=gpu)
    assert outcome.status == "already clean" and server.requests == []
    assert outcome.not_written == "nothing to repair: it passed on the GPU"


def test_an_answer_that_fails_on_the_gpu_never_beats_a_slow_correct_one(work: Path, monkeypatch) -> None:
    from cudalint.repairing.prompts import SLOW, GpuReport

    monkeypatch.setenv("CUDALINT_TEST_KEY", KEY)
    broken = GOOD.replace("block_size = 256", "block_size = 128")
    gpu = ScriptedGpu({"block_size = 256": [GpuReport(SLOW, "0.9x")],
                       "block_size = 128": [GpuReport("compile_error", "line 3: error")]})
    with StubServer([Reply(content=fenced(broken))]) as server:
        outcome = repair_file("sigmoid.py", GOOD, _client(server), rounds=1, gpu_check=gpu)
    assert outcome.status == "not improved" and outcome.result_round == 0
    assert "GPU failures" in outcome.not_written


def test_slow_record_becomes_a_performance_report() -> None:
    from cudalint.repairing.prompts import SLOW
    from cudalint.verify import results
    from cudalint.verify.runner import Candidate, new_record

    record = new_record(Candidate("/r/a.py", "/p/ref.py"))
    record.update(status="correct", passed=True, timing={
        "speedup": 0.8, "candidate": {"median_ms": 1.25, "trials": 100}, "reference": {"median_ms": 1.0}})
    assert results.gpu_reports(record) == []
    [report] = results.gpu_reports(record, min_speedup=1.0)
    assert report.kind == SLOW and "0.80x" in report.text and "1.25 ms against 1 ms" in report.text
    assert results.gpu_reports(record, min_speedup=0.5) == []


@pytest.mark.parametrize("args, message", [
    (["--verify", "--llm", "m"], "--verify needs the reference"),
    (["--ref", "ref.py", "--llm", "m"], "go with --verify"),
    (["--verify", "--ref", "missing.py", "--llm", "m"], "no such reference file"),
    (["--verify", "--ref", "sigmoid.py"], "give --model MODEL"),
])
def test_verify_option_usage_errors(work: Path, args: list[str], message: str) -> None:
    result = run(None, "repair", "sigmoid.py", *args)
    assert result.exit_code == 2 and message in result.output, result.output


def test_a_gpu_check_that_cannot_judge_stops_the_loop(work: Path, monkeypatch) -> None:
    """No GPU (or a failing reference) is nothing the model can repair: no prompt is sent about it."""
    from cudalint.repairing.loop import GpuCheckFailed

    monkeypatch.setenv("CUDALINT_TEST_KEY", KEY)

    def no_gpu(path: str, text: str) -> list:
        raise GpuCheckFailed("the GPU check could not judge the answer: no_gpu: no CUDA GPU is visible")

    with StubServer([Reply(content="unused")]) as server:
        outcome = repair_file("sigmoid.py", GOOD, _client(server), gpu_check=no_gpu)
    assert server.requests == [] and outcome.fatal and "no_gpu" in outcome.error
    with StubServer([Reply(content=fenced(GOOD))]) as server:
        outcome = repair_file("sigmoid.py", ORIGINAL, _client(server), rounds=3, gpu_check=no_gpu)
    assert len(server.requests) == 1 and [r.outcome for r in outcome.rounds] == ["error"]
    assert outcome.status == "not improved" and outcome.fatal


def test_repair_verify_from_the_command_line_without_a_gpu(work: Path, tmp_path: Path, monkeypatch) -> None:
    """With no GPU visible the GPU stage cannot judge: one line and exit 2 before any model call (the input
    has findings, so a model call would come first otherwise)."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    reference = tmp_path / "ref.py"
    reference.write_text("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                         "        return torch.sigmoid(x)\ndef get_inputs():\n    return [torch.randn(8)]\n"
                         "def get_init_inputs():\n    return []\n")
    with StubServer([Reply(content="unused")]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--verify", "--ref", str(reference))
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.startswith("cudalint: error: no CUDA GPU is visible") and result.stderr.count("\n") == 1
    assert server.requests == []


# fewer findings only because less of the file was seen: the input has two errors, each answer one
BROKEN_PYTHON = GOOD.replace("def forward(self, x):", "def forward(self, x)")
BROKEN_CUDA = GOOD.replace("out[idx] = 1.0f", "out[idx] = = 1.0f")


@pytest.mark.parametrize("answer, why", [
    (BROKEN_PYTHON, "its Python does not parse: expected ':' (line "),
    (BROKEN_CUDA, "its code does not compile: "),
], ids=["python-syntax-error", "cuda-compile-error"])
def test_an_answer_that_does_not_parse_never_replaces_the_input(work: Path, answer: str, why: str) -> None:
    (work / "sigmoid.py").write_text(WORSE)
    with StubServer([Reply(content=fenced(answer))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--rounds", "1", "--write")
    assert result.exit_code == 1, result.output
    assert f"round 1: answer not used (code not usable): {why}" in result.stdout
    assert "sigmoid.py: not improved; nothing written: no answer held usable code" in result.stdout
    assert (work / "sigmoid.py").read_text() == WORSE


def test_an_answer_that_does_not_parse_is_followed_up_with_why(work: Path) -> None:
    (work / "sigmoid.py").write_text(WORSE)
    with StubServer([Reply(content=fenced(BROKEN_PYTHON)), Reply(content=fenced(GOOD))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--rounds", "2", "--write")
    assert result.exit_code == 0, result.output
    assert "its Python does not parse" in server.requests[1].messages[-1]["content"]
    assert (work / "sigmoid.py").read_text() == GOOD


def test_a_placeholder_key_leaves_the_code_untouched(work: Path) -> None:
    """OPENAI_API_KEY=x, as for a local server: no "x" of the answer may be redacted."""
    with StubServer([Reply(content=fenced(GOOD))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--out", "out", key="x")
    assert result.exit_code == 0, result.output
    assert (work / "out" / "sigmoid.py").read_text() == GOOD
    assert transcript(work / "out" / "sigmoid.py.repair.jsonl")[3]["content"] == fenced(GOOD)


def test_the_key_in_the_models_code_is_kept_there_and_redacted_elsewhere(work: Path) -> None:
    import base64

    code = GOOD.replace("import torch\n", f"import torch\nTOKEN = '{base64.b64encode(KEY.encode()).decode()}'\n", 1)
    with StubServer([Reply(content=fenced(code))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--out", "out")
    assert result.exit_code == 0, result.output
    assert (work / "out" / "sigmoid.py").read_text() == code  # the code as the model wrote it
    log = (work / "out" / "sigmoid.py.repair.jsonl").read_text()
    assert base64.b64encode(KEY.encode()).decode()[:-4] not in log and "[redacted]" in log


@pytest.mark.parametrize("code", ["x = " + "1 + " * 200_000 + "1\n", "x = " + "-" * 200_000 + "1\n"],
                         ids=["deep-expression", "deep-unary"])
def test_an_answer_nested_too_deeply_for_python_is_not_used_and_no_traceback(work: Path, code: str) -> None:
    with StubServer([Reply(content=fenced(GOOD.replace("import torch\n", "import torch\n" + code, 1)))]) as server:
        result = run(server, "repair", "sigmoid.py", "--llm", "stub-model", "--rounds", "1", "--write")
    assert result.exit_code == 1 and result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    assert "sigmoid.py: not improved; nothing written" in result.stdout
    assert (work / "sigmoid.py").read_text() == ORIGINAL
