"""cudalint's own intermediate representation of CUDA code: expressions, statements, functions.

The frontend lowers libclang cursors into these types; analyses and rules only ever see them.
Nodes compare by identity, so they can key dictionaries (CFG nodes, analysis facts).
Spans are in the coordinates of the parsed unit; `CudaUnit.to_file` maps them to the input file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from cudalint.caching import Analysed, ClassIndex


class Span(NamedTuple):
    # a tuple: the frontend makes one per node, and a frozen dataclass costs four times as much to build
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(eq=False, slots=True)
class Node:
    span: Span

    def children(self) -> tuple[Node, ...]:
        """The nodes directly below, in source order (a tuple: walks ask every node for them)."""
        return ()

    def walk(self) -> Iterator[Node]:
        """This node and every node below it, in source order (pre-order)."""
        # an explicit stack: nested generators would cost O(depth) per node
        stack: list[Node] = [self]
        pop, extend = stack.pop, stack.extend
        while stack:
            node = pop()
            yield node
            kids = node.children()
            if kids:
                extend(reversed(kids))


# ------------------------------------------------------------------------------------------ expressions


@dataclass(eq=False, slots=True)
class Expr(Node):
    text: str = ""  # the source text, for messages
    type: str = ""  # clang's spelling of the expression's type, when known


@dataclass(eq=False, slots=True)
class Name(Expr):
    name: str = ""
    ref: str | None = None  # identity of the declaration (clang USR or location): tells shadowed names apart
    decl_kind: str = ""  # "param", "var", "function", "enum", "field", ""
    constant: int | float | None = None  # value when the declaration is a compile-time constant


@dataclass(eq=False, slots=True)
class Const(Expr):
    value: int | float | bool | None = None


@dataclass(eq=False, slots=True)
class Member(Expr):
    base: Expr | None = None
    field: str = ""

    def children(self) -> tuple[Node, ...]:
        return (self.base,) if self.base is not None else ()


@dataclass(eq=False, slots=True)
class Index(Expr):
    base: Expr = None  # type: ignore[assignment]
    index: Expr = None  # type: ignore[assignment]

    def children(self) -> tuple[Node, ...]:
        return self.base, self.index


@dataclass(eq=False, slots=True)
class Unary(Expr):
    op: str = ""  # "-", "!", "~", "*", "&", "++", "--", "post++", "post--"
    operand: Expr = None  # type: ignore[assignment]

    def children(self) -> tuple[Node, ...]:
        return (self.operand,)


ASSIGNMENT_OPERATORS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="})


@dataclass(eq=False, slots=True)
class Binary(Expr):
    op: str = ""  # C operators, assignments included ("=", "+=")
    lhs: Expr = None  # type: ignore[assignment]
    rhs: Expr = None  # type: ignore[assignment]

    @property
    def is_assignment(self) -> bool:
        return self.op in ASSIGNMENT_OPERATORS

    def children(self) -> tuple[Node, ...]:
        return self.lhs, self.rhs


@dataclass(eq=False, slots=True)
class Conditional(Expr):
    cond: Expr = None  # type: ignore[assignment]
    then: Expr = None  # type: ignore[assignment]
    otherwise: Expr = None  # type: ignore[assignment]

    def children(self) -> tuple[Node, ...]:
        return self.cond, self.then, self.otherwise


@dataclass(eq=False, slots=True)
class Call(Expr):
    callee: str = ""  # the function's name ("__syncthreads", "atomicAdd", "sync", "data_ptr")
    args: list[Expr] = field(default_factory=list)
    receiver: Expr | None = None  # the object of a method call (`grid` in `grid.sync()`)
    template_args: str = ""  # text between <> after the callee, e.g. "float" in data_ptr<float>()

    def children(self) -> tuple[Node, ...]:
        return (self.receiver, *self.args) if self.receiver is not None else tuple(self.args)


@dataclass(eq=False, slots=True)
class Launch(Expr):
    """A `kernel<<<grid, block, smem, stream>>>(args)` launch; absent configuration parts are None."""

    kernel: str = ""
    grid: Expr | None = None
    block: Expr | None = None
    shared_bytes: Expr | None = None
    stream: Expr | None = None
    args: list[Expr] = field(default_factory=list)

    def children(self) -> tuple[Node, ...]:
        config = (self.grid, self.block, self.shared_bytes, self.stream)
        return (*(part for part in config if part is not None), *self.args)


@dataclass(eq=False, slots=True)
class Construct(Expr):
    """A constructor call or functional cast: `dim3(16, 16)`, `float4{...}`; default arguments omitted."""

    args: list[Expr] = field(default_factory=list)

    def children(self) -> tuple[Node, ...]:
        return tuple(self.args)


@dataclass(eq=False, slots=True)
class Cast(Expr):
    operand: Expr = None  # type: ignore[assignment]

    def children(self) -> tuple[Node, ...]:
        return (self.operand,)


@dataclass(eq=False, slots=True)
class InitList(Expr):
    elements: list[Expr] = field(default_factory=list)

    def children(self) -> tuple[Node, ...]:
        return tuple(self.elements)


@dataclass(eq=False, slots=True)
class Lambda(Expr):
    body: Block = None  # type: ignore[assignment]

    def children(self) -> tuple[Node, ...]:
        return (self.body,)


@dataclass(eq=False, slots=True)
class Opaque(Expr):
    """An expression cudalint does not model; its sub-expressions are kept so walks still see them."""

    parts: list[Expr] = field(default_factory=list)

    def children(self) -> tuple[Node, ...]:
        return tuple(self.parts)


# ------------------------------------------------------------------------------------------- statements


@dataclass(eq=False, slots=True)
class Stmt(Node):
    pass


@dataclass(eq=False, slots=True)
class Block(Stmt):
    body: list[Stmt] = field(default_factory=list)

    def children(self) -> tuple[Node, ...]:
        return tuple(self.body)


@dataclass(eq=False, slots=True)
class ExprStmt(Stmt):
    expr: Expr = None  # type: ignore[assignment]

    def children(self) -> tuple[Node, ...]:
        return (self.expr,)


@dataclass(eq=False, slots=True)
class VarDecl(Stmt):
    name: str = ""
    ref: str | None = None
    type: str = ""
    init: Expr | None = None
    shared: bool = False
    extern: bool = False
    static: bool = False  # static storage: keeps its value from one call to the next
    constant_memory: bool = False
    is_const: bool = False
    volatile: bool = False
    # for arrays: the element count of each dimension (None where not a constant); [] for scalars
    dims: list[int | None] = field(default_factory=list)
    size_bytes: int | None = None  # total size when constant; None for dynamic or dependent arrays
    element_type: str = ""

    def children(self) -> tuple[Node, ...]:
        return (self.init,) if self.init is not None else ()


@dataclass(eq=False, slots=True)
class DeclStmt(Stmt):
    decls: list[VarDecl] = field(default_factory=list)

    def children(self) -> tuple[Node, ...]:
        return tuple(self.decls)


@dataclass(eq=False, slots=True)
class If(Stmt):
    cond: Expr = None  # type: ignore[assignment]
    then: Stmt = None  # type: ignore[assignment]
    otherwise: Stmt | None = None

    def children(self) -> tuple[Node, ...]:
        return (self.cond, self.then, self.otherwise) if self.otherwise is not None else (self.cond, self.then)


@dataclass(eq=False, slots=True)
class For(Stmt):
    init: Stmt | None = None
    cond: Expr | None = None
    step: Expr | None = None
    body: Stmt = None  # type: ignore[assignment]

    def children(self) -> tuple[Node, ...]:
        return tuple(part for part in (self.init, self.cond, self.step, self.body) if part is not None)


@dataclass(eq=False, slots=True)
class While(Stmt):
    cond: Expr = None  # type: ignore[assignment]
    body: Stmt = None  # type: ignore[assignment]
    do_while: bool = False  # body runs before the first test

    def children(self) -> tuple[Node, ...]:
        return (self.body, self.cond) if self.do_while else (self.cond, self.body)


@dataclass(eq=False, slots=True)
class Switch(Stmt):
    cond: Expr = None  # type: ignore[assignment]
    body: Stmt = None  # type: ignore[assignment]

    def children(self) -> tuple[Node, ...]:
        return self.cond, self.body


@dataclass(eq=False, slots=True)
class Return(Stmt):
    value: Expr | None = None

    def children(self) -> tuple[Node, ...]:
        return (self.value,) if self.value is not None else ()


@dataclass(eq=False, slots=True)
class Break(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Continue(Stmt):
    pass


@dataclass(eq=False, slots=True)
class OpaqueStmt(Stmt):
    """A statement cudalint does not model (goto, label, asm); nested statements are kept."""

    parts: list[Node] = field(default_factory=list)

    def children(self) -> tuple[Node, ...]:
        return tuple(self.parts)


# -------------------------------------------------------------------------------------------- functions


@dataclass(eq=False)
class Param:
    name: str
    ref: str | None
    type: str
    span: Span
    canonical_type: str = ""  # clang's canonical spelling (typedefs and aliases resolved)


@dataclass(eq=False)
class Function(Analysed):
    name: str
    space: str  # "global" (a kernel), "device", "host", "host_device"
    params: list[Param]
    body: Block | None
    span: Span  # the whole definition
    name_span: Span
    ref: str | None = None
    templated: bool = False
    max_threads_per_block: int | None = None  # from __launch_bounds__, when constant
    return_type: str = ""
    analyses: dict = field(default_factory=dict, repr=False)  # see `Analysed`

    @cached_property
    def nodes(self) -> tuple[Node, ...]:
        """Every node of the body, in pre-order. Built once: analyses walk bodies many times, and the IR is
        not changed after lowering."""
        return tuple(self.body.walk()) if self.body is not None else ()

    @cached_property
    def _class_index(self) -> ClassIndex:
        return ClassIndex(self.nodes)

    def of_type(self, *classes: type) -> tuple[Node, ...]:
        """The nodes of `nodes` whose class is one of `classes` (concrete node classes), in pre-order."""
        return self._class_index.select(classes)

    @property
    def is_kernel(self) -> bool:
        return self.space == "global"

    @property
    def is_device_code(self) -> bool:
        return self.space in ("global", "device", "host_device")


def walk_expressions(node: Node) -> Iterator[Expr]:
    for sub in node.walk():
        if isinstance(sub, Expr):
            yield sub
