"""CL414 input-independent-output: what forward returns does not depend on its inputs' values, or
depends on only a sample of them.

- Python (`Dataflow`'s input dependence), on a `return` of forward the harness always reaches: a value
  computed from no input at all (`torch.zeros_like(x)`, a constant fill, weights alone), or an input
  returned unchanged (no call, kernel or in-place op ever received it);
- Python, with a known reference whose forward slices with no step: a stepped slice of an input
  (`x[::2]`, `x[:, ::k]`), i.e. work on a subsample;
- C++: a bound function that forward calls, returns a tensor, and launches kernels of which none reads
  the data of any of its tensor parameters (the parameters serve for shapes only): the output is written
  from constants, whatever the inputs hold.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator

from cudalint import pyast
from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import strip
from cudalint.analysis.launch_link import LaunchLinks
from cudalint.checks.cl405_output_not_written import escapes
from cudalint.checks.cl411_input_mutation import data_pointer_of
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.dataflow import dataflow_of, statement_path, stepped_slice
from cudalint.harness.document_state import record_unit, reference_of
from cudalint.harness.kernelbench import callee_name
from cudalint.harness.statements import graded_paths, harness_polarity, node_location
from cudalint.model import ir

_CPP_METADATA = {"size", "sizes", "numel", "dim", "options", "dtype", "scalar_type", "device", "stride", "strides",
                 "is_contiguous", "defined", "is_cuda", "element_size", "get_device", "ndimension", "layout",
                 "sym_sizes", "suggest_memory_format", "nbytes", "itemsize", "check", "type"}
_CPP_ALLOCATORS = {"empty_like", "zeros_like", "ones_like", "full_like", "empty", "zeros", "ones", "full"}
_CPP_ALIASES = {"contiguous", "view", "reshape", "flatten", "to", "cuda", "expect_contiguous"}


@rule("CL414", "input-independent-output", "error",
      "forward's result does not depend on its inputs: a constant or zeros returned, an input returned "
      "unchanged, kernels that never read the input data, or work on a subsample of the input")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state, last = record_unit(ctx)
    solution = state.solution
    if solution is None or not solution.is_kernelbench or state.flow is None or not state.flow.functions:
        return
    flow = state.flow
    called = {callee_name(c) for info in flow.functions for c in info.invocations}
    yield from _constant_wrappers(ctx, called)
    if last:
        yield from _python_outputs(ctx, flow, dataflow_of(state))


def _python_outputs(ctx: RuleContext, flow, dataflow) -> Iterator[Finding]:
    for info, statement, depends, alias in _graded_results(flow, dataflow, flow.functions[0]):
        facts = dataflow.of(info)
        untouched = not facts.mutations and not facts.touched and not any(p for _, p in facts.kernel_inputs)
        if not depends and facts.inputs and not isinstance(statement.value, ast.Constant):
            yield ctx.finding_at(node_location(ctx.document, statement), (
                f"forward returns `{ast.unparse(statement.value)[:50]}`, which is computed from none of its inputs "
                f"({', '.join(sorted(facts.inputs))}): a constant passes only where the expected output happens "
                f"to match it"))
        elif alias and untouched:
            yield ctx.finding_at(node_location(ctx.document, statement), (
                f"forward returns its input `{ast.unparse(statement.value)[:40]}` unchanged: nothing computed it"))
    reference = reference_of(ctx)
    if reference is None or _reference_subsamples(reference.path, ctx.document):
        return
    for info in flow.functions:
        for subscript, name in dataflow.of(info).slices:
            yield ctx.finding_at(node_location(ctx.document, subscript), (
                f"`{ast.unparse(subscript)[:50]}` takes every k-th element of the input `{name}`, which the "
                f"reference does not: the work is done on a subsample, the rest of the output is not computed"))


def _graded_results(flow, dataflow, info, depth: int = 0) -> Iterator[tuple]:
    """(function, return statement, depends on inputs, returns an input) for the returns of forward that
    every graded call reaches (after early exits for odd shapes): the enclosing blocks are `with`s, or
    `if`s the harness decides (`if self.training:` is taken: `harness_polarity`). A return of a call of
    one in-file function (`return self._impl(x)`, `return _forward(self, x)`) is that function's graded
    returns: forward delegates its result."""
    ungraded = graded_paths(info.node).ungraded
    for statement, depends, alias in dataflow.of(info).returns:
        path = statement_path(info.node, statement)
        if path is None or statement.value is None or id(statement) in ungraded \
                or not all(_taken(s, statement) for s in path[1]):
            continue
        callees = flow.callees_of(statement.value, info) if isinstance(statement.value, ast.Call) else []
        if len(callees) == 1 and depth < 4 and callees[0] is not info and id(callees[0]) in dataflow.facts:
            yield from _graded_results(flow, dataflow, callees[0], depth + 1)
        else:
            yield info, statement, depends, alias


def _taken(block: ast.stmt, statement: ast.stmt) -> bool:
    """Whether the harness always runs this block's part that holds `statement`."""
    if isinstance(block, (ast.With, ast.AsyncWith)):
        return True
    if isinstance(block, ast.If):
        polarity = harness_polarity(block.test)
        part = block.body if polarity else block.orelse
        return polarity is not None and any(statement is n for s in part for n in pyast.walk(s))
    return False


def _reference_subsamples(path: str, document) -> bool:
    """Whether the reference slices with a step (True when that cannot be read: say nothing)."""
    if os.path.abspath(path) == os.path.abspath(document.path):
        model = next((n for n in document.python_module.body if isinstance(n, ast.ClassDef) and n.name == "Model"),
                     None)  # the problem's own Model, next to ModelNew in the file
        if model is None:
            return True
        return any(stepped_slice(node) for node in pyast.of_type(model, ast.Subscript))
    try:
        with open(path, encoding="utf-8") as handle:
            module = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return True
    return any(stepped_slice(node) for node in pyast.of_type(module, ast.Subscript))


def _constant_wrappers(ctx: RuleContext, called: set[str | None]) -> Iterator[Finding]:
    program = ctx.program
    links = analysis = None
    for function in program.functions:
        if function.body is None or function.is_device_code or function.name not in called:
            continue
        tensors = {p.ref for p in function.params if "Tensor" in p.type}
        launches = function.of_type(ir.Launch)
        returned = [strip(r.value) for r in function.of_type(ir.Return) if r.value is not None]
        if not tensors or not launches or not returned or any(
                isinstance(v, ir.Name) and v.decl_kind == "param" for v in returned):
            continue  # a wrapper that returns an argument: nothing it launches makes the result
        for decl in function.of_type(ir.VarDecl):
            init = strip(decl.init) if decl.init is not None else None
            while isinstance(init, ir.Call) and init.callee in _CPP_ALIASES and init.receiver is not None:
                init = strip(init.receiver)
            if isinstance(init, ir.Name) and init.ref in tensors:
                tensors.add(decl.ref)
        if not only_shapes_and_pointers(function.body, tensors, None) or not _uses_modelled(
                ctx.facts.unit.lines, function, tensors):
            continue
        pointers = {d.ref for d in function.of_type(ir.VarDecl)
                    if d.init is not None and any(isinstance(n, ir.Call) and data_pointer_of(n) in tensors
                                                  for n in d.init.walk())}
        if links is None:
            links, analysis = LaunchLinks.of(program), GuardAnalysis.of(program)
        reads = False
        for launch in launches:
            link = links.of_node(launch)
            kernel = link.kernel if link is not None else None
            if kernel is None or kernel.body is None:
                reads = True  # a kernel cudalint cannot see may read anything
                break
            read = {a.root.ref for a in analysis.accesses(kernel) if not a.is_write and a.root.kind == "param"}
            for position, arg in enumerate(launch.args):
                if pointers and any(isinstance(n, ir.Name) and n.ref in pointers for n in arg.walk()):
                    reads = True  # the data pointer went through a local: cudalint does not follow it
                if data_pointer_of(arg) in tensors and position < len(kernel.params):
                    param = kernel.params[position]
                    if param.ref in read or escapes(kernel.body, param.ref):
                        reads = True
                elif any(isinstance(n, ir.Call) and data_pointer_of(n) in tensors for n in arg.walk()):
                    reads = True  # an offset into a tensor's data (`x.data_ptr<float>() + offset`): not followed
        if not reads:
            yield ctx.finding(launches[0].span, (
                f"the kernels `{function.name}` launches never read the data of its tensor arguments (only their "
                f"sizes): the result is written from constants, whatever the inputs hold"))


def _uses_modelled(unit_lines: list[str], function: ir.Function, tensors: set[str]) -> bool:
    """Whether every mention of the tensors in the function's text is in its model (an expression the
    front end could not type, `torch::conv2d(x, w)` missing from the stubs, is left out of it)."""
    declared = [d.name for d in function.of_type(ir.VarDecl) if d.ref in tensors]
    names = {p.name for p in function.params if p.ref in tensors} | set(declared)
    modelled = len(declared) + sum(1 for n in function.body.walk() if isinstance(n, ir.Name) and n.ref in tensors)
    span = function.body.span
    lines = unit_lines[span.line - 1: span.end_line]
    if lines:
        lines[0] = lines[0][span.column - 1:]  # from the body's brace: the parameter list is not a use
    written = sum(len(re.findall(rf"\b{re.escape(name)}\b", line)) for name in names for line in lines)
    return written <= modelled


def only_shapes_and_pointers(node: ir.Node, tensors: set[str], parent: ir.Node | None) -> bool:
    """Every use of the tensors under `node` reads metadata, takes a data pointer, or makes an alias."""
    if isinstance(node, ir.Name) and node.ref in tensors:
        if isinstance(parent, ir.Call) and parent.receiver is None and parent.callee in _CPP_ALLOCATORS:
            return True  # torch::empty_like(x): x's sizes and options
        return isinstance(parent, ir.Call) and parent.receiver is node and (
            parent.callee in _CPP_METADATA or parent.callee in _CPP_ALIASES or data_pointer_of(parent) == node.ref)
    if isinstance(node, ir.Return):
        return True  # returning an argument is CL414's Python side's concern, not data flow into kernels
    return all(only_shapes_and_pointers(child, tensors, node) for child in node.children())
