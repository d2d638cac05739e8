"""CL404 harness-tampering: a solution that changes what the harness measures or compares.

Reported on the Python line that does it:
- assigning (or `setattr`/`del`) a timing, synchronization or comparison function, or any function of
  torch the reference model also uses: `torch.cuda.synchronize = ...`, `torch.cuda.Event.elapsed_time
  = ...`, `time.perf_counter = ...`, `torch.allclose = ...`, `torch.matmul = ...`, `torch.Tensor.x = ...`;
- the same through aliases (`E = torch.cuda.Event; setattr(E, "record", ...)`, `import torch.cuda as c;
  c.synchronize = ...`) or a computed attribute name (`setattr(torch.cuda, "syn" + "chronize", f)`);
- starting threads or processes (`threading.Thread`, `ThreadPoolExecutor`, `multiprocessing`,
  `os.fork`; shells and `subprocess` are CL413's);
- running forward's work in a `with torch.cuda.stream(s)` (or cupy stream) block on a stream it created,
  when nothing makes the current stream wait for it (`wait_stream`, `synchronize`, `wait_event`);
- defining a `torch.Tensor` subclass (lazy tensors that defer the work until the result is compared).
Configuration flags (`torch.backends.*`) are not tampering, except, observed by the dry run, a lowered
fp32 precision that the reference's own forward runs under (see below).

Observed: when the dry run (cudalint/dryrun/) completed, an attribute of torch, torch.cuda, torch.testing,
torch.nn.functional or time that the solution's code replaced while it ran (however it reached the
module) is reported on the line that replaced it, unless the static reading already reported that line.
A replacement without a line (an attribute of a class, or one torch's own lazy imports made) is no
proof. A precision flag the solution's code lowered (TF32 turned on, `set_float32_matmul_precision` below
"highest", reduced-precision reductions allowed) is reported when the dry run saw it change after the
reference was loaded and the reference's forward, on an fp32 output, called a matmul (cuBLAS flags) or a
convolution (cuDNN flags); a flag set to its default (cuDNN's TF32 is on already) changes nothing and is
not reported. Without a completed dry run only CL406 (a warning) names the flag.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import state_of
from cudalint.harness.statements import line_location

# attribute targets whose replacement is tampering: dotted prefixes (anything below them counts)
_TAMPER_PREFIXES = ("torch.", "time.perf_counter", "time.perf_counter_ns", "time.time", "time.time_ns",
                    "time.monotonic", "time.monotonic_ns", "time.process_time", "time.process_time_ns",
                    "timeit.", "numpy.allclose", "numpy.testing.", "numpy.isclose", "numpy.array_equal",
                    "triton.testing.", "builtins.")
_CONFIG_SEGMENTS = {"backends", "_dynamo", "_inductor", "config", "_functorch", "_logging", "flags",
                    "overrides_config"}
_CONCURRENCY = {
    "threading.Thread", "threading.Timer", "_thread.start_new_thread", "_thread.start_new",
    "concurrent.futures.ThreadPoolExecutor", "concurrent.futures.ProcessPoolExecutor",
    "concurrent.futures.thread.ThreadPoolExecutor", "concurrent.futures.process.ProcessPoolExecutor",
    "multiprocessing.Process", "multiprocessing.Pool", "multiprocessing.pool.Pool",
    "multiprocessing.pool.ThreadPool", "multiprocessing.dummy.Pool", "torch.multiprocessing.Process",
    "torch.multiprocessing.spawn", "torch.multiprocessing.start_processes", "torch.multiprocessing.Pool",
    "os.fork", "os.forkpty", "asyncio.create_task", "asyncio.ensure_future",
}
_STREAM_CONSTRUCTORS = {"torch.cuda.Stream", "torch.Stream", "cupy.cuda.Stream", "torch.cuda.streams.Stream"}
_COMPUTED = "computed_name"  # stands for an attribute name built at run time
_WAITS = {"wait_stream", "synchronize", "wait_event", "wait"}


@rule("CL404", "harness-tampering", "error",
      "the solution replaces timing, sync or comparison functions, starts threads or processes, works on "
      "a side stream the timer does not wait for, or defines a lazy tensor subclass", scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state = state_of(ctx.document)
    solution = state.solution
    if solution is None or not solution.is_kernelbench:
        return
    imports = solution.imports
    seen: set[int] = set()

    def report(line: int, message: str) -> Iterator[Finding]:
        if line not in seen:
            seen.add(line)
            yield ctx.finding_at(line_location(ctx.document, line), message)

    for node in pyast.of_type(solution.module, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete, ast.Call,
                              ast.ClassDef):
        targets: list[tuple[str | None, ast.AST]] = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            raw = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in raw:
                for element in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                    if isinstance(element, ast.Attribute):
                        targets.append((imports.qualify(element), node))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                "setattr", "delattr") and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            base = imports.qualify(node.args[0])
            if base is not None:
                targets.append((f"{base}.{node.args[1].value}", node))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                "setattr", "delattr") and len(node.args) >= 2:
            base = imports.qualify(node.args[0])
            if base is not None and _tampering_target(f"{base}.{_COMPUTED}", imports):
                targets.append((f"{base}.<{ast.unparse(node.args[1])[:30]}>", node))  # a computed name
        for qualified, where in targets:
            if qualified and _tampering_target(qualified, imports):
                yield from report(where.lineno, (
                    f"`{qualified}` is replaced: the harness (and the reference model) use it to time, "
                    f"synchronize or compare, so the measured result no longer means anything"))
        if isinstance(node, ast.Call):
            qualified = imports.qualify(node.func) or ""
            if qualified in _CONCURRENCY:
                yield from report(node.lineno, (
                    f"`{qualified}` starts concurrent work: the harness times and checks forward on one "
                    f"thread and one stream, and work done elsewhere is not measured"))
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                qualified = imports.qualify(base) or ""
                if qualified in ("torch.Tensor", "torch._C._TensorBase", "torch._C.TensorBase"):
                    yield from report(node.lineno, (
                        f"`{node.name}` subclasses torch.Tensor: a tensor subclass can defer or fake the "
                        f"work until the harness compares the result, outside the timed region"))
                elif qualified == "threading.Thread" or qualified.startswith("multiprocessing."):
                    yield from report(node.lineno, (
                        f"`{node.name}` subclasses `{qualified}`: work on another thread or process is not "
                        f"what the harness times"))
    flow = state.flow
    if flow is not None:
        created = {ast.unparse(target) for node in pyast.of_type(solution.module, ast.Assign)
                   if _creates_stream(node.value, imports) for target in node.targets}
        for info in flow.functions:
            yield from _side_streams(info.node, imports, created, report)
    observed = ctx.observed
    for event in observed.events("replaced") if observed is not None else []:
        if event["line"] is not None and _tampering_target(event["what"], imports):
            yield from report(event["line"], (
                f"`{event['what']}` was replaced here when the dry run ran the solution: the harness (and the "
                f"reference model) use it to time, synchronize or compare, so the measured result no longer "
                f"means anything"))
    lowered = observed.precision_lowered() if observed is not None else []
    if lowered:
        event = lowered[0]
        line = event["line"] or (solution.model_new.lineno if solution.model_new is not None else 1)
        where = "here" if event["line"] else "(the dry run could not place the line)"
        flags = "; ".join(f"`{e['flag']}` {e['before']!r} -> {e['after']!r}" for e in lowered[:3])
        yield from report(line, (
            f"the solution lowers the process's fp32 precision {where} ({flags}), and the reference runs in the "
            f"same process: its own matmuls or convolutions then compute in TF32 or reduced precision, so the "
            f"output the harness compares against is not the fp32 reference and a less precise kernel passes; "
            f"leave the precision flags as the harness set them"))


def _tampering_target(qualified: str, imports) -> bool:
    if not qualified.startswith(_TAMPER_PREFIXES):
        return False
    parts = qualified.split(".")
    if any(p in _CONFIG_SEGMENTS for p in parts):
        return False
    if parts[0] == "torch":
        if len(parts) < 2:
            return False
        last = parts[-1]
        # torch.cuda.matmul.allow_tf32-style flags and dunder state (torch.__version__) are not functions
        if last.startswith("allow_") or last.isupper() or (len(parts) == 2 and last.startswith("__")):
            return False
    return True


def _side_streams(function: ast.FunctionDef, imports, created: set[str], report) -> Iterator[Finding]:
    """`created`: the names and self attributes (as written) that hold a stream the solution created."""
    waits = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _WAITS
                for n in pyast.walk(function))
    for node in pyast.walk(function):
        if not isinstance(node, ast.With):
            continue
        for item in node.items:
            expr = item.context_expr
            stream = None
            if isinstance(expr, ast.Call) and (imports.qualify(expr.func) or "") in ("torch.cuda.stream",
                                                                                     "cupy.cuda.Stream"):
                if (imports.qualify(expr.func) or "") == "cupy.cuda.Stream":
                    stream = expr
                elif expr.args and (_creates_stream(expr.args[0], imports) or ast.unparse(expr.args[0]) in created):
                    stream = expr.args[0]
            elif _creates_stream(expr, imports) or ast.unparse(expr) in created:
                stream = expr
            if stream is not None and not waits:
                yield from report(node.lineno, (
                    "forward's work runs on a stream it created and nothing makes the current stream wait "
                    "for it: the harness's timer and synchronize see an idle stream, not the kernel"))


def _creates_stream(expr: ast.expr | None, imports) -> bool:
    # `Stream() if torch.cuda.is_available() else None`: the harness runs on a GPU, so the stream is made
    if isinstance(expr, ast.IfExp) and isinstance(expr.test, ast.Call) \
            and (imports.qualify(expr.test.func) or "") == "torch.cuda.is_available":
        return _creates_stream(expr.body, imports)
    if not isinstance(expr, ast.Call):
        return False
    qualified = imports.qualify(expr.func) or ""
    if qualified in _STREAM_CONSTRUCTORS:
        return True
    return qualified.endswith("getStreamFromPool") or qualified.endswith("cuda.Stream")
