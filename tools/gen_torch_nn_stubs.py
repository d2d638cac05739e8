"""Generate cudalint's stub of `torch::nn::functional` from an installed torch's C++ API headers.

    python tools/gen_torch_nn_stubs.py [TORCH_INCLUDE_DIR]

Reads `torch/csrc/api/include/torch/{enum.h,nn/options/*.h,nn/functional/*.h}` under TORCH_INCLUDE_DIR (default:
the installed torch's `include/`) and writes cudalint/frontend/stubs/__cudalint/torch_nn_functional.h with

- the `torch::k...` enum constants (`torch::kReflect`, `torch::kMean`, ...),
- every options struct (`Conv2dFuncOptions`, `LayerNormFuncOptions`, ...) with its real constructors' arity and its
  real `TORCH_ARG` setters and getters, and the `using` aliases that name them (`F::MaxPool2dFuncOptions`),
- every `torch::nn::functional` function with its parameters (tensors and options types as declared).

The names and arities are the real ones; argument types other than tensors and options are loose (`__Arg`, which
takes any value or braced list): generated code is checked for calling what exists, not for every conversion.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "cudalint" / "frontend" / "stubs" / "__cudalint" / "torch_nn_functional.h"


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def split_top(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def matching(text: str, open_index: int, opening: str = "{", closing: str = "}") -> int:
    depth = 0
    for index in range(open_index, len(text)):
        if text[index] == opening:
            depth += 1
        elif text[index] == closing:
            depth -= 1
            if depth == 0:
                return index
    return len(text) - 1


def namespace_chunks(text: str) -> list[tuple[str, str]]:
    """The text split into pieces at namespace scope, each with its namespace path (blocks of structs and functions
    stay inside their piece)."""
    chunks: list[tuple[str, str]] = []
    stack: list[str] = []
    position = index = 0
    while index < len(text):
        match = re.compile(r"namespace\s+([\w:]+)\s*\{|\{|\}").search(text, index)
        if not match:
            break
        if match.group(1):
            chunks.append(("::".join(stack), text[position:match.start()]))
            stack.append(match.group(1))
            position = index = match.end()
        elif match.group(0) == "{":
            index = matching(text, match.start()) + 1
        else:
            chunks.append(("::".join(stack), text[position:match.start()]))
            if stack:
                stack.pop()
            position = index = match.end()
    chunks.append(("::".join(stack), text[position:]))
    return chunks


STRUCT = re.compile(r"(template\s*<[^{;]*?>\s*)?struct\s+(?:TORCH_API\s+)?(\w+)\s*(?::[^{;]*)?\{")
ALIAS = re.compile(r"using\s+(\w+)\s*=\s*([^;]+);")
FUNCTION = re.compile(r"(?:^|[;}\s])inline\s+([\w:<>, ]+?)\s+(\w+)\s*\(")


def parse_options(text: str, namespace: str, known: set[str], out: list[tuple[str, str]]) -> None:
    items: list[tuple[int, str]] = []
    for match in STRUCT.finditer(text):
        template, name = match.group(1), match.group(2)
        body_end = matching(text, match.end() - 1)
        body = text[match.end():body_end]
        fields = re.findall(r"TORCH_ARG\((.+?),\s*(\w+)\)\s*(?:=|;)", body)
        constructors = []
        for ctor in re.finditer(r"(?:explicit\s+)?\b" + name + r"\s*\(", body):
            close = matching(body, ctor.end() - 1, "(", ")")
            parameters = split_top(body[ctor.end():close])
            if parameters == ["const " + name + "&"] or any(name in p for p in parameters):
                continue
            rendered = ", ".join("__Arg" + (" = {}" if "=" in p else "") for p in parameters)
            constructors.append(f"  {name}({rendered});")
        if not constructors:
            constructors.append(f"  {name}();")
        lines = [(template or "") + f"struct {name} {{"] + sorted(set(constructors), key=constructors.index)
        for _, field in fields:
            lines.append(f"  {name}& {field}(const __Arg& value);")
            lines.append(f"  const __Arg& {field}() const noexcept;")
        lines.append("};")
        known.add(name)
        items.append((match.start(), "\n".join(lines)))
    for match in ALIAS.finditer(text):
        name, target = match.group(1), " ".join(match.group(2).split())
        head = re.match(r"(\w+)", target)
        if head and head.group(1) in known and re.fullmatch(r"\w+(<[\w<>, ]*>)?", target):
            known.add(name)
            items.append((match.start(), f"using {name} = {target};"))
    for _, item in sorted(items):
        out.append((namespace, item))


def _parameter(text: str, options: set[str]) -> str:
    declaration, equals, _ = text.partition("=")
    declaration = " ".join(declaration.split())
    kind, _, name = declaration.rpartition(" ")
    base = kind.replace("const ", "").replace("&", "").strip()
    tail = base.split("::")[-1]
    if tail == "Tensor":
        rendered = "const at::Tensor&" if "&" not in kind or "const" in kind else "at::Tensor&"
    elif tail in options:
        rendered = f"const {base}&"
    else:
        rendered = "const __Arg&"
    return f"{rendered} {name}" + (" = {}" if equals else "")


def parse_functions(text: str, options: set[str], out: list[str], seen: set[str]) -> None:
    for match in FUNCTION.finditer(text):
        returns, name = " ".join(match.group(1).split()), match.group(2)
        close = matching(text, match.end() - 1, "(", ")")
        parameters = [_parameter(p, options) for p in split_top(text[match.end():close])]
        returns = returns if returns in ("Tensor", "std::tuple<Tensor, Tensor>") else "__Arg"
        declaration = f"{returns} {name}({', '.join(parameters)});"
        if declaration not in seen:
            seen.add(declaration)
            out.append(declaration)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("include", nargs="?", help="torch's include/ directory (default: the installed torch's)")
    parser.add_argument("--torch-version", help="the version to record (default: the installed torch's)")
    args = parser.parse_args()
    version = args.torch_version
    if args.include is None or version is None:
        import importlib.metadata
        import importlib.util

        if args.include is None:
            spec = importlib.util.find_spec("torch")
            if spec is None or spec.origin is None:
                sys.exit("no torch installed: pass its include/ directory")
            args.include = str(Path(spec.origin).parent / "include")
        version = version or importlib.metadata.version("torch")
    api = Path(args.include) / "torch" / "csrc" / "api" / "include" / "torch"
    enums = re.findall(r"^TORCH_ENUM_DECLARE\((\w+)\)", (api / "enum.h").read_text(), re.M)
    known: set[str] = set()
    structs: list[tuple[str, str]] = []
    for path in sorted((api / "nn" / "options").glob("*.h")):
        for namespace, chunk in namespace_chunks(strip_comments(path.read_text())):
            if namespace.startswith("torch::nn"):
                parse_options(chunk, namespace, known, structs)
    functions: list[str] = []
    seen: set[str] = set()
    for path in sorted((api / "nn" / "functional").glob("*.h")):
        for namespace, chunk in namespace_chunks(strip_comments(path.read_text())):
            if namespace == "torch::nn::functional":
                parse_functions(chunk, known, functions, seen)
    lines = ["#pragma once",
             "/* cudalint stub: torch::nn::functional and its options (torch/nn/functional.h, torch/nn/options.h).",
             f" * Generated by tools/gen_torch_nn_stubs.py from torch {version}'s headers: {len(enums)} enum constants,",
             f" * {len(structs)} options structs and aliases, {len(functions)} functions. Do not edit by hand. */",
             "#pragma clang system_header",
             "namespace torch {",
             "namespace enumtype {"]
    lines += [f"struct k{name} {{ k{name}() {{}} }};" for name in enums]
    lines += ["}  // namespace enumtype"]
    lines += [f"extern const enumtype::k{name} k{name};" for name in enums]
    lines += ["template <size_t D, class T = int64_t> struct ExpandingArray {",
              "  ExpandingArray(std::initializer_list<T> list);", "  ExpandingArray(std::vector<T> list);",
              "  ExpandingArray(at::ArrayRef<T> list);", "  ExpandingArray(T single_size);",
              "  const T* data() const;", "  size_t size() const;", "  const T& operator[](size_t index) const;", "};",
              "template <size_t D, class T = int64_t> struct ExpandingArrayWithOptionalElem : ExpandingArray<D, std::optional<T>> {",
              "  using ExpandingArray<D, std::optional<T>>::ExpandingArray;", "};",
              "namespace nn {",
              "/* any argument of an option or a function other than a tensor or an options struct */",
              "struct __Arg {", "  __Arg();", "  template <class T> __Arg(const T& value);",
              "  template <class T> __Arg(std::initializer_list<T> values);", "  template <class T> operator T() const;",
              "};"]
    current = "torch::nn"
    for namespace, item in structs:
        if namespace != current:
            if current != "torch::nn":
                lines.append("}")
            if namespace != "torch::nn":
                lines.append(f"namespace {namespace[len('torch::nn::'):]} {{")
            current = namespace
        lines.append(item)
    if current != "torch::nn":
        lines.append("}")
    lines += ["namespace functional {"] + functions + ["}  // namespace functional", "}  // namespace nn",
                                                       "}  // namespace torch", ""]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"{len(enums)} enums, {len(structs)} options items, {len(functions)} functions")


if __name__ == "__main__":
    main()
