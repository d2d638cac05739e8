"""CL213 reduction-not-written-back: a tree reduction whose loop halves (or doubles) its stride, reads
`s[tid + stride]` of a shared array and folds it into a register, but never stores into shared memory:
each thread combines only the elements at its own offsets, not the other threads' partial sums, so thread
0 ends with log2(n) + 1 of the n values."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import definitions, strip
from cudalint.analysis.pointer_accesses import Access
from cudalint.analysis.symbolic import THREAD_IDX
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.model import ir

# the steps that halve or double a counter, with the least amount that does
_GEOMETRIC = {">>=": 1, "<<=": 1, "/=": 2, "*=": 2, ">>": 1, "<<": 1, "/": 2, "*": 2}


@rule("CL213", "reduction-not-written-back", "error",
      "a tree reduction that folds `s[tid + stride]` into a register but never stores its partial sums back "
      "to shared memory")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    analysis = GuardAnalysis.of(program)
    for function in program.functions:
        if function.body is None or not function.is_device_code:
            continue
        accesses = analysis.accesses(function)
        provenance = analysis.provenance(function)
        env = program.env(function)
        for loop in function.of_type(ir.For):
            counter = _geometric_counter(loop, env)
            if counter is None:
                continue
            inside = {id(node) for node in loop.body.walk()}
            loop_accesses = [a for a in accesses if id(a.node) in inside]
            if _stores_beyond_global(loop, loop_accesses) or _passes_pointer(loop):
                continue  # the loop stores partials (or may: a store not followed, a call given a pointer)
            for access in loop_accesses:
                if access.space != "shared" or access.root.shared is None:
                    continue
                index = provenance.index_poly(access)
                if not _thread_plus_counter(index, counter):
                    continue
                register = _folded_into(function, loop, access, counter)
                if register is not None and _read_after(function, loop, register.ref):
                    yield ctx.finding(access.node.span, _message(access, register))
                    break


def _geometric_counter(loop: ir.For, env) -> str | None:
    """The ref of a loop counter its step halves or doubles (`s >>= 1`, `s /= 2`, `s = s * 2`)."""
    step = loop.step
    if not isinstance(step, ir.Binary) or not step.is_assignment or not isinstance(strip(step.lhs), ir.Name):
        return None
    target = strip(step.lhs)
    op, amount = step.op, step.rhs
    if op == "=":
        rhs = strip(step.rhs)
        if not isinstance(rhs, ir.Binary) or not isinstance(strip(rhs.lhs), ir.Name) or strip(rhs.lhs).ref != target.ref:
            return None
        op, amount = rhs.op, rhs.rhs
    value = env.value(amount)
    if op not in _GEOMETRIC or not isinstance(value, int) or value < _GEOMETRIC[op]:
        return None
    return target.ref


def _thread_plus_counter(index, counter: str) -> bool:
    """An index that adds the counter (coefficient 1) to the thread's own position."""
    by_atom = index.terms
    counter_terms = [m for m in by_atom if len(m) == 1 and m[0].kind == "var" and m[0].key == counter]
    thread_terms = [m for m in by_atom if len(m) == 1 and m[0].kind == THREAD_IDX]
    return len(counter_terms) == 1 and by_atom[counter_terms[0]] == 1 and any(by_atom[m] == 1 for m in thread_terms)


def _mentions(expr: ir.Expr, target: ir.Node, function: ir.Function, depth: int = 0) -> bool:
    """Whether `expr` contains `target`, directly or through the locals it reads."""
    for node in expr.walk():
        if node is target:
            return True
        if depth < 4 and isinstance(node, ir.Name) and node.decl_kind == "var" \
                and any(_mentions(value, target, function, depth + 1) for value in definitions(function, node.ref)):
            return True
    return False


def _folded_into(function: ir.Function, loop: ir.For, access: Access, counter: str) -> ir.Name | None:
    """The register declared outside the loop that an assignment in the loop folds the read into
    (`r += v`, `r = fmaxf(r, v)` with v the read or a local holding it)."""
    declared_inside = {node.ref for node in loop.walk() if isinstance(node, ir.VarDecl)}
    for node in loop.body.walk():
        if not isinstance(node, ir.Binary) or not node.is_assignment:
            continue
        target = strip(node.lhs)
        if not isinstance(target, ir.Name) or target.ref in declared_inside or target.ref == counter \
                or "*" in target.type or not _mentions(node.rhs, access.node, function):
            continue
        if node.op != "=" or any(isinstance(n, ir.Name) and n.ref == target.ref for n in node.rhs.walk()):
            return target
    return None


def _stores_beyond_global(loop: ir.For, loop_accesses: list[Access]) -> bool:
    """Whether the loop stores anywhere but global memory: shared memory, or through a pointer whose
    target is not followed."""
    to_global = {id(a.node) for a in loop_accesses if a.is_write and a.space in ("param", "global")}
    if any(a.is_write and id(a.node) not in to_global for a in loop_accesses):
        return True
    for node in loop.body.walk():
        target = strip(node.lhs) if isinstance(node, ir.Binary) and node.is_assignment else \
            strip(node.operand) if isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--") else None
        if isinstance(target, (ir.Index, ir.Unary)) and id(target) not in to_global:
            return True
    return False


def _passes_pointer(loop: ir.For) -> bool:
    """Whether a call in the loop is given a pointer: the callee may store the partials."""
    return any(isinstance(node, ir.Call) and any("*" in arg.type or "[" in arg.type for arg in node.args)
               and not node.callee.startswith("atomic") and node.callee not in ("__syncthreads",)
               for node in loop.body.walk())


def _read_after(function: ir.Function, loop: ir.For, ref: str) -> bool:
    """Whether the register's value after the loop is used: its first mention after the loop (in source
    order) is not a plain assignment that overwrites it (`m = sh[0];` recomputes and drops the fold)."""
    end = (loop.span.end_line, loop.span.end_column)
    overwrites = {id(strip(node.lhs)) for node in function.of_type(ir.Binary)
                  if node.op == "=" and isinstance(strip(node.lhs), ir.Name) and strip(node.lhs).ref == ref
                  and not any(isinstance(n, ir.Name) and n.ref == ref for n in node.rhs.walk())}
    later = sorted((node for node in function.body.walk() if isinstance(node, ir.Name) and node.ref == ref
                    and (node.span.line, node.span.column) > end), key=lambda n: (n.span.line, n.span.column))
    return bool(later) and id(later[0]) not in overwrites


def _message(access: Access, register: ir.Name) -> str:
    array = strip(access.node.base).text if isinstance(access.node, ir.Index) else access.root.name
    return (f"`{register.name}` folds `{short_text(access.node.text)}` in a loop whose stride halves or doubles, "
            f"but no iteration stores into `{array}`: each thread combines only the elements at its own offsets, "
            f"never the other threads' partial results, so thread 0 ends with log2(n) + 1 of the n values; store "
            f"`{register.name}` back into the thread's own element of `{array}` in each step, before the barrier, "
            f"or reduce with warp shuffles")
