"""Labelled buggy variants derived from the clean corpus kernels, so every rule is measured on cases
nobody wrote it against. Each operator changes one line and knows which rule must fire, and where.

A mutant whose label is a line expects the finding on that line; one labelled anywhere (line None)
expects a new finding of the rule somewhere in the file (dropping a barrier makes the race visible at
an access the operator cannot name).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from cudalint.evaluation.corpus import CorpusCase
from cudalint.expectations import expected_findings


@dataclass(frozen=True)
class Mutation:
    operator: str
    line: int  # 1-based line changed
    new_line: str
    expected_code: str
    anchored: bool  # the finding must be on this line


_BARRIER = re.compile(r"^(\s*)__syncthreads\(\);\s*(//.*)?$")
_GUARD_INLINE = re.compile(r"^(\s*)if\s*\(\s*(\w+)\s*<\s*(\w+)\s*\)\s*(\w.*;)\s*$")
_GUARD = re.compile(r"^(\s*(?:if|while)\s*\(\s*(\w+)\s*)<(\s*(\w+)\s*\))")
_GUARD_RETURN = re.compile(r"^(\s*if\s*\(\s*(\w+)\s*)>=(\s*(\w+)\s*\)\s*return\s*;)")
_GUARD_BLOCK = re.compile(r"^(\s*)if\s*\(\s*(\w+)\s*<\s*(\w+)\s*\)\s*\{\s*$")
_KERNEL_SIGNATURE = re.compile(r"__global__[^(]*\(([^)]*)\)")
_SHARED_NAME = re.compile(r"__shared__[^;\[]*?\b(\w+)\s*\[")
_ARRAY_ACCESS = re.compile(r"\b(\w+)\s*\[")
_SHARED_1D = re.compile(r"^(\s*__shared__\s+float\s+\w+\s*)\[\s*(\w+)\s*\](\s*;.*)$")
_CEIL_DIV = re.compile(r"\(\s*(\w+)\s*\+\s*(\w+)\s*-\s*1\s*\)\s*/\s*\2\b")
_CEIL_DIV_LITERAL = re.compile(r"\(\s*(\w+)\s*\+\s*(\d+)\s*\)\s*/\s*(\d+)\b")  # (n + 255) / 256
_LEGACY = re.compile(r"__(shfl_down|shfl_xor|shfl_up|shfl)_sync\s*\(\s*(?:0x[fF]{8}u?|FULL_MASK|0xffffffffu?)\s*,\s*")
_ATOMIC_ADD = re.compile(r"^(\s*)atomicAdd\(\s*(&\s*)?([^,]+?)\s*,\s*(.+?)\s*\);\s*(//.*)?$")
_THREAD_INDEX_HINT = re.compile(r"threadIdx|\bidx\b|\btid\b|\bi\b|\brow\b|\bcol\b|\bindex\b|\bgid\b")


def _kernel_parameters(lines: list[str]) -> set[str]:
    """Names of the kernels' parameters: a guard against one of them is a bound on the data size."""
    names = set()
    for match in _KERNEL_SIGNATURE.finditer("\n".join(lines)):
        for parameter in match.group(1).split(","):
            words = re.findall(r"\w+", parameter)
            if words:
                names.add(words[-1])
    return names


def _global_access(statement: str, lines: list[str]) -> bool:
    """Whether `statement` indexes an array that is not `__shared__` (a drop or off-by-one there is a
    global out-of-bounds access, CL201/CL202; on shared arrays it is CL203's business)."""
    shared = set(_SHARED_NAME.findall("\n".join(lines)))
    return any(name not in shared for name in _ARRAY_ACCESS.findall(statement))


def _drop_barrier(lines: list[str]) -> Iterator[Mutation]:
    for number, line in enumerate(lines, 1):
        if _BARRIER.match(line):
            yield Mutation("drop-barrier", number, "", "CL101", anchored=False)


def _barrier_in_branch(lines: list[str]) -> Iterator[Mutation]:
    for number, line in enumerate(lines, 1):
        match = _BARRIER.match(line)
        if match:
            yield Mutation("barrier-in-thread-branch", number,
                           f"{match.group(1)}if (threadIdx.x % 2 == 0) __syncthreads();", "CL102", anchored=True)


def _drop_guard(lines: list[str]) -> Iterator[Mutation]:
    sizes = _kernel_parameters(lines)
    for number, line in enumerate(lines, 1):
        match = _GUARD_INLINE.match(line)
        if match and _THREAD_INDEX_HINT.search(match.group(2)) and match.group(3) in sizes \
                and _global_access(match.group(4), lines):
            yield Mutation("drop-guard", number, match.group(1) + match.group(4), "CL201", anchored=True)
        match = _GUARD_BLOCK.match(line)
        if match and _THREAD_INDEX_HINT.search(match.group(2)) and match.group(3) in sizes \
                and _global_access("\n".join(lines[number : number + 3]), lines):
            # the block's accesses are now unguarded; which of them the rule names is its choice
            yield Mutation("drop-guard", number, match.group(1) + "{", "CL201", anchored=False)


def _off_by_one(lines: list[str]) -> Iterator[Mutation]:
    # only guards of a thread index against a size parameter: `if (tid <= s)` in a tree reduction is
    # another bug (a shared index out of range)
    sizes = _kernel_parameters(lines)
    for number, line in enumerate(lines, 1):
        following = "\n".join(lines[number - 1 : number + 3])
        for pattern, replacement in ((_GUARD, r"\1<=\3"), (_GUARD_RETURN, r"\1>\3")):
            match = pattern.match(line)
            if match and "for" not in line and _THREAD_INDEX_HINT.search(match.group(2)) \
                    and match.group(4) in sizes and _global_access(following, lines):
                yield Mutation("off-by-one-guard", number, pattern.sub(replacement, line, count=1), "CL202",
                               anchored=True)


def _grow_shared(lines: list[str]) -> Iterator[Mutation]:
    for number, line in enumerate(lines, 1):
        match = _SHARED_1D.match(line)
        if match:
            yield Mutation("grow-shared-array", number, f"{match.group(1)}[16384]{match.group(3)}", "CL301",
                           anchored=True)


def _device_code_lines(lines: list[str]) -> set[int]:
    """Line numbers inside `__global__`/`__device__` function bodies (by brace depth)."""
    inside, depth, found = False, 0, set()
    for number, line in enumerate(lines, 1):
        if not inside and ("__global__" in line or "__device__" in line) and "(" in line:
            inside, depth = True, 0
        if inside:
            found.add(number)
            depth += line.count("{") - line.count("}")
            if depth <= 0 and "}" in line:
                inside = False
    return found


def _floor_div_grid(lines: list[str]) -> Iterator[Mutation]:
    if any("gridDim" in line for line in lines):
        return  # a grid-stride kernel covers every element with any grid: flooring it is no bug
    device = _device_code_lines(lines)  # a ceil-div inside a kernel (a tile count) is not a grid
    for number, line in enumerate(lines, 1):
        if number in device:
            continue
        floored = _CEIL_DIV.sub(r"\1 / \2", line, count=1)
        if floored == line:
            floored = _CEIL_DIV_LITERAL.sub(
                lambda m: f"{m.group(1)} / {m.group(3)}" if int(m.group(2)) == int(m.group(3)) - 1 else m.group(0),
                line, count=1)
        if floored != line:
            # the finding sits on the launch; when the grid is computed on another line it is elsewhere
            yield Mutation("floor-div-grid", number, floored, "CL204", anchored="<<<" in line)


def _legacy_warp_intrinsic(lines: list[str]) -> Iterator[Mutation]:
    for number, line in enumerate(lines, 1):
        if _LEGACY.search(line):
            yield Mutation("legacy-warp-intrinsic", number, _LEGACY.sub(r"__\1(", line, count=1), "CL103",
                           anchored=True)


def _drop_atomic(lines: list[str]) -> Iterator[Mutation]:
    # an atomic statement in a clean kernel is there because several threads update the element; on a
    # __shared__ array that is a shared-memory race, another rule's business
    shared = set(_SHARED_NAME.findall("\n".join(lines)))
    for number, line in enumerate(lines, 1):
        match = _ATOMIC_ADD.match(line)
        if match and re.match(r"\w*", match.group(3)).group(0) not in shared:
            target = match.group(3) if match.group(2) else f"*{match.group(3)}"
            yield Mutation("drop-atomic", number, f"{match.group(1)}{target} += {match.group(4)};", "CL106",
                           anchored=True)


_ROW_LOOP = re.compile(r"^(\s*for\s*\(\s*(?:int\s+)?(\w+)\s*=\s*[^;]+;\s*\2\s*)<(\s*([^;=]+?)\s*;)")


def _row_end(bound: str, lines: list[str]) -> bool:
    """Whether a loop bound is a row's end of an offset array: `P[x + 1]`, or a local set to one."""
    if re.search(r"\[[^\]]*\+\s*1\s*\]", bound):
        return True
    return any(re.search(rf"\b{re.escape(bound)}\s*=\s*\w+(?:\.\w+)?\s*\[[^\]]*\+\s*1\s*\]", line) for line in lines)


def _row_loop_inclusive(lines: list[str]) -> Iterator[Mutation]:
    # a loop over a CSR row's half-open range [P[x], P[x + 1]) made to include its end
    for number, line in enumerate(lines, 1):
        match = _ROW_LOOP.match(line)
        if match and _row_end(match.group(4).strip(), lines):
            # the accesses in the loop body are the findings; which line the rule names is its choice
            yield Mutation("row-loop-inclusive", number, _ROW_LOOP.sub(r"\1<=\3", line, count=1), "CL211",
                           anchored=False)


_TREE_LOOP = re.compile(r"^\s*for\s*\(.*;\s*(\w+)\s*(?:>>=\s*1|/=\s*2|\*=\s*2|<<=\s*1)\s*\)")
# the tree step `s[tid] += s[tid + k]` or `s[tid] = fmaxf(s[tid], s[tid + k])`, optionally under its `if`
_TREE_STEP = re.compile(r"^(\s*(?:if\s*\([^;]*\)\s*)?)(\w+)\s*\[\s*(\w+)\s*\]\s*(\+=|=)\s*(.*?)\s*;\s*(//.*)?$")
_SHARED_STORE = re.compile(r"\b(\w+)\s*\[[^\]]*\]\s*(?:[-+*/|&^]|<<|>>)?=(?!=)")


def _block_end(lines: list[str], start: int) -> int:
    """The last line (1-based) of the statement that begins on line `start`: its braces' match, or the
    next line for a braceless body."""
    depth = 0
    for number in range(start, len(lines) + 1):
        depth += lines[number - 1].count("{") - lines[number - 1].count("}")
        if depth <= 0 and (number > start or "{" in lines[start - 1] or lines[start - 1].rstrip().endswith(";")):
            return number
    return len(lines)


def _read_after(lines: list[str], after: int, name: str) -> bool:
    """Whether `name`'s first mention after line `after`, in the same function, reads it (one that
    assigns it without reading it drops the value)."""
    for line in lines[after:]:
        if re.match(r"^\S", line):
            return False  # the function's closing brace, or the next top-level definition
        if re.search(rf"\b{name}\b", line):
            return not re.search(rf"(?<![\w.])\b{name}\s*=(?!=)(?!.*\b{name}\b)", line)
    return False


def _tree_fold_into_register(lines: list[str]) -> Iterator[Mutation]:
    # a tree loop made to fold into the thread's register without storing its partial: the loop then
    # stores no partial at all, and the register, read after the loop, holds log2(n) + 1 of the values
    shared = set(_SHARED_NAME.findall("\n".join(lines)))
    for number, line in enumerate(lines, 1):
        loop = _TREE_LOOP.match(line)
        if not loop:
            continue
        counter, end = loop.group(1), _block_end(lines, number)
        stores = [n for n in range(number, end + 1)
                  if any(name in shared for name in _SHARED_STORE.findall(lines[n - 1]))]
        if len(stores) != 1:
            continue
        store = lines[stores[0] - 1]
        step = _TREE_STEP.match(store)
        if not step or step.group(2) not in shared:
            continue
        prefix, array, tid, op, value = step.group(1), step.group(2), step.group(3), step.group(4), step.group(5)
        other = rf"{array}\s*\[\s*{tid}\s*\+\s*{counter}\s*\]"
        body = lines[number - 1 : end]
        if re.fullmatch(r"\w+", value) and not prefix.strip():
            # `s[tid] = m;` storing the register the loop folds `s[tid + k]` into: drop the store
            register = value
            folds = any(re.search(rf"\b{register}\s*(?:\+=|=.*\b{register}\b)", text) for text in body)
            if folds and any(re.search(other, text) for text in body) and _read_after(lines, end, register):
                # the finding is on the read of `s[tid + k]`, a line the operator leaves as it is
                yield Mutation("tree-fold-into-register", stores[0], "", "CL213", anchored=False)
            continue
        # `s[tid] += s[tid + k]`: fold into the register the thread stored into `s[tid]` before the loop
        registers = [m.group(1) for m in (re.match(rf"^\s*{array}\s*\[\s*{tid}\s*\]\s*=\s*(\w+)\s*;", earlier)
                                          for earlier in lines[: number - 1]) if m]
        if not registers or not _read_after(lines, end, registers[-1]):
            continue
        register = registers[-1]
        if op == "+=" and re.fullmatch(other, value):
            folded = f"{register} += {value}"
        else:
            call = re.fullmatch(rf"(fmaxf|fminf|max|min)\(\s*{array}\s*\[\s*{tid}\s*\]\s*,\s*({other})\s*\)", value)
            if op != "=" or not call:
                continue
            folded = f"{register} = {call.group(1)}({register}, {call.group(2)})"
        yield Mutation("tree-fold-into-register", stores[0], f"{prefix}{folded};", "CL213", anchored=True)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


_INDEX_COPY = re.compile(r"^\s*int\s+(\w+)\s*=\s*(\w+)\s*;")


def _store_through_decomposed_copy(lines: list[str]) -> Iterator[Mutation]:
    # `int t = idx; ... t /= W; ... out[idx] = v` made to store at `out[t]`: the store's index is the flat
    # index divided in place, the same for every thread of one output row
    device = _device_code_lines(lines)
    for number, line in enumerate(lines, 1):
        copy = _INDEX_COPY.match(line)
        if not copy or number not in device:
            continue
        copied, flat = copy.group(1), copy.group(2)
        indent = _indent(line)
        # the lines of the copy's block after its declaration
        scope = list(itertools.takewhile(
            lambda n: n in device and (not lines[n - 1].strip() or _indent(lines[n - 1]) >= indent),
            range(number + 1, len(lines) + 1)))
        steps = [n for n in scope if re.match(rf"^\s*{copied}\s*/=\s*\w+\s*;", lines[n - 1])]
        if not steps:
            continue
        # the digits taken off before the last step; one taken after it is the same for the whole group
        coordinates = {m.group(1) for text in lines[number : steps[-1]]
                       if (m := re.match(rf"^\s*int\s+(\w+)\s*=\s*{copied}\s*%", text))}
        if not coordinates:
            continue
        for later in (n for n in scope if n > steps[-1] and lines[n - 1].strip()):
            text = lines[later - 1]
            store = re.search(rf"\b\w+\s*\[\s*{flat}\s*\](?=\s*\+?=(?!=))", text)
            if store is None:
                continue
            # one unconditional store whose value the dropped coordinates reach (else each row stores one value)
            between = "\n".join(lines[steps[-1] : later])
            if _indent(text) == indent and not text.lstrip().startswith("if") \
                    and any(re.search(rf"\b{c}\b", between) for c in coordinates):
                target = store.group(0)
                yield Mutation("store-through-decomposed-copy", later,
                               text.replace(target, re.sub(rf"\[\s*{flat}\s*\]", f"[{copied}]", target), 1),
                               "CL209", anchored=True)
            break


_IN_PLACE_UPDATE = re.compile(r"\b(\w+)\s*\[\s*(\w+)\s*\]\s*=(?!=)(.*);")


def _global_pointers(lines: list[str]) -> set[str]:
    """The kernels' pointer parameters and the locals that point into them (`float* r = S + row * n`)."""
    text = "\n".join(lines)
    names = {re.findall(r"\w+", parameter)[-1] for match in _KERNEL_SIGNATURE.finditer(text)
             for parameter in match.group(1).split(",") if "*" in parameter and re.search(r"\w", parameter)}
    derived = {m.group(1) for m in re.finditer(r"\*\s*(?:__restrict__\s+)?(\w+)\s*=\s*(\w+)\s*[+;]", text)
               if m.group(2) in names}
    return names | derived


def _in_place_mirror_read(lines: list[str]) -> Iterator[Mutation]:
    # an in-place update `x[i] = f(x[i])` made to read the mirrored element `x[n - 1 - i]` (an in-place
    # reverse): the thread n - 1 - i writes that element in the same launch, with nothing ordering the two.
    # Only under the bound `i < n` on the same line, so the mirrored index stays in range
    pointers = _global_pointers(lines) - set(_SHARED_NAME.findall("\n".join(lines)))
    device = _device_code_lines(lines)
    for number, line in enumerate(lines, 1):
        match = _IN_PLACE_UPDATE.search(line)
        if not match or number not in device or match.group(1) not in pointers or "atomic" in line:
            continue
        array, index, value = match.group(1), match.group(2), match.group(3)
        read = re.search(rf"\b{array}\s*\[\s*{index}\s*\]", value)
        bound = re.search(rf"\b{index}\s*<\s*(\w+)\s*[;)]", line[: match.start()])
        if read is None or bound is None:
            continue
        start = match.start(3) + read.start()
        mirrored = f"{line[:start]}{array}[{bound.group(1)} - 1 - {index}]{line[start + len(read.group(0)):]}"
        yield Mutation("in-place-mirror-read", number, mirrored, "CL107", anchored=True)


_LAUNCH = re.compile(r"\b(\w+)\s*(?:<[^<>;]*>)?\s*<<<(.*)>>>")
_EXTERN_SHARED = re.compile(r"\bextern\s+__shared__\b[^;]*?\b(\w+)\s*\[\s*\]")


def _top_level_arguments(text: str) -> list[str]:
    """`text` split at the commas outside parentheses, brackets and braces."""
    parts, depth, start = [], 0, 0
    for position, character in enumerate(text):
        if character in "([{":
            depth += 1
        elif character in ")]}":
            depth -= 1
        elif character == "," and depth == 0:
            parts.append(text[start:position].strip())
            start = position + 1
    return parts + [text[start:].strip()]


def _uses_extern_shared(lines: list[str], kernel: str) -> bool:
    """Whether the body of `__global__` function `kernel` declares `extern __shared__` memory and uses it
    after the declaration."""
    for number, line in enumerate(lines, 1):
        if "__global__" not in line or not re.search(rf"\b{kernel}\s*\(", line):
            continue
        opening = next((n for n in range(number, len(lines) + 1) if "{" in lines[n - 1]), number)
        body = lines[number - 1:_block_end(lines, opening)]  # the signature may span lines
        for position, text in enumerate(body):
            declared = _EXTERN_SHARED.search(text)
            if declared and any(re.search(rf"\b{declared.group(1)}\b", later) for later in body[position + 1:]):
                return True
    return False


def _drop_dynamic_shared_size(lines: list[str]) -> Iterator[Mutation]:
    # a launch that forgets its dynamic shared-memory size (`<<<grid, block>>>`; with a stream, 0 bytes): the
    # kernel's `extern __shared__` memory then has no byte, and every access it makes is out of bounds
    for number, line in enumerate(lines, 1):
        match = _LAUNCH.search(line)
        if match is None or not _uses_extern_shared(lines, match.group(1)):
            continue
        arguments = _top_level_arguments(match.group(2))
        if len(arguments) not in (3, 4) or arguments[2] == "0":
            continue
        kept = arguments[:2] if len(arguments) == 3 else [arguments[0], arguments[1], "0", arguments[3]]
        launch = f"{line[:match.start(2)]}{', '.join(kept)}{line[match.end(2):]}"
        yield Mutation("drop-dynamic-shared-size", number, launch, "CL215", anchored=True)


OPERATORS: dict[str, Callable[[list[str]], Iterator[Mutation]]] = {
    "drop-barrier": _drop_barrier,
    "barrier-in-thread-branch": _barrier_in_branch,
    "drop-guard": _drop_guard,
    "off-by-one-guard": _off_by_one,
    "grow-shared-array": _grow_shared,
    "floor-div-grid": _floor_div_grid,
    "legacy-warp-intrinsic": _legacy_warp_intrinsic,
    "drop-atomic": _drop_atomic,
    "row-loop-inclusive": _row_loop_inclusive,
    "tree-fold-into-register": _tree_fold_into_register,
    "store-through-decomposed-copy": _store_through_decomposed_copy,
    "in-place-mirror-read": _in_place_mirror_read,
    "drop-dynamic-shared-size": _drop_dynamic_shared_size,
}


def mutants(case: CorpusCase, per_operator: int = 2) -> list[CorpusCase]:
    """Up to `per_operator` single-line mutants of a clean case for each operator."""
    if not case.clean:
        return []
    lines = case.text.splitlines()
    produced = []
    for name, operator in OPERATORS.items():
        for mutation in list(operator(lines))[:per_operator]:
            new_lines = list(lines)
            new_lines[mutation.line - 1] = mutation.new_line
            text = "\n".join(new_lines) + "\n"
            assert not expected_findings(text)
            produced.append(CorpusCase(
                f"{case.path}~{name}@{mutation.line}", text,
                {(mutation.line if mutation.anchored else None, mutation.expected_code)},
                case.category, name, name, {"source": case.path, "line": mutation.line},
            ))
    return produced
