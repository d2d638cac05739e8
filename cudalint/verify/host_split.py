"""The host-split build of a CUDA unit: its host code compiled by g++ as a unit of its own, its kernels alone.

A KernelBench-style CUDA unit is a few kernels and a host wrapper that takes `torch::Tensor`s and launches
them. nvcc spends nearly all of such a unit's build on the tensor headers, in four passes (preprocessing,
cudafe++, cicc, the host compiler), and it has no precompiled headers. Only the wrapper needs them. The
split moves the wrapper (every host function and host variable) into a C++ unit of its own, which the
worker builds after the torch header the CUDA unit had (`<torch/extension.h>` precompiled, or
`<torch/types.h>`), and rewrites each launch `k<<<g, b, s, t>>>(args)` there into
`(cudalint_configure_launch(g, b, s, t), cudalint_launch_k(args))`: the configuration evaluated first, as
nvcc orders a launch, then a launcher defined in the CUDA unit with `k`'s own parameters. The CUDA unit
keeps the kernels, device functions and variables, types, constants and macros, with the CUDA runtime
headers and the standard library in place of torch's; the host unit gets the types, constants and inline
host-device functions it names.

The split refuses (`NotSplittable`, with the reason) whatever it cannot carry over unchanged: torch names
in device code, templated or overloaded kernels, a kernel named other than in a launch, host code that
names a device function or variable, tests `__CUDACC__` or calls the host math nvcc declares (`min`,
`rsqrtf`), top-level conditional compilation or a macro changed inside a body, namespaces, `extern "C"`,
and text the preprocessor would read otherwise than this tokenizer (a lone carriage return, a `//` comment
continued by a backslash, a directive after a comment). The worker then builds the unit another way, and
any build of the split that fails is rebuilt as written, so a refusal or a miss costs time, never a verdict.

Both units keep the source's line numbers: what moves out of a unit is blanked there, line for line; the
launchers come after the last line of the CUDA unit, the host unit's preamble before its first.

Standard library only: the worker (`worker.py`, run as a script) imports it from beside itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

LAUNCHER_PREFIX = "cudalint_launch_"
# what the CUDA unit gets in place of torch's headers: the CUDA runtime, the half types torch's headers
# bring under nvcc, and the standard library a device function may use without including it
DEVICE_PREAMBLE_HEADERS = ("cuda.h", "cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cfloat", "climits",
                           "cmath", "cstdint", "cstdio", "cstdlib", "cstring", "algorithm", "limits",
                           "type_traits", "utility")
# what the host unit gets after its torch header: what load_inline and torch's headers give host code under nvcc
HOST_PREAMBLE_HEADERS = ("cuda.h", "cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cassert")

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<raw>(?:u8|u|U|L)?R"(?P<delimiter>[^()\\\s]{0,16})\()
  | (?P<string>(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*")
  | (?P<char>(?:u8|u|U|L)?'(?:\\.|[^'\\\n])+')
  | (?P<id>[A-Za-z_]\w*)
  | (?P<number>\.?\d(?:[eEpP][+-]|[\w.'])*)
  | (?P<punct>::|->|\.\.\.|.)
""", re.DOTALL | re.VERBOSE)
_DIRECTIVE = re.compile(r"\#(?:\\\r?\n|[^\n])*")

_TORCH_INCLUDE = re.compile(r'#\s*include\s*[<"](?:torch|ATen|c10|pybind11|caffe2)/')
# headers g++ can take in the host part: the C++ library's, C's, and the CUDA host APIs' (not device libraries:
# cub, cooperative groups, mma, curand_kernel, cuda_pipeline, ...)
_HOST_SAFE_INCLUDE = re.compile(
    r'#\s*include\s*<(?:[a-z_]+|(?:assert|ctype|errno|float|limits|math|stdint|stddef|stdio|stdlib|string|time)\.h|'
    r'(?:cuda|cuda_runtime|cuda_runtime_api|cuda_fp16|cuda_bf16|cuda_fp8|driver_types|vector_types|cublas_v2|cublas|'
    r'cublasLt|cusparse|curand|cufft|cudnn)\.h)>')
_DEVICE_QUALIFIERS = frozenset({"__global__", "__device__", "__constant__", "__shared__", "__managed__"})
_ATTRIBUTE_WORDS = frozenset({"__launch_bounds__", "__attribute__", "alignas", "__align__", "__declspec",
                              "decltype", "__cluster_dims__", "__maxnreg__"})
_CLASS_WORDS = frozenset({"struct", "class", "union", "enum"})
_QUALIFIER_WORDS = frozenset({"const", "volatile", "__restrict__", "__restrict", "restrict", "struct", "class",
                              "enum", "union", "typename"})
_BUILTIN_TYPES = frozenset({"void", "bool", "char", "short", "int", "long", "float", "double", "signed",
                            "unsigned", "wchar_t", "char16_t", "char32_t", "auto"})
# what says code needs torch's headers: its namespaces (at::Half) and macros (C10_WARP_SIZE, TORCH_CHECK, ...)
_TORCH_NAMESPACES = frozenset({"torch", "at", "c10", "caffe2", "pybind11", "py"})
_TORCH_MACRO = re.compile(r"(?:AT|C10|TORCH)_[A-Z_0-9]+$")
# host code that tests the compiler (g++ is not nvcc) or uses a library only nvcc can compile
_NVCC_ONLY_NAMES = frozenset({"__CUDACC__", "__CUDA_ARCH__", "__NVCC__", "__CUDACC_VER_MAJOR__", "thrust", "cub",
                              "cooperative_groups", "nvcuda"})


# functions of CUDA's math API that nvcc declares for host code too, and g++'s libraries do not
_NVCC_HOST_FUNCTIONS = frozenset({
    "min", "max", "umin", "umax", "llmin", "llmax", "rsqrt", "rsqrtf", "rcbrt", "rcbrtf", "sinpi", "sinpif", "cospi",
    "cospif", "sincospi", "sincospif", "erfinv", "erfinvf", "erfcinv", "erfcinvf", "erfcx", "erfcxf", "normcdf",
    "normcdff", "normcdfinv", "normcdfinvf", "rhypot", "rhypotf", "norm3d", "norm3df", "norm4d", "norm4df", "rnorm3d",
    "rnorm3df", "rnorm4d", "rnorm4df", "fdividef", "saturate"})


class NotSplittable(Exception):
    """The unit has something the split cannot carry over unchanged (the message says what)."""


@dataclass(frozen=True)
class Token:
    kind: str  # id, number, string, char, raw, pp, punct
    text: str
    start: int
    end: int


@dataclass
class Item:
    """One top-level declaration or directive of the unit: `tokens[first:last]` of the whole unit."""
    first: int
    last: int
    kind: str  # pp, kernel, device, host_device, device_variable, host, host_variable, type, constant, using
    name: str | None = None
    names: set[str] = field(default_factory=set)  # every identifier it names
    template: bool = False
    parameters: tuple[int, int] | None = None  # a function's parameter tokens (between its parentheses)
    definition: bool = False  # a function with its body (not a prototype)


@dataclass(frozen=True)
class HostSplit:
    device_sources: list[str]  # the CUDA unit, one string per source string it was given (lines kept)
    device_preamble: str  # headers for the CUDA unit, passed as its own first source string
    host_source: str  # the host part: a C++ unit of its own after torch's header (its lines after the preamble)


def tokenize(text: str) -> list[Token]:
    """The unit's tokens, comments left out. What would make these tokens differ from the preprocessor's
    is refused: a lone carriage return (a line end for gcc), a `//` comment continued by a backslash, a
    directive after a comment on its line."""
    if re.search(r"\r(?!\n)", text):
        raise NotSplittable("a lone carriage return")
    tokens, position, line_clean, after_comment = [], 0, True, False
    while position < len(text):
        if text[position] == "#":
            if line_clean and not after_comment:
                match = _DIRECTIVE.match(text, position)
                tokens.append(Token("pp", match.group(), position, match.end()))
                position, line_clean = match.end(), False
                continue
            if line_clean:
                raise NotSplittable("a directive after a comment on its line")
        match = _TOKEN.match(text, position)  # always matches: any character is at least a punctuator
        kind, start, position = match.lastgroup, match.start(), match.end()
        if kind == "space":
            if "\n" in match.group():
                line_clean, after_comment = True, False
            continue
        if kind == "comment":
            if match.group().startswith("//") and match.group().rstrip().endswith("\\"):
                raise NotSplittable("a // comment continued on the next line")
            after_comment = after_comment or line_clean
            continue
        line_clean = False
        if kind in ("raw", "delimiter"):  # find the raw string's end at once: no backtracking over the text
            close = text.find(f"){match.group('delimiter')}\"", position)
            if close < 0:
                raise NotSplittable("an unterminated raw string")
            kind, position = "raw", close + len(match.group("delimiter")) + 2
        tokens.append(Token(kind, text[start:position], start, position))
    return tokens


def _matching(tokens: list[Token], index: int, opening: str, closing: str) -> int:
    """The index of the token that closes `tokens[index]` (an `opening`), counting only those two."""
    depth = 0
    for position in range(index, len(tokens)):
        text = tokens[position].text
        if text == opening:
            depth += 1
        elif text == closing:
            depth -= 1
            if depth == 0:
                return position
    raise NotSplittable(f"unbalanced {opening!r} at offset {tokens[index].start}")


_CLOSING = {"(": ")", "[": "]", "{": "}"}


def _skip_group(tokens: list[Token], index: int) -> int:
    """The index after the bracketed group that starts at `index`."""
    return _matching(tokens, index, tokens[index].text, _CLOSING[tokens[index].text]) + 1


def _template_end(tokens: list[Token], index: int) -> int:
    """The index after `template <...>` starting at `index` (`tokens[index]` is `template`)."""
    if index + 1 >= len(tokens) or tokens[index + 1].text != "<":
        raise NotSplittable("a template without its parameter list")
    for position, angle in _outside_groups(tokens, index + 1, len(tokens)):
        if tokens[position].text == ">" and angle == 1:
            return position + 1
    raise NotSplittable("an unterminated template parameter list")


def _outside_groups(tokens: list[Token], first: int, last: int):
    """(index, angle-bracket depth before it) of each token of `tokens[first:last]` outside (), [] and {}."""
    position, angle = first, 0
    while position < last:
        text = tokens[position].text
        if text in _CLOSING:
            position = _skip_group(tokens, position)
            continue
        yield position, angle
        angle += (text == "<") - (text == ">")
        position += 1


def parse_items(tokens: list[Token]) -> list[Item]:
    """The unit's top-level declarations and directives, classified (see `Item.kind`)."""
    items, index = [], 0
    while index < len(tokens):
        token = tokens[index]
        if token.kind == "pp":
            items.append(_directive(token, index))
            index += 1
            continue
        if token.text == ";":
            index += 1
            continue
        if token.text == "namespace":  # (`using namespace` starts with `using`)
            raise NotSplittable("a namespace")
        if token.text == "extern" and index + 1 < len(tokens) and tokens[index + 1].kind == "string":
            raise NotSplittable('an extern "C" block')
        end = _declaration_end(tokens, index)
        for inner in tokens[index:end]:  # a macro changed inside a body would change it in one unit only
            if inner.kind == "pp" and _directive_word(inner) in ("define", "undef", "include"):
                raise NotSplittable(f"#{_directive_word(inner)} inside a declaration")
        items.append(_classify(tokens, index, end))
        index = end
    return items


def _directive_word(token: Token) -> str:
    words = token.text[1:].split(None, 1)
    return words[0] if words else ""


def _directive_names(token: Token) -> set[str]:
    """The identifiers of a directive (a macro's name and body, a condition's names)."""
    return set(re.findall(r"[A-Za-z_]\w*", token.text[1:]))


def _directive(token: Token, index: int) -> Item:
    directive = _directive_word(token)
    if directive in ("if", "ifdef", "ifndef", "elif", "else", "endif", "error", "line"):
        raise NotSplittable(f"top-level #{directive}")
    name = None
    if directive in ("define", "undef"):
        defined = re.match(r"\s*#\s*(?:define|undef)\s+([A-Za-z_]\w*)", token.text)
        name = defined.group(1) if defined else None
    return Item(index, index + 1, "pp", name, _directive_names(token))


def _declaration_end(tokens: list[Token], index: int) -> int:
    """The index after the declaration starting at `index`: after its `;`, or after a function's body."""
    position, head_class, initializer, call = index, False, False, False
    while position < len(tokens):
        text = tokens[position].text
        if tokens[position].kind == "pp":
            raise NotSplittable("a directive inside a top-level declaration's head")
        if text == ";":
            return position + 1
        if text in _CLASS_WORDS or text == "typedef":
            head_class = True
        elif text == "=":
            initializer = True
        elif text == "template":
            position = _template_end(tokens, position)
            continue
        if text in ("(", "["):
            # a parameter list (not an attribute's arguments: `struct __align__(16) S {...};`)
            call = call or text == "(" and position > index and tokens[position - 1].text not in _ATTRIBUTE_WORDS
            position = _skip_group(tokens, position)
            continue
        if text == "{":
            close = _skip_group(tokens, position)
            if initializer or head_class and not call:  # a class body or an initializer: on to the `;`
                position = close
                continue
            return close  # a function body (`struct S make() {...}` too)
        position += 1
    raise NotSplittable("a declaration without its end")


def _classify(tokens: list[Token], first: int, last: int) -> Item:
    position, template = first, False
    while position < last and tokens[position].text == "template":
        position, template = _template_end(tokens, position), True
    names = {t.text for t in tokens[first:last] if t.kind == "id"}
    head = tokens[position].text
    if head == "using":
        if position + 1 < last and tokens[position + 1].text == "namespace":
            return Item(first, last, "using", None, names)
        name = tokens[position + 1].text if position + 1 < last else None
        return Item(first, last, "type", name, names, template)
    if head == "static_assert":
        return Item(first, last, "constant", None, names)
    words, body, name, parameters, definition = [], None, None, None, False
    scan = position
    while scan < last:
        token = tokens[scan]
        if token.text in _ATTRIBUTE_WORDS and scan + 1 < last and tokens[scan + 1].text == "(":
            words.append(token.text)
            scan = _skip_group(tokens, scan + 1)
            continue
        if token.text == "(" and name is None and body is None:
            previous = tokens[scan - 1] if scan > position else None
            close = _skip_group(tokens, scan)
            if previous is not None and previous.kind == "id" and previous.text not in _ATTRIBUTE_WORDS:
                name, parameters = previous.text, (scan + 1, close - 1)
                definition = any(t.text == "{" for t in tokens[close:last])
            scan = close
            continue
        if token.text in ("=", "{", "["):
            body = scan
            break
        if token.kind == "id":
            words.append(token.text)
        scan += 1
    if "typedef" in words or words and words[0] in _CLASS_WORDS and parameters is None:
        type_name = _type_name(tokens, first, last, words)
        return Item(first, last, "type", type_name, names, template)
    qualifiers = _DEVICE_QUALIFIERS.intersection(words)
    if parameters is not None:
        if "__global__" in qualifiers:
            kind = "kernel"
        elif "__device__" in qualifiers:
            kind = "host_device" if "__host__" in words else "device"
        else:
            kind = "host"
        return Item(first, last, kind, name, names, template, parameters, definition)
    declarator = [t.text for t in tokens[position:body if body is not None else last] if t.kind == "id"]
    variable = declarator[-1] if declarator else None
    if qualifiers:
        return Item(first, last, "device_variable", variable, names, template)
    if "constexpr" in words or "const" in words[:2] or words[:2] == ["static", "const"]:
        return Item(first, last, "constant", variable, names, template)
    return Item(first, last, "host_variable", variable, names, template)


def _type_name(tokens: list[Token], first: int, last: int, words: list[str]) -> str | None:
    if "typedef" in words:
        ids = [t.text for t in tokens[first:last] if t.kind == "id"]
        return ids[-1] if ids else None
    for position in range(first, last):
        if tokens[position].text in _CLASS_WORDS:
            scan = position + 1
            while scan < last and tokens[scan].text in _ATTRIBUTE_WORDS and scan + 1 < last \
                    and tokens[scan + 1].text == "(":
                scan = _skip_group(tokens, scan + 1)
            return tokens[scan].text if scan < last and tokens[scan].kind == "id" else None
    return None


@dataclass(frozen=True)
class Launch:
    start: int  # token index of the kernel's name (or of the `::` before it)
    open_paren: int  # token index of the `(` of the launch's arguments
    kernel: str
    config: tuple[tuple[int, int], ...]  # token ranges of the launch configuration's 2-4 expressions
    empty_arguments: bool


def _launches(tokens: list[Token], first: int, last: int) -> list[Launch]:
    """The `k<<<...>>>(...)` launches in `tokens[first:last]`."""
    found, position = [], first
    while position + 2 < last:
        if not _adjacent(tokens, position, "<"):
            position += 1
            continue
        start = position - 1
        if start < first or tokens[start].kind != "id":
            raise NotSplittable("a launch of something other than a named kernel (a template or a pointer)")
        kernel = tokens[start].text
        if start - 1 >= first and tokens[start - 1].text == "::":
            if start - 2 >= first and tokens[start - 2].kind == "id":
                raise NotSplittable(f"a launch of a qualified name ({tokens[start - 2].text}::{kernel})")
            start -= 1  # `::k<<<...>>>`
        config, begin, scan = [], position + 3, position + 3
        while scan < last:
            text = tokens[scan].text
            if text in _CLOSING:
                scan = _skip_group(tokens, scan)
                continue
            if _adjacent(tokens, scan, ">"):
                break
            if text == ",":
                config.append((begin, scan))
                begin = scan + 1
            scan += 1
        else:
            raise NotSplittable("a launch configuration without its >>>")
        config.append((begin, scan))
        open_paren = scan + 3
        if open_paren >= last or tokens[open_paren].text != "(" or not 2 <= len(config) <= 4:
            raise NotSplittable(f"a launch of {kernel} this split cannot read")
        if any(begin == end for begin, end in config):
            raise NotSplittable(f"an empty launch configuration expression for {kernel}")
        empty = tokens[open_paren + 1].text == ")"
        found.append(Launch(start, open_paren, kernel, tuple(config), empty))
        position = _skip_group(tokens, open_paren)
    return found


def _adjacent(tokens: list[Token], position: int, char: str) -> bool:
    """Three `char` tokens with nothing between them from `position` (`<<<` or `>>>`)."""
    if position + 2 >= len(tokens):
        return False
    run = tokens[position:position + 3]
    return all(t.text == char for t in run) and run[0].end == run[1].start and run[1].end == run[2].start


@dataclass(frozen=True)
class Parameter:
    text: str  # as declared, without a default value
    default: str  # ` = value` or ""
    name: str  # its own name, or one given here


def _parameters(text: str, tokens: list[Token], span: tuple[int, int], kernel: str) -> list[Parameter]:
    first, last = span
    if first >= last or (last - first == 1 and tokens[first].text == "void"):
        return []
    groups, begin = [], first
    for position, angle in _outside_groups(tokens, first, last):
        value = tokens[position].text
        if value == "," and angle == 0:
            groups.append((begin, position))
            begin = position + 1
        elif value == "...":
            raise NotSplittable(f"variadic parameters of {kernel}")
    groups.append((begin, last))
    parameters = []
    for number, (begin, end) in enumerate(groups):
        equals = next((p for p in range(begin, end) if tokens[p].text == "="), end)
        declared = tokens[begin:equals]
        if any(t.text == "(" for t in declared):
            raise NotSplittable(f"a function-pointer parameter of {kernel}")
        bracket = next((p for p, t in enumerate(declared) if t.text == "["), len(declared))
        head = declared[:bracket]
        typed = [t for t in head if t.kind == "id" and t.text not in _QUALIFIER_WORDS]
        named = (len(head) >= 2 and head[-1].kind == "id" and head[-1].text not in _QUALIFIER_WORDS
                 and head[-1].text not in _BUILTIN_TYPES and len(typed) >= 2
                 or len(head) >= 2 and head[-1].kind == "id" and head[-1].text not in _QUALIFIER_WORDS
                 and head[-1].text not in _BUILTIN_TYPES and head[-2].text in ("*", "&"))
        declaration = text[tokens[begin].start:tokens[equals - 1].end]
        default = text[tokens[equals - 1].end:tokens[end - 1].end] if equals < end else ""
        if named:
            name = head[-1].text
        else:
            name = f"cudalint_argument_{number}"
            if bracket < len(declared):
                raise NotSplittable(f"an unnamed array parameter of {kernel}")
            declaration = f"{declaration} {name}"
        parameters.append(Parameter(declaration, default, name))
    return parameters


def _blank(text: str) -> str:
    """`text` with everything but its line breaks as spaces: what moved out keeps its lines."""
    return re.sub(r"[^\n]", " ", text)


def split_host_code(cuda_sources: list[str], host_macros: tuple[str, ...] = ()) -> HostSplit:
    """The split of a CUDA unit (`load_inline`'s `cuda_sources`, joined as load_inline joins them).
    `host_macros` (`#define`/`#undef` lines: what nvcc's `-D`/`-U` flags gave the host pass) open the host
    part, before the CUDA headers they may change (`__CUDA_NO_HALF_OPERATORS__`) and `<cassert>`, which
    follows `NDEBUG` each time it is included."""
    joined = "\n".join(cuda_sources)
    tokens = tokenize(joined)
    items = parse_items(tokens)
    by_name: dict[str, list[Item]] = {}
    for item in items:
        if item.name:
            by_name.setdefault(item.name, []).append(item)

    # host code, torch's headers, and declarations that name torch (`using namespace torch;`) move out
    host_only = {number for number, item in enumerate(items)
                 if item.kind in ("host", "host_variable")
                 or item.kind == "pp" and _TORCH_INCLUDE.match(tokens[item.first].text)
                 or item.kind in ("using", "type", "constant") and _names_torch(tokens[item.first:item.last])
                 or item.kind == "using" and item.names & _TORCH_NAMESPACES}
    host_items = [item for item in items if item.kind in ("host", "host_variable")]
    device_only = {item.name for item in items if item.kind in ("kernel", "device", "device_variable") and item.name}
    kernels = {item.name: item for item in items if item.kind == "kernel" and item.definition}
    launches = [launch for item in host_items for launch in _launches(tokens, item.first, item.last)]
    if not launches:
        raise NotSplittable("no kernel launch in host code")
    for launch in launches:
        definitions = [i for i in by_name.get(launch.kernel, []) if i.kind == "kernel"]
        if launch.kernel not in kernels or len([i for i in definitions if i.definition]) != 1:
            raise NotSplittable(f"{launch.kernel} is not one kernel defined in the unit")
        if kernels[launch.kernel].template:
            raise NotSplittable(f"{launch.kernel} is a template")

    # the shared declarations the host part needs (types, constants, host-device functions), transitively
    launch_tokens = {launch.start + (tokens[launch.start].text == "::") for launch in launches}
    wanted = [name for item in host_items for name in _names(tokens, item, launch_tokens)]
    for kernel in {launch.kernel for launch in launches}:
        first, last = kernels[kernel].parameters
        wanted.extend(t.text for t in tokens[first:last] if t.kind == "id")
    shareable: dict[str, list[int]] = {}
    for number, item in enumerate(items):
        if item.kind in ("type", "constant", "host_device") and item.name and number not in host_only:
            shareable.setdefault(item.name, []).append(number)
    host_shared: set[int] = set()
    host_names = {name for item in host_items for name in _names(tokens, item, launch_tokens)}
    seen: set[str] = set()
    while wanted:
        name = wanted.pop()
        if name in seen:
            continue
        seen.add(name)
        for number in shareable.get(name, ()):
            item = items[number]
            if item.kind == "host_device" and not _inline(tokens, item):
                raise NotSplittable(f"host code calls {item.name}, a __host__ __device__ function with external "
                                    f"linkage (it would be defined twice)")
            host_shared.add(number)
            names = _names(tokens, item)
            host_names.update(names)
            wanted.extend(names)

    # what g++ compiles of it, once its launches are calls: nothing the CUDA unit alone has, nothing of nvcc's
    named_device = sorted(host_names & device_only)
    if named_device:
        raise NotSplittable(f"host code names {named_device[0]}, which only the CUDA unit has")
    nvcc_only = sorted(host_names & _NVCC_ONLY_NAMES)
    if nvcc_only:
        raise NotSplittable(f"host code uses {nvcc_only[0]}, which g++ does not give it")
    for item in [*host_items, *(items[number] for number in host_shared)]:
        for position in range(item.first + 1, item.last - 1):
            token = tokens[position]
            if token.text in _NVCC_HOST_FUNCTIONS and tokens[position + 1].text == "(" \
                    and tokens[position - 1].text not in ("::", ".", "->"):
                raise NotSplittable(f"host code calls {token.text}(), which nvcc declares for it and g++ does not")

    # what stays in the CUDA unit may not need torch: a torch namespace, macro, or a macro of the unit's own
    # that expands to one (`CHECK_CUDA(x)` defined there and used only in host code moves out harmlessly)
    torch_macros = {item.name for item in items
                    if item.kind == "pp" and item.name and _names_torch(tokenize(tokens[item.first].text[1:]))}
    device_names = set()
    for number, item in enumerate(items):
        if number in host_only or item.kind == "pp":
            continue
        named = tokens[item.first:item.last]
        if _names_torch(named) or torch_macros.intersection(t.text for t in named):
            raise NotSplittable(f"device code needs torch's headers ({item.name or 'a declaration'})")
        device_names.update(item.names)
    host_defined = {items[number].name for number in host_only if items[number].name}
    used_host = sorted(host_defined & device_names)
    if used_host:
        raise NotSplittable(f"the CUDA unit names {used_host[0]}, which moves to the host part")

    launched = sorted({launch.kernel for launch in launches})
    signatures = {kernel: _parameters(joined, tokens, kernels[kernel].parameters, kernel) for kernel in launched}
    device_text, host_text = _units(joined, tokens, items, host_only, host_shared, signatures, launches)
    launchers = _CONFIGURATION + "".join(_launcher_definition(kernel, signatures[kernel]) for kernel in launched)
    device_sources = _parts_like(device_text, cuda_sources)
    device_sources[-1] += "\n" + launchers
    preamble = "".join(f"#include <{header}>\n" for header in DEVICE_PREAMBLE_HEADERS)
    host = ("".join(f"{line}\n" for line in host_macros)
            + "".join(f"#include <{header}>\n" for header in HOST_PREAMBLE_HEADERS) + _CONFIGURE_DECLARATION
            + host_text + "\n")
    return HostSplit(device_sources, preamble, host)


def _names(tokens: list[Token], item: Item, skipped: set[int] = frozenset()) -> list[str]:
    """The identifiers an item names (those of its directives too), less the tokens at `skipped`."""
    names = []
    for position in range(item.first, item.last):
        token = tokens[position]
        if token.kind == "id" and position not in skipped:
            names.append(token.text)
        elif token.kind == "pp":
            names.extend(_directive_names(token))
    return names


def _names_torch(tokens: list[Token]) -> bool:
    """Whether `tokens` name a torch namespace (`at::`, `c10::`, ...) or macro (`TORCH_CHECK`, `AT_DISPATCH_*`)."""
    for position, token in enumerate(tokens):
        if token.kind != "id":
            continue
        if _TORCH_MACRO.match(token.text) or token.text in _TORCH_NAMESPACES and position + 1 < len(tokens) \
                and tokens[position + 1].text == "::":
            return True
    return False


def _inline(tokens: list[Token], item: Item) -> bool:
    words = {t.text for t in tokens[item.first:item.last] if t.kind == "id"}
    return item.template or bool(words & {"inline", "__inline__", "__forceinline__", "static", "constexpr"})


def _units(joined: str, tokens: list[Token], items: list[Item], host_only: set[int], host_shared: set[int],
           signatures: dict, launches: list[Launch]) -> tuple[str, str]:
    """The CUDA unit's text and the host part's, both with the joined source's lines."""
    device, host, cursor = [], [], 0
    by_start = {launch.start: launch for launch in launches}
    for number, item in enumerate(items):
        start, end = tokens[item.first].start, tokens[item.last - 1].end
        between = joined[cursor:start]  # comments and blank space: kept in the CUDA unit, blanked in the host part
        device.append(between)
        host.append(_blank(between))
        text = joined[start:end]
        if number in host_only:
            device.append(_blank(text))
            host.append(_rewritten(joined, tokens, item, by_start))
        elif item.kind == "pp":
            device.append(text)
            is_include = tokens[item.first].text[1:].lstrip().startswith("include")
            host.append(text if not is_include or _HOST_SAFE_INCLUDE.match(tokens[item.first].text) else _blank(text))
        elif item.kind == "using" or number in host_shared:
            device.append(text)
            host.append(text)
        elif item.kind == "kernel" and item.definition and item.name in signatures:
            device.append(text)
            declaration = _launcher_declaration(item.name, signatures[item.name])
            lines = text.count("\n")
            host.append(declaration + "\n" * lines)
        else:
            device.append(text)
            host.append(_blank(text))
        cursor = end
    device.append(joined[cursor:])
    host.append(_blank(joined[cursor:]))
    return "".join(device), "".join(host)


def _rewritten(joined: str, tokens: list[Token], item: Item, by_start: dict) -> str:
    """A host item's text with its launches as launcher calls (each line where it was)."""
    pieces, cursor = [], tokens[item.first].start
    position = item.first
    while position < item.last:
        launch = by_start.get(position)
        if launch is None:
            position += 1
            continue
        start, paren_end = tokens[launch.start].start, tokens[launch.open_paren].end
        pieces.append(joined[cursor:start])
        config = [joined[tokens[a].start:tokens[b - 1].end] for a, b in launch.config]
        config += ["0", "0"][len(config) - 2:]
        # nvcc evaluates the configuration before the arguments: the comma operator keeps that order
        call = (f"({CONFIGURE}(" + ", ".join(f"({value})" for value in config) + f"), "
                f"::{LAUNCHER_PREFIX}{launch.kernel}(")
        pieces.append(call + "\n" * joined.count("\n", start, paren_end))
        close = _skip_group(tokens, launch.open_paren) - 1
        pieces.append(joined[paren_end:tokens[close].end] + ")")
        cursor = tokens[close].end
        position = close + 1
    pieces.append(joined[cursor:tokens[item.last - 1].end])
    return "".join(pieces)


CONFIGURE = "::cudalint_configure_launch"
_CONFIGURE_DECLARATION = (f"void {CONFIGURE[2:]}(dim3 grid, dim3 block, size_t shared_bytes = 0, "
                          f"cudaStream_t stream = 0);\n")
# the configuration a launch set, for the launcher that follows it on the same thread
_CONFIGURATION = (
    "static thread_local dim3 cudalint_grid, cudalint_block;\n"
    "static thread_local size_t cudalint_shared_bytes;\n"
    "static thread_local cudaStream_t cudalint_stream;\n"
    f"void {CONFIGURE[2:]}(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream) {{\n"
    "  cudalint_grid = grid; cudalint_block = block; cudalint_shared_bytes = shared_bytes; cudalint_stream = stream;\n"
    "}\n")


def _launcher_declaration(kernel: str, parameters: list[Parameter]) -> str:
    listed = ", ".join(p.text + p.default for p in parameters)
    return f"void {LAUNCHER_PREFIX}{kernel}({listed});"


def _launcher_definition(kernel: str, parameters: list[Parameter]) -> str:
    listed = ", ".join(p.text for p in parameters)
    arguments = ", ".join(p.name for p in parameters)
    return (f"void {LAUNCHER_PREFIX}{kernel}({listed}) {{\n"
            f"  {kernel}<<<cudalint_grid, cudalint_block, cudalint_shared_bytes, cudalint_stream>>>({arguments});\n"
            f"}}\n")


def _parts_like(text: str, parts: list[str]) -> list[str]:
    """`text` (as many lines as `"\\n".join(parts)`) cut into strings of the parts' line counts."""
    pieces, position = [], 0
    for number, part in enumerate(parts):
        if number == len(parts) - 1:
            pieces.append(text[position:])
            break
        end = position
        for _ in range(part.count("\n") + 1):
            end = text.index("\n", end) + 1
        pieces.append(text[position:end - 1])
        position = end
    return pieces


__all__ = ["HostSplit", "NotSplittable", "split_host_code", "tokenize"]
