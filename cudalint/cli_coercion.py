"""The command line's values converted without pydantic, where typer would build a pydantic adapter for them.

Typer 0.2x converts each command-line value through a pydantic `TypeAdapter` built for its parameter:
importing pydantic and building the adapters of `cudalint check` costs about 60 ms of CPU, a fifth of
checking one file in a fresh process. The values cudalint's commands take need none of it: a string, a list
of strings, a flag's bool, a member of an `Enum` named by its value, a whole or decimal number within the
parameter's bounds. `install()` has typer convert those here, to what its adapters return for them, and
hands every other value (one it would reject: its error message stays typer's) and every other kind of
parameter (a parser, a path, a file, a date, a clamp) to typer's own conversion, which imports pydantic then.
A typer without this layer (before 0.2x converts through click's types) is left as it is.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from enum import Enum
from typing import Any, get_args, get_origin

_INTEGER = re.compile(r"-?[0-9]+")
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def _parameters(function: Any) -> list[str] | None:
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None


def install() -> None:
    """Route typer's conversion of the plain parameter types through `_PlainParam` (once per process)."""
    try:
        from typer import _coercion, core
    except ImportError:  # a typer that converts through click's types: no pydantic to leave out
        return
    build = getattr(core, "build_runtime_param", None)
    if build is None or getattr(build, "plain_types_first", False):
        return
    base = getattr(_coercion, "RuntimeParam", None)
    if base is None or _parameters(getattr(base, "_coerce_value", None)) != ["self", "value", "param", "ctx"] \
            or _parameters(build) != ["descriptor"]:
        return  # a typer whose conversion takes other arguments: its own, untouched

    @dataclass(frozen=True)
    class _PlainParam(base):
        """A parameter whose values `plain_value` converts; any other value goes to typer's conversion."""

        descriptor: Any

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            converted = plain_value(self.annotation, self.parameter_info, value, ctx)
            if converted is not None:
                return converted
            return build(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

    def build_runtime_param(descriptor: Any) -> Any:
        if _plain_type(descriptor.annotation, descriptor.parameter_info) and descriptor.file_annotation is None:
            try:
                return _PlainParam(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation,
                                   descriptor=descriptor)
            except TypeError:  # a typer whose RuntimeParam has other fields: its own conversion
                pass
        return build(descriptor)

    build_runtime_param.plain_types_first = True
    core.build_runtime_param = build_runtime_param


def _plain_type(annotation: Any, info: Any) -> bool:
    if getattr(info, "parser", None) is not None or getattr(info, "clamp", False) or \
            getattr(info, "path_type", None) is not None:
        return False
    if get_origin(annotation) is list:
        return get_args(annotation) == (str,)
    return annotation in (str, bool, int, float) or (isinstance(annotation, type) and issubclass(annotation, Enum))


def plain_value(annotation: Any, info: Any, value: Any, ctx: Any) -> Any:
    """`value` converted as typer's adapter for `annotation` converts it, or None where that is not plain
    (typer decides then)."""
    if get_origin(annotation) is list:
        if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
            return list(value)
        return None
    if annotation is str:
        return value if isinstance(value, str) else None
    if annotation is bool:
        return value if isinstance(value, bool) else None
    if annotation is int or annotation is float:
        return _number(annotation, info, value)
    if isinstance(value, annotation):  # an Enum member: the default
        return value
    if isinstance(value, str) and getattr(info, "case_sensitive", False) and \
            getattr(ctx, "token_normalize_func", None) is None:
        for member in annotation:
            if str(member.value) == value:
                return member
    return None


def _number(kind: type, info: Any, value: Any) -> Any:
    if isinstance(value, str) and (_INTEGER if kind is int else _DECIMAL).fullmatch(value):
        value = kind(value)
    if type(value) is not kind and not (kind is float and type(value) is int):
        return None
    low, high = getattr(info, "min", None), getattr(info, "max", None)
    if (low is not None and value < low) or (high is not None and value > high):
        return None
    return kind(value)
