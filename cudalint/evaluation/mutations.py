"""Labelled buggy variants derived from the clean corpus kernels, so every rule is measured on cases
nobody wrote it against. Each operator changes one line and knows which rule must fire, and where.

A mutant whose label is a line expects the finding on that line; one labelled anywhere (line None)
expects a new finding of the rule somewhere in the file (dropping a barrier makes the race visible at
an access the operator cannot name).
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from math import prod

from cudalint.evaluation.corpus import CorpusCase
from cudalint.expectations import expected_findings
from cudalint.frontend.lower import _eval_macro_text, _integer_macros
from cudalint.harness.kernelbench import reference_from_module


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


# `v = lane < num_warps ? warp_sums[lane] : 0.0f;`: the final warp's read of one partial per lane
_LANE_GUARDED_READ = re.compile(
    r"(?:\(\s*)?\b(?P<lane>\w+)\s*<\s*[^?;]+?\s*\)?\s*\?\s*(?P<read>(?P<array>\w+)\s*\[\s*(?P=lane)\s*\])\s*:\s*[^;]+;")
_SHARED_DECLARATION = re.compile(r"__shared__[^;\[]*?\b(\w+)\s*\[\s*([^\]]+?)\s*\]\s*;")
_LAUNCH = re.compile(r"\b(\w+)\s*<<<\s*[^,>]+,\s*([^,>]+?)\s*(?:,[^>]*)?>>>")


def _integer(expression: str, lines: list[str]) -> int | None:
    """The value of an integer literal, macro, or `int name = <value>;` local of the file."""
    text = "\n".join(lines)
    value = _eval_macro_text(expression, _integer_macros(text))
    if value is None and re.fullmatch(r"\w+", expression):
        assigned = re.findall(rf"\bint\s+{expression}\s*=\s*([^;]+);", text)
        if len(assigned) == 1:  # one definition: the value cannot depend on which one reaches the launch
            value = _eval_macro_text(assigned[0], _integer_macros(text))
    return value


def _enclosing_kernel(lines: list[str], number: int) -> str | None:
    for line in reversed(lines[:number]):
        match = re.search(r"__global__[^(]*?\b(\w+)\s*\(", line)
        if match:
            return match.group(1)
    return None


def _is_lane(name: str, lines: list[str]) -> bool:
    """Whether `name` is defined as the thread's lane in its warp (`threadIdx.x % 32`, `tid & 31`)."""
    return any(re.search(rf"\b{name}\s*=\s*[^;]*(?:%\s*(?:32|warpSize|WARP\w*)|&\s*(?:31|0x1[fF]))\b", line)
               for line in lines)


def _is_warp_index(index: str, lines: list[str]) -> bool:
    """Whether a store index is a literal or the thread's warp (`tid / 32`, `threadIdx.x >> 5`)."""
    if re.fullmatch(r"\d+", index):
        return True
    return re.fullmatch(r"\w+", index) is not None and any(
        re.search(rf"\b{index}\s*=\s*[^;]*(?:/\s*(?:32|warpSize|WARP\w*)|>>\s*5)\b", line) for line in lines)


def _warp_partials_unguarded(lines: list[str]) -> Iterator[Mutation]:
    # the final warp's `lane < num_warps ? warp_sums[lane] : identity` made to read `warp_sums[lane]`
    # for every lane: with fewer warps than lanes, lanes past the block's warps read partials no warp
    # stored. Only where the array has room for every lane (else the read leaves it: CL203), every
    # store into it is one per warp, and each launch of the kernel runs fewer warps than the array holds
    shared = {m.group(1): m.group(2) for m in _SHARED_DECLARATION.finditer("\n".join(lines))}
    device = _device_code_lines(lines)
    for number, line in enumerate(lines, 1):
        match = _LANE_GUARDED_READ.search(line)
        if not match or number not in device or match.group("array") not in shared \
                or not _is_lane(match.group("lane"), lines):
            continue
        array, kernel = match.group("array"), _enclosing_kernel(lines, number)
        width = _integer(shared[array], lines)
        stores = [m.group(1) for text in lines
                  for m in re.finditer(rf"\b{array}\s*\[\s*([^\]]+?)\s*\]\s*=(?!=)", text)]
        blocks = [_integer(m.group(2).strip(), lines) for text in lines for m in _LAUNCH.finditer(text)
                  if m.group(1) == kernel]
        # lanes 0..31 read: past the block's warps and inside the array they read partials no warp stored
        if width is None or not stores or not all(_is_warp_index(s, lines) for s in stores) \
                or not blocks or None in blocks or max(-(-b // 32) for b in blocks) >= min(width, 32):
            continue
        yield Mutation("warp-partials-unguarded", number,
                       line[: match.start()] + match.group("read") + ";" + line[match.end():], "CL210", anchored=True)


# a tree that starts at a fixed width: `for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1)`
_FIXED_TREE = re.compile(r"^\s*for\s*\(\s*(?:(?:unsigned\s+)?int\s+)?(\w+)\s*=\s*([^;]+?)\s*/\s*2\s*;"
                         r"[^;]*;\s*\1\s*(?:>>=\s*1|/=\s*2)\s*\)")


def _kernel_body(lines: list[str], kernel: str) -> list[str]:
    """The lines of `__global__` function `kernel`, signature to closing brace."""
    device = _device_code_lines(lines)
    start = next((n for n, line in enumerate(lines, 1) if re.search(rf"__global__[^(]*\b{kernel}\s*\(", line)), None)
    if start is None:
        return []
    return [lines[n - 1] for n in itertools.takewhile(lambda n: n in device, range(start, len(lines) + 1))]


def _launch_half_block(lines: list[str]) -> Iterator[Mutation]:
    # a launch of a block reduction whose tree starts at a fixed width W / 2 made to run half the
    # threads: each thread stores its own element `s[tid]`, so the upper half of the array is never
    # stored, and the first step reads it. Only where the block launched is no wider than W (the tree
    # then starts at or past the threads that store), the array is stored only at the thread's own
    # index, and the grid does not depend on the block (so the grid's coverage does not change too)
    for number, line in enumerate(lines, 1):
        launch = _LAUNCH.search(line)
        if not launch:
            continue
        kernel, block = launch.group(1), launch.group(2).strip()
        body = _kernel_body(lines, kernel)
        width = _integer(block, lines)
        grid = set(re.findall(r"\w+", line[launch.end(1):launch.start(2)]))
        # the grid names the block, or a local set from it (`blocks = (n + BLOCK - 1) / BLOCK`, `dim3 g(...)`)
        sized_by_block = block in grid or any(
            re.search(rf"\b{name}\s*(?:=(?!=)|\()[^;]*\b{re.escape(block)}\b", text) for text in lines for name in grid)
        if width is None or width < 64 or sized_by_block:  # two warps or more: the half is whole warps
            continue
        threads = {m.group(1) for text in body
                   if (m := re.search(r"\b(\w+)\s*=\s*threadIdx\.x\s*;", text))}
        for text in body:
            tree = _FIXED_TREE.match(text)
            start = _integer(tree.group(2).strip(), lines) if tree else None
            if start is None or start < width:
                continue
            steps = [m for t in body for m in re.finditer(rf"\b(\w+)\s*\[\s*(\w+)\s*\+\s*{tree.group(1)}\s*\]", t)
                     if m.group(2) in threads]
            arrays = {m.group(1) for m in steps} & set(_SHARED_NAME.findall("\n".join(body)))
            if len(arrays) != 1:
                continue
            array, = arrays
            stores = [m.group(1) for t in body
                      for m in re.finditer(rf"\b{array}\s*\[\s*([^\]]+?)\s*\]\s*(?:[-+*/]|<<|>>)?=(?!=)", t)]
            if stores and all(index in threads for index in stores):
                halved = f"{line[:launch.start(2)]}{block} / 2{line[launch.end(2):]}"
                # the finding is on the tree step's read, a line the operator leaves as it is
                yield Mutation("launch-half-block", number, halved, "CL210", anchored=False)
                break


_WIDE_CAST = re.compile(r"\(\s*(?:int64_t|long\s+long|long|size_t)\s*\)\s*(?=[\w(])")
_WIDE_LOCAL = re.compile(r"^(\s*(?:const\s+)?)(?:int64_t|long\s+long|long|size_t)(\s+(\w+)\s*=\s*([^;]*\*[^;]*);.*)$")


def _reference_inputs_past_int32(lines: list[str]) -> bool:
    """Whether the file is its own reference and every tensor its `get_inputs` makes has 2^31 elements or
    more (then a flat index into any input passes the `int` range)."""
    try:
        reference = reference_from_module(ast.parse("\n".join(lines)), "")
    except (SyntaxError, ValueError, RecursionError):
        return False
    shapes = [spec.shape for spec in reference.inputs] if reference else []
    return bool(shapes) and all(shape and prod(shape) > 2**31 - 1 for shape in shapes)


def _narrow_wide_index(lines: list[str]) -> Iterator[Mutation]:
    # a flat index the kernel computes in 64 bits (`input[((int64_t)nc * H + h) * W + w]`, `int64_t off
    # = (int64_t)row * cols + col;` read by a subscript) made 32-bit, the way it is usually written.
    # Only into an input (a const pointer parameter) where every reference input has 2^31 elements or
    # more, and only a cast that widens a product, so the narrowed index is the one that walks the tensor
    if not _reference_inputs_past_int32(lines):
        return
    device = _device_code_lines(lines)
    inputs = {re.findall(r"\w+", parameter)[-1] for match in _KERNEL_SIGNATURE.finditer("\n".join(lines))
              for parameter in match.group(1).split(",") if "*" in parameter and "const" in parameter}
    for number, line in enumerate(lines, 1):
        if number not in device:
            continue
        local = _WIDE_LOCAL.match(line)
        if local:
            read = re.compile(rf"\b(\w+)\s*\[[^\]]*\b{local.group(3)}\b")
            if any(m.group(1) in inputs for text in lines[number:] for m in read.finditer(text)):
                narrowed = f"{local.group(1)}int{_WIDE_CAST.sub('', local.group(2))}"
                yield Mutation("narrow-wide-index", number, narrowed, "CL214", anchored=True)
            continue
        for subscript in re.finditer(r"\b(\w+)\s*\[([^\]]*)\]", line):
            cast = _WIDE_CAST.search(subscript.group(2))
            if subscript.group(1) in inputs and cast and re.match(r"[\w.]+\s*\*", subscript.group(2)[cast.end():]):
                start = subscript.start(2) + cast.start()
                yield Mutation("narrow-wide-index", number, line[:start] + line[start + len(cast.group(0)):],
                               "CL214", anchored=True)
                break
_HOST_WIDE_SIZE = re.compile(r"^(\s*(?:const\s+)?)(?:int64_t|long\s+long|long|size_t|auto)(\s+\w+\s*=\s*\w+\.numel\(\)\s*;.*)$")


def _narrow_host_size(lines: list[str]) -> Iterator[Mutation]:
    # a host local holding an input's element count in 64 bits (`int64_t n = x.numel();`) made `int`, the
    # way it is usually written: where every reference input has 2^31 elements or more, the count wraps
    if not _reference_inputs_past_int32(lines):
        return
    device = _device_code_lines(lines)
    for number, line in enumerate(lines, 1):
        match = _HOST_WIDE_SIZE.match(line)
        if match and number not in device:
            yield Mutation("narrow-host-size", number, f"{match.group(1)}int{match.group(2)}", "CL214", anchored=True)


_LAUNCH_ARGUMENTS = re.compile(r"\b(\w+)\s*(?:<[^<>;]*>)?\s*<<<(.*)>>>")
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
    body = _kernel_body(lines, kernel)
    for position, text in enumerate(body):
        declared = _EXTERN_SHARED.search(text)
        if declared and any(re.search(rf"\b{declared.group(1)}\b", later) for later in body[position + 1:]):
            return True
    return False


def _drop_dynamic_shared_size(lines: list[str]) -> Iterator[Mutation]:
    # a launch that forgets its dynamic shared-memory size (`<<<grid, block>>>`; with a stream, 0 bytes): the
    # kernel's `extern __shared__` memory then has no byte, and every access it makes is out of bounds
    for number, line in enumerate(lines, 1):
        match = _LAUNCH_ARGUMENTS.search(line)
        if match is None or not _uses_extern_shared(lines, match.group(1)):
            continue
        arguments = _top_level_arguments(match.group(2))
        if len(arguments) not in (3, 4) or arguments[2] == "0":
            continue
        kept = arguments[:2] if len(arguments) == 3 else [arguments[0], arguments[1], "0", arguments[3]]
        launch = f"{line[:match.start(2)]}{', '.join(kept)}{line[match.end(2):]}"
        yield Mutation("drop-dynamic-shared-size", number, launch, "CL215", anchored=True)


_LOAD_INLINE_TARGET = re.compile(r"^(\w+)\s*=\s*load_inline\(")
_FORWARD = re.compile(r"^(\s*)def forward\(self((?:\s*,\s*\w+)*)\s*\)\s*(?:->[^:]*)?:\s*$")
_LOOP_BOUND = re.compile(r"^(\s*for\s*\(\s*int\s+(\w+)\s*=\s*0\s*;\s*\2\s*)<(\s*(\w+)\s*;\s*(?:\+\+\2|\2\+\+)\s*\).*)$")


def _own_reference(lines: list[str]) -> bool:
    """Whether the file is its own reference: it defines `get_inputs` returning a list literal."""
    return any(re.match(r"def get_inputs\(\)", line) for line in lines) and any(
        re.match(r"\s+return\s*\[", line) for line in lines)


def _forward_body(lines: list[str]) -> tuple[int, list[int]] | None:
    """(the `def forward` line, the lines of forward's own statements at its body's indentation)."""
    for number, line in enumerate(lines, 1):
        if _FORWARD.match(line):
            indent = len(_FORWARD.match(line).group(1))
            body = []
            for later, text in enumerate(lines[number:], number + 1):
                if text.strip() and _indent(text) <= indent:
                    break
                body.append(later)
            first = next((n for n in body if lines[n - 1].strip()), None)
            if first is None:
                return None
            depth = _indent(lines[first - 1])
            return number, [n for n in body if lines[n - 1].strip() and _indent(lines[n - 1]) == depth]
    return None


def _forward_bound_calls(lines: list[str]) -> Iterator[tuple[int, str, str, str]]:
    """(line, text, module variable, function) of the first call of a `load_inline` module's function on a
    statement forward always runs, in a file that is its own reference."""
    targets = {m.group(1) for m in map(_LOAD_INLINE_TARGET.match, lines) if m}
    forward = _forward_body(lines) if targets and _own_reference(lines) else None
    for number in forward[1] if forward else ():
        line = lines[number - 1]
        if line.lstrip().startswith(("if ", "elif ", "else", "for ", "while ", "try", "with ")):
            return  # past a compound statement the next ones may not run every time
        for target in targets:
            call = re.search(rf"\b{target}\.(\w+)\s*\(", line)
            if call:
                yield number, line, target, call.group(1)
                return
        if re.match(r"\s*return\b", line):
            return


def _bare_bound_call(lines: list[str]) -> Iterator[Mutation]:
    # forward calls the compiled function by its bare name instead of through the module `load_inline`
    # returns (`ext.relu_cuda(x)` -> `relu_cuda(x)`): NameError at the first call
    for number, line, target, function in _forward_bound_calls(lines):
        if not any(re.search(rf"(def|class)\s+{function}\b|\b{function}\s*=|import\b.*\b{function}\b", text)
                   for text in lines):
            yield Mutation("bare-bound-call", number, line.replace(f"{target}.", "", 1), "CL432", anchored=True)


def _unbound_module_attribute(lines: list[str]) -> Iterator[Mutation]:
    # forward calls the module `load_inline` returns by a name its functions=[...] does not bind
    # (`ext.relu_cuda(x)` -> `ext.forward(x)`): AttributeError at the first call
    for number, line, target, function in _forward_bound_calls(lines):
        if not any(re.search(r"[\"']forward[\"']", text) for text in lines):
            yield Mutation("unbound-module-attribute", number, line.replace(f"{target}.{function}", f"{target}.forward", 1),
                           "CL435", anchored=True)


def _forward_extra_input(lines: list[str]) -> Iterator[Mutation]:
    # forward takes one more input than the problem's get_inputs() gives (a bias the problem does not
    # have): the harness's `model(*inputs)` raises TypeError
    if not _own_reference(lines):
        return
    for number, line in enumerate(lines, 1):
        match = _FORWARD.match(line)
        if match:
            yield Mutation("forward-extra-input", number, line.replace("):", ", extra_bias):", 1)
                           if "):" in line else line, "CL434", anchored=True)
            return


def _loop_bound_inclusive(lines: list[str]) -> Iterator[Mutation]:
    # a kernel's counted loop over a size parameter made to run one step too far (`k < K` -> `k <= K`):
    # at the reference's shapes the last step reads past its tensor
    if not _own_reference(lines):
        return
    parameters = _kernel_parameters(lines)
    for number in sorted(_device_code_lines(lines)):
        match = _LOOP_BOUND.match(lines[number - 1])
        if match and match.group(4) in parameters:
            yield Mutation("loop-bound-inclusive", number, f"{match.group(1)}<={match.group(3)}", "CL216",
                           anchored=False)


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
    "warp-partials-unguarded": _warp_partials_unguarded,
    "narrow-wide-index": _narrow_wide_index,
    "narrow-host-size": _narrow_host_size,
    "launch-half-block": _launch_half_block,
    "drop-dynamic-shared-size": _drop_dynamic_shared_size,
    "bare-bound-call": _bare_bound_call,
    "unbound-module-attribute": _unbound_module_attribute,
    "forward-extra-input": _forward_extra_input,
    "loop-bound-inclusive": _loop_bound_inclusive,
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
