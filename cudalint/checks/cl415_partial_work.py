"""CL415 partial-work: a kernel writes only a fraction of the output it is given, so the rest of the
output is never computed.

Coverage, not spelling: for an output pointer the host passes as `t.data_ptr<T>()` (same element type,
no cast) together with `t.numel()` (of `t`, or of the tensor `t` was allocated like), the union of the
indices the kernel writes over all threads and iterations is compared with that extent. Each store to
the output is `a * i + b` for one counter `i`, and `i` is bounded by:

- a dominating comparison `i < n / k` (or `n >> s`) on the extent `n`: the stores reach at most
  `r * n / k` elements, `r` the distinct residues of the offsets `b` modulo `a` (`out[2*i]` and
  `out[2*i+1]` under `i < n / 2` cover everything; `out[i]` under `i < n / 4` a quarter);
- or a grid-stride loop `for (i = global index; i < n; i += c * blockDim.x * gridDim.x)` with `c > 1`
  storing `out[i]` only: every thread skips `c - 1` of each `c` strides.

It says nothing when any store to the output escapes this form (a tail loop `i < n`, a vector cast, an
offset pointer, the pointer handed to a call), when the host touches the output other than through its
sizes and its data pointer for this one launch (a torch op may fill the rest), or when the extent is not
the output's own element count (a reduction's input size).
"""

from __future__ import annotations

from collections.abc import Iterator
from math import gcd

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import strip
from cudalint.analysis.launch_link import LaunchLink, LaunchLinks
from cudalint.analysis.warp_lanes import element_bytes
from cudalint.analysis.symbolic import BLOCK_DIM, BLOCK_IDX, GRID_DIM, THREAD_IDX, Atom, Poly
from cudalint.checks.cl206_dtype_mismatch import element_type
from cudalint.checks.cl405_output_not_written import escapes
from cudalint.checks.cl411_input_mutation import data_pointer_of
from cudalint.checks.cl414_input_independent_output import only_shapes_and_pointers
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.model import ir

_LIKE_ALLOCATORS = {"empty_like", "zeros_like", "ones_like", "full_like"}


@rule("CL415", "partial-work", "error",
      "a kernel writes only a fraction of its output (a loop over `n / k` storing one element per "
      "iteration, a grid-stride loop that skips strides): the rest of the output is never computed")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    analysis = GuardAnalysis.of(program)  # built lazily, per kernel, on first use
    links = LaunchLinks.of(program)
    for link in links.links:
        kernel = link.kernel
        if kernel is None or kernel.body is None:
            continue
        for position, param in enumerate(kernel.params):
            extent = _extent_param(link, position, links)
            if extent is None:
                continue
            covered = _coverage(analysis, kernel, param, kernel.params[extent])
            if covered is not None:
                share, how = covered
                yield ctx.finding(link.site.node.span, (
                    f"`{kernel.name}` writes at most {share} of `{param.name}` ({how}), whose extent "
                    f"`{kernel.params[extent].name}` is the output's element count: the rest of the output is "
                    f"never computed and keeps whatever the allocation held"))


def _extent_param(link: LaunchLink, position: int, links: LaunchLinks) -> int | None:
    """The kernel parameter that receives the element count of the tensor whose data pointer goes to
    parameter `position`, when the host uses that tensor for nothing but this launch and its sizes."""
    kernel = link.kernel
    param = kernel.params[position]
    if position >= len(link.args) or "*" not in param.type:
        return None
    env = link.site.env
    arg = _resolved(link.args[position], env)
    tensor = data_pointer_of(arg)
    element = (element_type(param.type), element_bytes(param.type))
    if tensor is None or not isinstance(arg, ir.Call) or None in element or element != (
            element_type(arg.template_args), element_bytes(arg.template_args)):
        return None  # a retyped pointer (`float4*`) counts other units than the tensor's elements
    caller = link.site.caller
    if caller.body is None or not only_shapes_and_pointers(caller.body, {tensor}, None) or sum(
            1 for other in links.links if other.site.caller is caller
            for a in other.args if data_pointer_of(_resolved(a, other.site.env)) == tensor) != 1:
        return None  # the host fills or reads the output some other way, or another launch writes it too
    same_count = {tensor}
    declaration = next((d for d in caller.of_type(ir.VarDecl) if d.ref == tensor), None)
    init = strip(declaration.init) if declaration is not None and declaration.init is not None else None
    if isinstance(init, ir.Call) and init.callee in _LIKE_ALLOCATORS and init.args and isinstance(
            strip(init.args[0]), ir.Name):
        same_count.add(strip(init.args[0]).ref)
    for index, size in enumerate(link.args):
        size = _resolved(size, env)
        if isinstance(size, ir.Call) and size.callee == "numel" and not size.args and isinstance(
                size.receiver, ir.Name) and size.receiver.ref in same_count and index < len(kernel.params):
            return index
    return None


def _coverage(analysis: GuardAnalysis, kernel: ir.Function, output: ir.Param,
              extent: ir.Param) -> tuple[str, str] | None:
    """(the share of the output the stores reach, how) when it is provably less than all of it."""
    writes = [a for a in analysis.accesses(kernel)
              if a.is_write and a.root.kind == "param" and a.root.ref == output.ref]
    if not writes or any(a.root.offsets or a.root.retyped or len(a.indices) != 1 for a in writes) or escapes(
            kernel.body, output.ref):
        return None
    provenance = analysis.provenance(kernel)
    guards = analysis.guards(kernel)
    env = provenance.env
    bases: set[Poly] = set()
    coefficients: set[int] = set()
    offsets: set[int] = set()
    for access in writes:
        poly = provenance.index_poly(access)
        offset = poly.terms.get((), 0)
        rest = poly - Poly.const(offset)
        if not rest.terms:
            return None  # a fixed element (`out[0]`): not a sweep over the output
        factor = 0
        for coefficient in rest.terms.values():
            factor = gcd(factor, abs(coefficient))
        bases.add(Poly({m: c // factor for m, c in rest.terms.items()}))
        coefficients.add(factor)
        offsets.add(offset)
    if len(bases) != 1 or len(coefficients) != 1:
        return None
    base, = bases
    factor, = coefficients
    residues = len({o % factor for o in offsets})
    divisors = {_fraction_bound(guards.comparisons(a.node), base, extent, provenance, env) for a in writes}
    if len(divisors) == 1 and None not in divisors:
        divisor, = divisors
        if residues < divisor:
            return f"{residues}/{divisor}", f"its stores are bounded by `{extent.name} / {divisor}`"
        return None
    skip = _skipped_strides(guards, writes, base, extent, provenance)
    if skip is not None and factor == 1 and offsets == {0}:
        return f"1/{skip}", f"its grid-stride loop steps {skip} strides at a time"
    return None


def _fraction_bound(comparisons, base: Poly, extent: ir.Param, provenance, env) -> int | None:
    """k for a comparison `base < extent / k` (or `>> s`) among those holding at a store."""
    for comparison in comparisons:
        for subject, limit, _ in comparison.upper_bounds():
            if provenance.poly(subject) != base:
                continue
            limit = strip(limit)
            if not (isinstance(limit, ir.Binary) and limit.op in ("/", ">>")):
                continue
            value = env.value(limit.rhs)
            if not isinstance(value, int) or value <= 0:
                continue
            divisor = value if limit.op == "/" else (1 << value if value < 31 else 0)
            if divisor > 1 and _same(provenance.poly(limit.lhs), _variable(extent)):
                return divisor
    return None


def _skipped_strides(guards, writes, base: Poly, extent: ir.Param, provenance) -> int | None:
    """c for a grid-stride loop over `base` that starts at the global thread index, runs to the extent
    and steps `c * blockDim.x * gridDim.x` with c > 1."""
    if len(base.terms) != 1:
        return None
    (monomial, _), = base.terms.items()
    if len(monomial) != 1 or monomial[0].kind != "var":
        return None
    counter = monomial[0].key
    loops = {id(loop): loop for a in writes for loop in guards.loops(a.node) if isinstance(loop, ir.For)}
    stride = Poly.atom(Atom(BLOCK_DIM, "x")) * Poly.atom(Atom(GRID_DIM, "x"))
    start = Poly.atom(Atom(BLOCK_IDX, "x")) * Poly.atom(Atom(BLOCK_DIM, "x")) + Poly.atom(Atom(THREAD_IDX, "x"))
    for loop in loops.values():
        declared = loop.init.decls if isinstance(loop.init, ir.DeclStmt) else []
        init = declared[0] if len(declared) == 1 else None
        step = strip(loop.step) if loop.step is not None else None
        if not (isinstance(init, ir.VarDecl) and init.ref == counter and init.init is not None
                and isinstance(step, ir.Binary) and step.op == "+=" and isinstance(strip(step.lhs), ir.Name)
                and strip(step.lhs).ref == counter and loop.cond is not None):
            continue
        if not _same(provenance.poly(init.init), start):
            continue
        if not any(provenance.poly(s) == base and _same(provenance.poly(l), _variable(extent))
                   for c in guards.comparisons(loop.body) for s, l, _ in c.upper_bounds()):
            continue
        steps = provenance.poly(step.rhs)
        for multiple in range(2, 65):
            if _same(steps, stride * Poly.const(multiple)):
                return multiple
    return None


def _variable(param: ir.Param) -> Poly:
    return Poly.atom(Atom("var", param.ref or param.name))


def _same(left: Poly, right: Poly) -> bool:
    """Polynomial equality ignoring atom labels."""
    def keys(poly: Poly) -> dict:
        return {tuple((a.kind, a.key) for a in m): c for m, c in poly.terms.items()}
    return keys(left) == keys(right)


def _resolved(expr: ir.Expr, env) -> ir.Expr:
    """`expr` through casts and single-assignment locals (`int n = x.numel();`)."""
    expr = strip(expr)
    for _ in range(8):
        if not isinstance(expr, ir.Name):
            break
        definition = env.definition(expr.ref)
        if definition is None:
            break
        expr = strip(definition)
    return expr
