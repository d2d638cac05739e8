"""CL412 untimed-stream: the C++ side moves forward's work off the stream the harness times.

In a host function (the IR is preprocessed, so token-pasted names such as `CAT(cudaStream, Create)` are
seen as what they expand to):
- a launch, `cublasSetStream` or `CUDAStreamGuard` on a stream the code created (`cudaStreamCreate*`,
  `at::cuda::getStreamFromPool`), with nothing in the function joining it back (a synchronize of the
  stream or the device, `cudaStreamWaitEvent`, an event synchronize);
- `std::thread`, `std::async`, `std::jthread`, `pthread_create`: work on another host thread.
"""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.guards import strip
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import state_of
from cudalint.model import ir

_CREATORS = {"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cuStreamCreate",
             "cuStreamCreateWithPriority"}
_POOL = {"getStreamFromPool", "getStreamFromExternal"}
_JOINS = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaStreamWaitEvent", "cudaEventSynchronize",
          "synchronize", "cuStreamSynchronize", "cuCtxSynchronize", "cuStreamWaitEvent", "wait"}
_USES = {"cublasSetStream", "cublasSetStream_v2", "cublasLtMatmul", "cudnnSetStream", "cudaMemcpyAsync",
         "cudaMemsetAsync", "CUDAStreamGuard", "setCurrentCUDAStream"}
_THREADS = {"thread", "async", "jthread", "pthread_create"}


@rule("CL412", "untimed-stream", "error",
      "the C++ code launches on a stream it created with no join to the current stream, or starts host "
      "threads: the harness's timer and synchronize do not wait for that work")
def check(ctx: RuleContext) -> Iterator[Finding]:
    solution = state_of(ctx.document).solution
    if solution is None or not solution.is_kernelbench:
        return
    for function in ctx.program.functions:
        if function.body is None or function.is_device_code:
            continue
        created = _created_streams(function)
        joined = any(isinstance(n, ir.Call) and n.callee in _JOINS for n in function.body.walk())
        for node in function.body.walk():
            if isinstance(node, ir.Call) and node.callee in _THREADS and ("std" in node.text or node.callee
                                                                          == "pthread_create"):
                yield ctx.finding(node.span, _hidden(node, (
                    f"`{node.callee}` runs work on another host thread: forward returns before it is done, and "
                    f"the harness's timer never sees it")))
            elif isinstance(node, ir.VarDecl) and any(t in node.type for t in ("std::thread", "std::jthread")):
                yield ctx.finding(node.span, (
                    "a `std::thread` runs work on another host thread: forward returns before it is done, and "
                    "the harness's timer never sees it"))
            elif created and not joined and _on_created(node, created):
                yield ctx.finding(node.span, _hidden(node, (
                    "forward's work goes to a stream the code created, and nothing joins it back to the current "
                    "stream: the harness's events and synchronize measure an idle stream")))


def _created_streams(function: ir.Function) -> set[str]:
    found: set[str] = set()
    for node in function.body.walk():
        if isinstance(node, ir.Call) and node.callee in _CREATORS and node.args:
            target = strip(node.args[0])
            if isinstance(target, ir.Unary) and target.op == "&" and isinstance(strip(target.operand), ir.Name):
                found.add(strip(target.operand).ref)
        elif isinstance(node, ir.VarDecl) and node.init is not None and any(
                isinstance(n, ir.Call) and n.callee in _POOL for n in node.init.walk()):
            found.add(node.ref)
    return found


def _on_created(node: ir.Node, created: set[str]) -> bool:
    def mentions(expr: ir.Expr | None) -> bool:
        return expr is not None and any(isinstance(n, ir.Name) and n.ref in created for n in expr.walk())

    if isinstance(node, ir.Launch):
        return mentions(node.stream)
    if isinstance(node, (ir.Call, ir.Construct)) and (getattr(node, "callee", "") in _USES or (
            isinstance(node, ir.Construct) and "CUDAStreamGuard" in node.type)):
        return any(mentions(a) for a in node.args)
    return False


def _hidden(node: ir.Expr, message: str) -> str:
    callee = getattr(node, "callee", "")
    if callee and callee not in node.text:
        return f"{message} (`{callee}` is spelled through a macro: `{' '.join(node.text.split())[:40]}`)"
    return message
