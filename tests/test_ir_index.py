"""`Function.of_type` picks nodes by exact class from one index per function: it must give what an
`isinstance` filter over the function's nodes gives, which holds while no concrete node class has a
subclass."""

import inspect
from pathlib import Path

from cudalint.engine import _unit_facts
from cudalint.model import ir
from cudalint.sources import load_document

_CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def _concrete_node_classes() -> list[type]:
    abstract = {ir.Node, ir.Expr, ir.Stmt}
    return [cls for _, cls in inspect.getmembers(ir, inspect.isclass)
            if issubclass(cls, ir.Node) and cls not in abstract]


def test_concrete_node_classes_have_no_subclasses() -> None:
    classes = _concrete_node_classes()
    assert len(classes) > 20
    for cls in classes:
        assert not cls.__subclasses__(), f"{cls.__name__} is subclassed: of_type would miss the subclass"


def test_of_type_is_an_isinstance_filter_in_order() -> None:
    classes = _concrete_node_classes()
    checked = 0
    for path in sorted(_CORPUS.rglob("*.cu"))[:25] + sorted(_CORPUS.rglob("*.py"))[:25]:
        document = load_document(str(path), path.read_text())
        for facts in _unit_facts(document, None, []):
            for function in facts.program.functions:
                for chosen in [(cls,) for cls in classes] + [(ir.VarDecl, ir.Binary, ir.Unary), (ir.Launch, ir.Call)]:
                    assert function.of_type(*chosen) == tuple(n for n in function.nodes if isinstance(n, chosen))
                checked += 1
    assert checked > 80
