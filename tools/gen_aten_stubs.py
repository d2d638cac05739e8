"""Generate cudalint's stub declarations of the ATen operators from PyTorch's own operator list.

    python tools/gen_aten_stubs.py [NATIVE_FUNCTIONS_YAML]

Reads `native_functions.yaml` (by default the copy an installed torch ships in
`torchgen/packaged/ATen/native/`) and writes, under cudalint/frontend/stubs/__cudalint/:

- `aten_functions.h`: the `at::` namespace functions (ATen/Functions.h, ATen/ops/*.h), and
- `aten_tensor_methods.h`: the `at::Tensor` methods (ATen/core/TensorBody.h), included inside the class.

The C++ signatures follow torchgen's rules for the public (non-SymInt) C++ API: `Tensor` -> `const at::Tensor&`,
`Tensor(a!)` -> `at::Tensor&`, `Tensor?` -> `const std::optional<at::Tensor>&`, `int[N]`/`SymInt[N]` ->
`at::IntArrayRef`, `int[1]?` -> `at::OptionalIntArrayRef`, `float` -> `double`, `str` -> `c10::string_view`, ...;
`dtype, layout, device, pin_memory` grouped into `at::TensorOptions options={}` (plus the unpacked overload);
out= overloads as `name_out(out..., args...)` and `name_outf(args..., out...)`; methods drop `self` and are
`const`. Defaults are written as `{}` (the value does not matter to a parse, only that there is one).
Left out: names starting with `_` (private), overloads that take named-tensor (`Dimname`) or other types the
stubs do not model (`Storage`, `Stream`, `QScheme`, ...), and `manual_cpp_binding` operators (hand-written in
TensorBody.h, as they are in the stub's Tensor class). The torch version is recorded in the headers.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from pathlib import Path

import yaml

STUBS = Path(__file__).resolve().parents[1] / "cudalint" / "frontend" / "stubs" / "__cudalint"

# Tensor methods the stub's class declares by hand (as TensorBody.h does): not generated again.
HAND_WRITTEN_METHODS = {"contiguous", "to", "index", "index_put_", "cuda", "cpu", "item", "data_ptr", "size",
                        "stride", "sizes", "strides", "dim", "numel", "is_contiguous", "requires_grad_",
                        "is_leaf", "backward", "print", "toString", "is_same", "set_requires_grad", "grad",
                        "element_size", "nbytes", "itemsize", "storage_offset", "options", "device", "dtype",
                        "layout", "scalar_type", "is_cuda", "is_cpu", "is_floating_point", "is_complex",
                        "is_sparse", "is_pinned", "type", "toType", "suggest_memory_format", "use_count",
                        "defined", "reset", "get_device", "ndimension", "data"}
# namespace functions declared by hand in the stub (hand-written in ATen too)
HAND_WRITTEN_FUNCTIONS = {"tensor", "from_blob"}


def _split_args(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


class Unsupported(Exception):
    pass


_SIMPLE = {
    "int": "int64_t", "SymInt": "int64_t", "float": "double", "bool": "bool", "str": "c10::string_view",
    "ScalarType": "at::ScalarType", "Layout": "at::Layout", "Device": "at::Device", "MemoryFormat": "at::MemoryFormat",
    "DeviceIndex": "at::DeviceIndex", "Scalar": "const at::Scalar&", "Generator": "at::Generator",
}
_OPTIONAL = {
    "int": "std::optional<int64_t>", "SymInt": "std::optional<int64_t>", "float": "std::optional<double>",
    "bool": "std::optional<bool>", "str": "std::optional<c10::string_view>",
    "ScalarType": "std::optional<at::ScalarType>", "Layout": "std::optional<at::Layout>",
    "Device": "std::optional<at::Device>", "MemoryFormat": "std::optional<at::MemoryFormat>",
    "Scalar": "const std::optional<at::Scalar>&", "Generator": "std::optional<at::Generator>",
    "Tensor": "const std::optional<at::Tensor>&", "DeviceIndex": "std::optional<at::DeviceIndex>",
}


def cpp_argument_type(schema_type: str) -> str:
    """The C++ parameter type of a schema type (torchgen's non-SymInt C++ API)."""
    mutable = "!" in schema_type
    base = re.sub(r"\([^)]*\)", "", schema_type).strip()  # alias annotations
    if base == "Tensor":
        return "at::Tensor&" if mutable else "const at::Tensor&"
    if base in ("Tensor[]", "Tensor[1]"):
        return "at::TensorList"
    if base == "Tensor?[]":
        return "const c10::List<std::optional<at::Tensor>>&"
    if base.endswith("?") and base[:-1] in _OPTIONAL:
        return _OPTIONAL[base[:-1]]
    if base in _SIMPLE:
        return _SIMPLE[base]
    match = re.fullmatch(r"(int|SymInt|float|bool|Scalar)\[(\d*)\](\?)?", base)
    if match:
        element, size, optional = match.groups()
        if element in ("int", "SymInt"):
            return "at::OptionalIntArrayRef" if optional else "at::IntArrayRef"
        if element == "bool" and size:
            if optional:
                raise Unsupported(base)
            return f"std::array<bool, {size}>"
        inner = {"float": "at::ArrayRef<double>", "Scalar": "at::ArrayRef<at::Scalar>"}.get(element)
        if inner is None:
            raise Unsupported(base)
        return f"std::optional<{inner}>" if optional else inner
    raise Unsupported(base)


def cpp_return_type(returns: str) -> str:
    returns = returns.strip()
    if returns == "()":
        return "void"
    if returns.startswith("("):
        items = [cpp_return_type(part.rsplit(" ", 1)[0] if " " in part.strip() and not part.strip().endswith(")")
                                 else part) for part in _split_args(returns[1:-1])]
        return "std::tuple<" + ", ".join(items) + ">"
    base = returns.split(" ")[0] if not returns.startswith("Tensor(") else returns.split(" ")[0]
    mutable = "!" in base
    plain = re.sub(r"\([^)]*\)", "", base)
    if plain == "Tensor":
        return "at::Tensor&" if mutable else "at::Tensor"
    if plain == "Tensor[]":
        return "void" if mutable else "std::vector<at::Tensor>"
    simple = {"bool": "bool", "int": "int64_t", "SymInt": "int64_t", "float": "double", "Scalar": "at::Scalar",
              "ScalarType": "at::ScalarType", "int[]": "std::vector<int64_t>", "SymInt[]": "std::vector<int64_t>"}
    if plain in simple:
        return simple[plain]
    raise Unsupported(returns)


class Argument:
    def __init__(self, text: str, keyword_only: bool) -> None:
        declaration, _, default = text.partition("=")
        self.schema_type, self.name = declaration.strip().rsplit(" ", 1)
        self.has_default = bool(_)
        self.keyword_only = keyword_only
        self.cpp_type = cpp_argument_type(self.schema_type)
        self.is_out = keyword_only and "!" in self.schema_type

    def render(self, with_default: bool) -> str:
        return f"{self.cpp_type} {self.name}" + (" = {}" if with_default and self.has_default else "")


def parse_schema(func: str) -> tuple[str, str, list[Argument], str]:
    match = re.fullmatch(r"([\w.]+)\((.*)\) -> (.*)", func.strip())
    if not match:
        raise Unsupported(func)
    full_name, arguments, returns = match.groups()
    name, _, overload = full_name.partition(".")
    parsed, keyword_only = [], False
    for text in _split_args(arguments):
        if text == "*":
            keyword_only = True
            continue
        parsed.append(Argument(text, keyword_only))
    return name, overload, parsed, returns


_OPTIONS = ["dtype", "layout", "device", "pin_memory"]


def _render_list(arguments: list[Argument]) -> str:
    """Parameters with their defaults, except a default followed by a parameter without one (dropped, as torchgen
    does, so that the declaration is valid C++)."""
    rendered, defaults_ok = [], True
    for argument in reversed(arguments):
        defaults_ok = defaults_ok and argument.has_default
        rendered.append(argument.render(defaults_ok))
    return ", ".join(reversed(rendered))


class _Options:
    """Stands for the grouped `at::TensorOptions options = {}` parameter."""
    cpp_type, name, is_out, keyword_only, schema_type = "at::TensorOptions", "options", False, True, "TensorOptions"

    def __init__(self, has_default: bool) -> None:
        self.has_default = has_default

    def render(self, with_default: bool) -> str:
        return "at::TensorOptions options" + (" = {}" if with_default and self.has_default else "")


def signatures(arguments: list[Argument]) -> list[list[Argument]]:
    """The C++ parameter lists of one schema: with dtype/layout/device/pin_memory grouped into TensorOptions
    (and then also unpacked, without defaults), or as they are."""
    names = [argument.name for argument in arguments]
    for start in range(len(names) - 3):
        if names[start:start + 4] == _OPTIONS:
            grouped = arguments[:start] + [_Options(all(a.has_default for a in arguments[start:start + 4]))]
            grouped += arguments[start + 4:]
            unpacked = [_without_default(argument) for argument in arguments]
            return [grouped, unpacked]
    return [arguments]


def _without_default(argument: Argument) -> Argument:
    copy = object.__new__(Argument)
    copy.__dict__.update(argument.__dict__)
    copy.has_default = False
    return copy


def generate(entries: list[dict]) -> tuple[list[str], list[str], int, int]:
    functions: list[str] = []
    methods: list[str] = []
    seen_functions: set[str] = set()
    seen_methods: set[str] = set()
    skipped = 0
    for entry in entries:
        if entry.get("manual_cpp_binding"):
            continue
        try:
            name, overload, arguments, returns = parse_schema(entry["func"])
            for argument in arguments:
                if argument.name in entry.get("cpp_no_default_args", ()):
                    argument.has_default = False
            return_type = cpp_return_type(returns)
        except Unsupported:
            skipped += 1
            continue
        if name.startswith("_"):
            continue
        variants = {v.strip() for v in str(entry.get("variants", "function")).split(",")}
        outs = [a for a in arguments if a.is_out]
        ins = [a for a in arguments if not a.is_out]
        if outs:
            forms = [(f"{name}_out", outs + ins), (f"{name}_outf", [_without_default(a) for a in ins] + outs)]
            if "function" in variants:
                for cpp_name, parameters in forms:
                    _add(functions, seen_functions, return_type, cpp_name, parameters, "")
            continue
        if "function" in variants:
            for generated in str(entry.get("autogen", "")).split(","):  # out= overloads torchgen derives
                out_name, _, out_overload = generated.strip().partition(".")
                if out_name == name and out_overload.endswith("out") and not any("!" in a.schema_type
                                                                                for a in arguments):
                    out_arguments = _autogen_outs(returns)
                    if out_arguments is not None:
                        out_return = ("void" if out_arguments and out_arguments[0].cpp_type == "at::TensorList"
                                      else _out_return(len(out_arguments)))
                        ins = [a for a in arguments]
                        _add(functions, seen_functions, out_return, f"{name}_out", out_arguments + ins, "")
                        _add(functions, seen_functions, out_return, f"{name}_outf",
                             [_without_default(a) for a in ins] + out_arguments, "")
        if "function" in variants and name not in HAND_WRITTEN_FUNCTIONS:
            for parameters in signatures(arguments):
                _add(functions, seen_functions, return_type, name, parameters, "")
        if "method" in variants and name not in HAND_WRITTEN_METHODS:
            self_index = next((i for i, a in enumerate(arguments) if a.name == "self"), None)
            if self_index is None:
                continue
            rest = arguments[:self_index] + arguments[self_index + 1:]
            for parameters in signatures(rest):
                _add(methods, seen_methods, return_type, name, parameters, " const")
    return functions, methods, skipped, len(entries)


def _autogen_outs(returns: str) -> list[Argument] | None:
    """The out arguments of an autogenerated out= overload: `out` for one Tensor, `out0`, `out1`, ... for a tuple of
    them, `out` as a list for Tensor[]; None for other returns."""
    returns = returns.strip()
    if re.fullmatch(r"Tensor(\(\w\))?", returns):
        return [Argument("Tensor(a!) out", True)]
    if re.fullmatch(r"Tensor(\(\w\))?\[\]", returns):
        return [Argument("Tensor(a!)[] out", True)]
    if returns.startswith("("):
        items = _split_args(returns[1:-1])
        if all(re.fullmatch(r"Tensor( \w+)?", item.strip()) for item in items):
            return [Argument(f"Tensor(a{i}!) out{i}", True) for i in range(len(items))]
    return None


def _out_return(count: int) -> str:
    return "at::Tensor&" if count == 1 else "std::tuple<" + ", ".join(["at::Tensor&"] * count) + ">"


def _add(lines: list[str], seen: set[str], return_type: str, name: str, parameters: list, qualifier: str) -> None:
    key = name + "(" + ",".join(p.cpp_type for p in parameters) + ")"
    if key in seen:  # two schemas with the same C++ signature (e.g. differing only in a Dimname overload's types)
        return
    seen.add(key)
    lines.append(f"{return_type} {name}({_render_list(parameters)}){qualifier};")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("yaml", nargs="?", help="native_functions.yaml (default: the installed torch's)")
    parser.add_argument("--torch-version", help="the version to record (default: the installed torch's)")
    args = parser.parse_args()
    version = args.torch_version
    if args.yaml is None or version is None:
        import importlib.metadata
        import importlib.util

        if args.yaml is None:
            spec = importlib.util.find_spec("torchgen")
            if spec is None or spec.origin is None:
                sys.exit("no torchgen installed: pass the path of native_functions.yaml")
            args.yaml = str(Path(spec.origin).parent / "packaged" / "ATen" / "native" / "native_functions.yaml")
        version = version or importlib.metadata.version("torch")
    text = Path(args.yaml).read_text(encoding="utf-8")
    functions, methods, skipped, total = generate(yaml.safe_load(text))
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    origin = (f" * Generated by tools/gen_aten_stubs.py from torch {version}'s native_functions.yaml (sha256 {digest}):\n"
              f" * {total} schemas, {skipped} left out for types the stubs do not model. Do not edit by hand. */\n")
    (STUBS / "aten_functions.h").write_text(
        "#pragma once\n/* cudalint stub: the at:: operator functions (ATen/Functions.h, ATen/ops/*.h).\n" + origin
        + "#pragma clang system_header\nnamespace at {\n" + "\n".join(functions) + "\n}  // namespace at\n",
        encoding="utf-8")
    (STUBS / "aten_tensor_methods.h").write_text(
        "#pragma once\n/* cudalint stub: the at::Tensor operator methods (ATen/core/TensorBody.h), included inside\n"
        " * class Tensor.\n" + origin + "#pragma clang system_header\n" + "\n".join(methods) + "\n", encoding="utf-8")
    print(f"{len(functions)} functions, {len(methods)} methods; {skipped} of {total} schemas left out")


if __name__ == "__main__":
    main()
