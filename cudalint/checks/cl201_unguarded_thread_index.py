"""CL201 unguarded-thread-index: a global memory access indexed by the global thread index with no
dominating guard that bounds it by a size."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.barriers import index_proven_below
from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import AXES
from cudalint.analysis.launch_link import CEIL, LaunchLinks
from cudalint.analysis.pointer_accesses import Access
from cudalint.analysis.provenance import global_axes
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Edit, Finding, Fix
from cudalint.model import ir

_BARRIERS = ("__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "sync", "__barrier_sync",
             "bar_sync")


@rule("CL201", "unguarded-thread-index", "error",
      "a global memory access indexed by the global thread index with no guard bounding it by a size")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    analysis = GuardAnalysis.of(program)
    links = LaunchLinks.of(program)
    for function in program.functions:
        if not function.is_device_code or function.body is None:
            continue
        kernels = [function] if function.is_kernel else program.kernels_reaching(function)
        guards = analysis.guards(function)
        provenance = analysis.provenance(function)
        call_sites_bound = set() if function.is_kernel else _bound_at_every_call(program, function, analysis)
        unguarded: list[tuple[Access, list[str]]] = []
        for access in analysis.accesses(function):
            if access.space not in ("param", "global"):
                continue
            need = provenance.access_provenance(access)
            if need.unknown or need.empty:
                continue
            comparisons = guards.comparisons(access.node)
            index = provenance.index_poly(access)
            axes = sorted(_unbounded_axes(provenance, need, comparisons, index))
            for alternatives in guards.disjunctions(access.node) if axes else ():
                # bounded where every alternative of a dominating `a || b` bounds it
                axes = sorted(set(axes) & set().union(*(
                    _unbounded_axes(provenance, need, comparisons + alternative, index) for alternative in alternatives)))
            if kernels:
                axes = [a for a in axes if any(links.grid_can_overshoot(k, a) for k in kernels)]
            if axes and not function.is_kernel:
                axes = [a for a in axes if a not in call_sites_bound]
            if axes and index_proven_below(ctx.program, function, access.node):
                axes = []
            if axes:
                unguarded.append((access, axes))
        unguarded_elsewhere = _guarded_elsewhere(function, analysis)
        if not unguarded and not unguarded_elsewhere:
            continue
        fixes = _fixes(ctx, function, unguarded, links) if function.is_kernel and unguarded else {}
        seen_lines: set[int] = set()
        for access, axes in unguarded:
            if access.line in seen_lines:
                continue
            seen_lines.add(access.line)
            yield ctx.finding(access.node.span, _message(access, axes), fix=fixes.get(id(access)))
        for access, sibling, comparison in unguarded_elsewhere:
            if access.line in seen_lines:
                continue
            seen_lines.add(access.line)
            guard = " ".join(comparison.node.text.split())
            yield ctx.finding(access.node.span,
                              f"`{' '.join(access.node.text.split())}` is not guarded, but the same element of "
                              f"`{access.root.name}` is accessed under `{guard}` on line "
                              f"{ctx.location(sibling.node.span).line}: threads past that bound access out of bounds "
                              f"here; guard it the same way")


def _unbounded_axes(provenance, need, comparisons, index) -> set[str]:
    left = provenance.uncovered(need, comparisons, index)
    return {a for a in provenance.all_axes(left)
            if not (a in left.axes and provenance.below_block_start(index, comparisons, a))}


def _bound_at_every_call(program, function: ir.Function, analysis: GuardAnalysis) -> set[str]:
    """Grid axes bounded by the guards around every call of a device function (`if (i < n) f(x, y)`)."""
    common: set[str] | None = None
    for caller, node in program.calls_to(function.name):
        if caller is not function:
            axes, _ = analysis.provenance(caller).bounded(analysis.guards(caller).comparisons(node))
            common = set(axes) if common is None else common & axes
    return common or set()


def _guarded_elsewhere(function: ir.Function, analysis: GuardAnalysis) -> list[tuple[Access, Access, object]]:
    """Global accesses indexed by a thread-dependent value (threadIdx, a block-strided counter) that
    is not a global thread index, left unguarded while another access to the same element of the
    same array is guarded by an upper bound on that very index (`if (tid < n) a[tid]` ... `a[tid] = v`)."""
    guards = analysis.guards(function)
    provenance = analysis.provenance(function)
    dependence = provenance.dependence
    candidates = []
    for access in analysis.accesses(function):
        if access.space not in ("param", "global") or not access.indices or access.root.retyped:
            continue
        if not any(dependence.is_dependent(i) for i in access.indices):
            continue
        need = provenance.access_provenance(access)
        if need.unknown or not need.empty:
            continue  # a global thread index: the main check's business
        candidates.append(access)
    found = []
    for access in candidates:
        index = _subscript_poly(access, provenance)
        offsets = _offset_poly(access, provenance)
        mine = guards.comparisons(access.node)
        if any(_bounds(c, index, provenance) for c in mine):
            continue
        for other in candidates:
            if other is access or other.root.ref != access.root.ref:
                continue
            if _subscript_poly(other, provenance) != index or _offset_poly(other, provenance) != offsets:
                continue
            guard = next((c for c in guards.comparisons(other.node) if _bounds(c, index, provenance, exact=True)),
                         None)
            if guard is not None:
                found.append((access, other, guard))
                break
    return found


def _subscript_poly(access: Access, provenance):
    total = None
    for part in access.indices:
        poly = provenance.poly(part)
        total = poly if total is None else total + poly
    return total


def _offset_poly(access: Access, provenance):
    total = None
    for part in access.root.offsets:
        poly = provenance.poly(part)
        total = poly if total is None else total + poly
    return total


def _bounds(comparison, index, provenance, exact: bool = False) -> bool:
    """Whether the comparison bounds `index` from above (exactly that value, or any value sharing a
    thread-dependent atom with it when not `exact`)."""
    atoms = {a for a in index.atoms() if a.kind in ("tid", "var", "opaque")}
    for subject, limit, _inclusive in comparison.upper_bounds():
        poly = provenance.poly(subject)
        if exact:
            if poly == index and provenance.is_size_like(limit):
                return True
        elif poly.atoms() & atoms:
            return True
    return False


def _message(access: Access, axes: list[str]) -> str:
    what = " ".join(access.node.text.split())
    if len(what) > 60:
        what = f"access to `{access.root.name}`"
    else:
        what = f"`{what}`"
    dims = " and ".join(f"{a}" for a in axes)
    index = f"the global thread index along {dims}" if len(axes) == 1 else f"global thread indices along {dims}"
    return (f"{what} is indexed by {index} (blockIdx * blockDim + threadIdx) with no guard that bounds it "
            f"by the data size: threads of the last block past the end of the data read or write out of bounds; "
            f"guard it, e.g. `if (idx < n)`")


# ------------------------------------------------------------------------------------------------ fixes


def _fixes(ctx: RuleContext, kernel: ir.Function, unguarded: list[tuple[Access, list[str]]],
           links: LaunchLinks) -> dict[int, Fix]:
    """A bounds guard around the rest of the kernel from the first unguarded statement, when each
    unguarded axis has a local holding its global index and every launch rounds its grid up from a size.
    The guard compares with the kernel parameter that receives that size; when none does (one axis), the
    fix adds the parameter and passes the size at every launch."""
    launches = links.of_kernel(kernel)
    if not launches:
        return {}
    axes = sorted({a for _, access_axes in unguarded for a in access_axes})
    env = ctx.program.env(kernel)
    analysis = GuardAnalysis.of(ctx.program)
    provenance = analysis.provenance(kernel)
    guards: list[str] = []
    declared_at: list[ir.Span] = []
    signature_edits: list[Edit] = []
    for axis in axes:
        grid_axes = [link.grid[AXES.index(axis)] for link in launches]
        if any(g.kind != CEIL for g in grid_axes):
            return {}
        params = [p for p in grid_axes[0].size_params if all(p in g.size_params for g in grid_axes)]
        variable = _index_variable(kernel, env, provenance, axis)
        if variable is None:
            return {}
        if params and params[0] < len(kernel.params):
            size_name = kernel.params[params[0]].name
        elif len(axes) == 1 and all(g.size is not None for g in grid_axes):
            size_name = _new_parameter_name(kernel, axis)
            signature_edits = _size_parameter_edits(ctx, kernel, launches, grid_axes, size_name)
            if not signature_edits:
                return {}
        else:
            return {}
        guards.append(f"{variable.name} < {size_name}")
        declared_at.append(variable.span)
    condition = " && ".join(guards)
    parents = _parents(kernel.body)
    first = min((access for access, _ in unguarded), key=lambda a: (a.node.span.line, a.node.span.column))
    chain = _ancestors(first.node, parents)
    lines = ctx.facts.unit.lines
    for block, statement in _block_positions(chain):
        start = statement.span
        if any((d.end_line, d.end_column) > (start.line, start.column) for d in declared_at):
            continue
        index = block.body.index(statement)
        region = block.body[index:]
        if any(_has_barrier(s) for s in region):
            continue
        covered = [access for access, _ in unguarded
                   if _within(access.node.span, start, region[-1].span)]
        begin = ctx.location(ir.Span(start.line, start.column, start.line, start.column))
        end_line, end_column = _statement_end(lines, region[-1])
        end = ctx.location(ir.Span(end_line, end_column, end_line, end_column))
        indent = " " * (begin.column - 1)
        guard = (Edit(begin.line, begin.column, begin.line, begin.column, f"if ({condition}) {{\n{indent}"),
                 Edit(end.line, end.column, end.line, end.column, f"\n{indent}}}"))
        if signature_edits:
            # another translation unit may launch a kernel of a .cu file with the old signature
            fix = Fix(f"guard the accesses with `if ({condition})`, `{guards[0].split(' < ')[1]}` a new parameter "
                      f"that every launch in the file passes the size its grid is rounded up from",
                      tuple(sorted(guard + tuple(signature_edits), key=lambda e: (e.line, e.column))),
                      safe=ctx.document.path.endswith(".py"))
        else:
            fix = Fix(f"guard the accesses with `if ({condition})`", guard)
        return {id(access): fix for access in covered}
    return {}


def _new_parameter_name(kernel: ir.Function, axis: str) -> str:
    taken = {node.name for node in kernel.of_type(ir.VarDecl)} | {p.name for p in kernel.params}
    for name in ("n", "size", f"n_{axis}", f"size_{axis}"):
        if name not in taken:
            return name
    return f"cudalint_size_{axis}"


def _size_parameter_edits(ctx: RuleContext, kernel: ir.Function, launches, grid_axes, name: str) -> list[Edit]:
    """The edits that add `long long NAME` to the kernel's parameters and pass each launch's size."""
    if not kernel.params or any(not isinstance(link.site.node, ir.Launch) for link in launches):
        return []
    last = kernel.params[-1].span
    after = ctx.location(ir.Span(last.end_line, last.end_column, last.end_line, last.end_column))
    edits = [Edit(after.line, after.column, after.line, after.column, f", long long {name}")]
    for link, grid_axis in zip(launches, grid_axes):
        launch = link.site.node
        span = launch.span
        closing = ctx.location(ir.Span(span.end_line, span.end_column - 1, span.end_line, span.end_column - 1))
        size = " ".join(grid_axis.size.text.split())
        edits.append(Edit(closing.line, closing.column, closing.line, closing.column,
                          f", {size}" if launch.args else size))
    return edits


def _index_variable(kernel: ir.Function, env, provenance, axis: str) -> ir.VarDecl | None:
    """A single-assignment local holding the global thread index of `axis` (`idx`, `row`, `col`)."""
    for node in kernel.of_type(ir.VarDecl):
        if node.ref and not node.dims and env.definition(node.ref) is not None:
            poly = provenance.poly(node.init)
            if global_axes(poly) == {axis} and len(poly.terms) == 2:
                return node
    return None


def _parents(body: ir.Block) -> dict[int, ir.Node]:
    parents: dict[int, ir.Node] = {}
    stack: list[ir.Node] = [body]
    while stack:
        node = stack.pop()
        for child in node.children():
            parents[id(child)] = node
            stack.append(child)
    return parents


def _ancestors(node: ir.Node, parents: dict[int, ir.Node]) -> list[ir.Node]:
    chain = [node]
    while id(chain[-1]) in parents:
        chain.append(parents[id(chain[-1])])
    return chain[::-1]  # outermost first


def _block_positions(chain: list[ir.Node]) -> Iterator[tuple[ir.Block, ir.Stmt]]:
    """(block, statement of that block on the way to the access), outermost block first."""
    for parent, child in zip(chain, chain[1:]):
        if isinstance(parent, ir.Block) and isinstance(child, ir.Stmt):
            yield parent, child
        elif isinstance(parent, (ir.For, ir.While)) and not isinstance(parent.body, ir.Block):
            return


def _has_barrier(stmt: ir.Stmt) -> bool:
    for node in stmt.walk():
        if isinstance(node, ir.Call) and node.callee in _BARRIERS:
            return True
    return False


def _within(span: ir.Span, start: ir.Span, last: ir.Span) -> bool:
    return (start.line, start.column) <= (span.line, span.column) and \
        (span.end_line, span.end_column) <= (last.end_line, last.end_column)


def _statement_end(lines: list[str], stmt: ir.Stmt) -> tuple[int, int]:
    """The unit position just past `stmt`, including a `;` that its extent leaves out (given the unit's
    lines)."""
    line, column = stmt.span.end_line, stmt.span.end_column
    if 1 <= line <= len(lines):
        raw = lines[line - 1].encode("utf-8")
        rest = raw[column - 1:]
        stripped = rest.lstrip(b" \t")
        if stripped.startswith(b";") and not isinstance(stmt, (ir.Block, ir.DeclStmt)):
            column += len(rest) - len(stripped) + 1
    return line, column

