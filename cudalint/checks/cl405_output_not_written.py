"""CL405 output-not-written: an output allocated with `torch::empty`/`empty_like` (uninitialized
memory) whose elements the launch cannot all write, so the harness compares garbage.

Three cases, each proven from the code, not guessed:
- the output is returned without ever reaching a kernel or any call that could fill it (reported on
  the allocation);
- every kernel it is passed to never stores through that parameter (reported on the launch);
- a 1-D launch whose grid is `ceil(S / block)` runs S threads, the kernel stores at most one element
  of the output per thread (no loop around the store), and the output holds a multiple of S elements
  (`torch::empty({batch, Cout, Lout})` against a grid over `batch * Lout`; `empty_like(x)` against a
  grid over `x.numel() / 2`) (reported on the launch).
"""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import strip
from cudalint.analysis.launch_link import CEIL, LaunchLink, LaunchLinks
from cudalint.analysis.symbolic import Atom, Poly, Symbolizer
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.model import ir
from cudalint.model.program import Program
from cudalint.sources import CudaUnit

_UNINITIALIZED = {"empty", "empty_like", "empty_strided"}
# methods that only read a tensor's metadata (or hand out a read-only view of it)
_METADATA = {"size", "sizes", "numel", "dim", "options", "dtype", "scalar_type", "device", "stride", "strides",
             "is_contiguous", "defined", "is_cuda", "element_size", "nbytes", "get_device", "ndimension",
             "itemsize", "layout", "is_floating_point", "type", "sym_sizes", "suggest_memory_format"}


@rule("CL405", "output-not-written", "error",
      "an output from torch::empty/empty_like that the launch cannot entirely write: never passed to a "
      "kernel, never stored to by the kernel, or a grid that covers fewer elements than the output holds")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    links = None
    for function in program.functions:
        if function.body is None or function.is_device_code:
            continue
        complete = _launches_complete(ctx.facts.unit, function)
        for decl in _allocations(function):
            uses = _uses(function, decl)
            if uses is None:
                continue  # written some other way, aliased, or handed to a function we cannot follow
            launch_args, returned = uses
            if not launch_args:
                if returned and complete:
                    yield ctx.finding(decl.span, (
                        f"`{decl.name}` is allocated with `torch::empty` (uninitialized) and returned, but no "
                        f"kernel ever writes it: the result is whatever the allocator's memory held"))
                continue
            if links is None:
                links = LaunchLinks.of(program)
            yield from _check_launches(ctx, program, links, decl, launch_args)


def _allocations(function: ir.Function) -> list[ir.VarDecl]:
    found = []
    for node in function.of_type(ir.VarDecl):
        if node.init is not None:
            init = strip(node.init)
            if isinstance(init, ir.Call) and init.callee in _UNINITIALIZED and init.receiver is None:
                found.append(node)
    return found


def _launches_complete(unit: CudaUnit, function: ir.Function) -> bool:
    """Whether every `<<<` launch written in the function is in its model (a launch inside a lambda
    that is called in place, as AT_DISPATCH does, may not be)."""
    body = "\n".join(unit.lines[function.span.line - 1: function.span.end_line])
    written = body.count("<<<")
    modelled = len(function.of_type(ir.Launch))
    lambda_calls = any(n.callee == "operator()" and n.receiver is None for n in function.of_type(ir.Call))
    return written <= modelled and not lambda_calls


def _uses(function: ir.Function, decl: ir.VarDecl) -> tuple[list[tuple[ir.Launch, int]], bool] | None:
    """(the launches and argument positions that receive the tensor's data pointer, whether it is
    returned); None when the tensor is used in a way that may write it or that cannot be followed."""
    ref = decl.ref
    launch_args: list[tuple[ir.Launch, int]] = []
    returned = False
    consumed: set[int] = set()  # ids of Name nodes accounted for

    def data_pointer(expr: ir.Expr) -> bool:
        """`t.data_ptr<T>()`, `t.data_ptr()`, `(T*)t.data_ptr()`, `t.mutable_data_ptr<T>()`."""
        inner = strip(expr)
        while isinstance(inner, ir.Cast):
            inner = strip(inner.operand)
        return isinstance(inner, ir.Call) and inner.callee in ("data_ptr", "mutable_data_ptr", "data") \
            and isinstance(inner.receiver, ir.Name) and inner.receiver.ref == ref and not inner.args

    for node in function.of_type(ir.Launch, ir.Return, ir.Call, ir.Binary):
        if isinstance(node, ir.Launch):
            for position, arg in enumerate(node.args):
                if data_pointer(arg):
                    launch_args.append((node, position))
                    consumed.update(id(n) for n in arg.walk() if isinstance(n, ir.Name))
        elif isinstance(node, ir.Return) and node.value is not None and isinstance(strip(node.value), ir.Name) \
                and strip(node.value).ref == ref:
            returned = True
            consumed.add(id(strip(node.value)))
        elif isinstance(node, ir.Call) and isinstance(node.receiver, ir.Name) and node.receiver.ref == ref \
                and node.callee in _METADATA:
            consumed.add(id(node.receiver))
        elif isinstance(node, ir.Binary) and node.is_assignment and isinstance(strip(node.lhs), ir.Name) \
                and strip(node.lhs).ref == ref:
            return None  # reassigned
    for node in function.of_type(ir.Name):
        if node.ref == ref and id(node) not in consumed:
            return None  # any other use may write it (fill_, copy_, a helper, an alias)
    return launch_args, returned


def _check_launches(ctx: RuleContext, program: Program, links: LaunchLinks, decl: ir.VarDecl,
                    launch_args: list[tuple[ir.Launch, int]]) -> Iterator[Finding]:
    resolved: list[tuple[LaunchLink, ir.Function, int]] = []
    for launch, position in launch_args:
        link = links.of_node(launch)
        kernel = link.kernel if link is not None else None
        if link is None or kernel is None or kernel.body is None or position >= len(kernel.params):
            return  # a kernel cudalint cannot see might write it
        resolved.append((link, kernel, position))
    analysis = GuardAnalysis.of(program)
    written = [(link, kernel, position) for link, kernel, position in resolved
               if _may_write(program, analysis, kernel, kernel.params[position])]
    if not written:
        link, kernel, position = resolved[0]
        param = kernel.params[position].name
        yield ctx.finding(link.site.node.span, (
            f"`{decl.name}` comes from `torch::empty` (uninitialized) and is passed to `{kernel.name}` as "
            f"`{param}`, but the kernel never stores through `{param}`: the output keeps garbage"))
        return
    if len(resolved) != 1:
        return
    link, kernel, position = resolved[0]
    message = _coverage_problem(program, analysis, link, kernel, kernel.params[position], decl)
    if message:
        yield ctx.finding(link.site.node.span, message)


def _may_write(program: Program, analysis: GuardAnalysis, kernel: ir.Function, param: ir.Param) -> bool:
    if any(a.is_write and a.root.kind == "param" and a.root.ref == param.ref for a in analysis.accesses(kernel)):
        return True
    return escapes(kernel.body, param.ref)


def escapes(node: ir.Node, ref: str | None, parent: ir.Node | None = None) -> bool:
    """Whether the parameter is used other than as the base of a subscript (`p[i]`): passed to a
    call, aliased, offset, dereferenced; any of these may write through it."""
    if isinstance(node, ir.Name) and node.ref == ref:
        return not (isinstance(parent, ir.Index) and parent.base is node)
    if isinstance(node, ir.Cast) and isinstance(parent, ir.Index) and parent.base is node:
        return any(escapes(child, ref, parent) for child in node.children())
    return any(escapes(child, ref, node) for child in node.children())


def _coverage_problem(program: Program, analysis: GuardAnalysis, link: LaunchLink, kernel: ir.Function,
                      param: ir.Param, decl: ir.VarDecl) -> str | None:
    block = link.block
    grid_x, grid_y, grid_z = link.grid
    if block is None or block[1] != 1 or block[2] != 1 or block[0] is None:
        return None
    for axis in (grid_y, grid_z):
        if axis.expr is not None and not (axis.size is not None and link.site.env.value(strip(axis.size)) == 1):
            return None
    if grid_x.kind != CEIL or grid_x.size is None:
        return None
    if escapes(kernel.body, param.ref):
        return None
    writes = [a for a in analysis.accesses(kernel) if a.is_write and a.root.kind == "param" and a.root.ref == param.ref]
    if len(writes) != 1 or writes[0].root.retyped or writes[0].root.offsets:
        return None
    guards = analysis.guards(kernel)
    if guards.loops(writes[0].node):
        return None  # a loop around the store: a thread may write several elements
    symbolizer = Symbolizer(link.site.env)
    elements = _element_count(symbolizer, strip(decl.init))
    if elements is None:
        return None
    size = strip(link.site.env.resolve(strip(grid_x.size)))
    factor = None
    if isinstance(size, ir.Binary) and size.op in ("/", ">>"):
        divisor = link.site.env.value(strip(size.rhs))
        if isinstance(divisor, int) and divisor >= 1:
            divisor = divisor if size.op == "/" else (1 << divisor if divisor < 31 else 0)
            if divisor >= 2 and symbolizer.poly(strip(size.lhs)) == elements:
                factor = Poly.const(divisor)  # a grid over n / 2 for n elements
    if factor is None:
        factor = _factor(elements, symbolizer.poly(strip(grid_x.size)))
    if factor is None or factor == Poly.const(1):
        return None
    constant = factor.constant
    if constant is not None and constant <= 1:
        return None
    size_text = " ".join(grid_x.size.text.split())
    return (f"the grid of `{kernel.name}` covers `{size_text}` threads, each writing at most one element of "
            f"`{decl.name}`, but `{decl.name}` (from `torch::empty`) holds `{factor}` times as many: the "
            f"remaining elements are never written and keep garbage")


def _element_count(symbolizer: Symbolizer, init: ir.Expr) -> Poly | None:
    """The element count of `torch::empty({a, b, c}, ...)`, `torch::empty(n, ...)` or
    `torch::empty_like(x)` (the polynomial of `x.numel()`, as the code would write it)."""
    if isinstance(init, ir.Call) and init.callee == "empty_like" and init.args:
        source = strip(init.args[0])
        if isinstance(source, ir.Name):
            text = f"{source.name}.numel()"
            return Poly.atom(Atom("opaque", text, text))
        return None
    if not isinstance(init, ir.Call) or init.callee != "empty" or not init.args:
        return None
    shape = strip(init.args[0])
    elements: list[ir.Expr] | None = None
    for node in shape.walk():
        if isinstance(node, ir.InitList):
            elements = node.elements
            break
    if elements is None:
        if "int" in shape.type or "long" in shape.type or "size_t" in shape.type:
            elements = [shape]
        else:
            return None
    count = Poly.const(1)
    for element in elements:
        count = count * symbolizer.poly(strip(element))
    return count


def _factor(elements: Poly, covered: Poly) -> Poly | None:
    """The monomial m (a constant times atoms) with covered * m == elements, if there is one."""
    if not covered.terms or not elements.terms:
        return None
    covered_monomial, covered_coefficient = next(iter(sorted(covered.terms.items(), key=lambda t: t[0])))
    for monomial, coefficient in elements.terms.items():
        rest = list(monomial)
        try:
            for atom in covered_monomial:
                rest.remove(atom)
        except ValueError:
            continue
        if coefficient % covered_coefficient:
            continue
        candidate = Poly({tuple(sorted(rest)): coefficient // covered_coefficient})
        if covered * candidate == elements:
            return candidate
    return None
