"""Compiler and compute-sanitizer output, parsed into structured reports mapped back to the .py lines.

torch's `load_inline` writes the `cpp_sources` to `main.cpp` and the `cuda_sources` to `cuda.cu` in the
build directory, after a few implicit lines (`#include <torch/extension.h>`, ...). The worker records
where each source string starts in those files (`source_offsets`); a line of `cuda.cu` is then a line of
one source string, and that string is found in the solution's CUDA units (`cudalint.sources`), whose
every character knows its line and column in the .py file.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field

from cudalint.sources import SourceDocument, load_document

# nvcc's front end: `/path/cuda.cu(15): error: identifier "totl" is undefined`
_NVCC = re.compile(r"^(?P<file>\S+?\.(?:cu|cuh|cpp|cc|h|hpp|cxx))\((?P<line>\d+)\): "
                   r"(?P<severity>error|warning|catastrophic error|remark)(?: #[\w-]+)?: (?P<message>.*)$")
# gcc/clang: `/path/main.cpp:12:5: error: expected ';' before '}' token`
_GCC = re.compile(r"^(?P<file>\S+?\.(?:cu|cuh|cpp|cc|h|hpp|cxx)):(?P<line>\d+):(?:(?P<column>\d+):)? "
                  r"(?P<severity>fatal error|error|warning): (?P<message>.*)$")
_PTXAS = re.compile(r"^ptxas (?P<severity>error|fatal)\s*: (?P<message>.*)$")
_UNDEFINED = re.compile(r"undefined symbol: (?P<symbol>\S+)")


@dataclass
class CompileMessage:
    severity: str  # "error" or "warning"
    message: str
    file: str | None  # the file the compiler named (main.cpp, cuda.cu, a header)
    line: int | None  # its line there
    column: int | None
    source: str | None = None  # "cpp_sources" / "cuda_sources" when the line is in the solution's code
    source_line: int | None = None  # the line within that source string
    py_line: int | None = None  # the line in the .py file
    py_column: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        where = f"line {self.py_line}" if self.py_line else (
            f"{os.path.basename(self.file)}:{self.line}" if self.file and self.line else "")
        return f"{where}: {self.severity}: {self.message}" if where else f"{self.severity}: {self.message}"


def parse_compiler_output(text: str, limit: int = 40) -> list[CompileMessage]:
    """Errors first, then warnings, from nvcc, gcc and ptxas output, and an undefined-symbol import error."""
    messages: list[CompileMessage] = []
    seen: set[tuple] = set()
    for raw in text.splitlines():
        line = raw.strip()
        match = _NVCC.match(line) or _GCC.match(line)
        if match:
            severity = "error" if "error" in match.group("severity") else "warning"
            if match.group("severity") == "remark":
                continue
            column = match.groupdict().get("column")
            item = CompileMessage(severity, match.group("message").strip(), match.group("file"),
                                  int(match.group("line")), int(column) if column else None)
        elif (match := _PTXAS.match(line)):
            item = CompileMessage("error", "ptxas: " + match.group("message").strip(), None, None, None)
        elif (match := _UNDEFINED.search(line)):
            item = CompileMessage("error", f"the built library does not load: undefined symbol {match.group('symbol')} "
                                  "(a function declared in cpp_sources and bound, but not defined)", None, None, None)
        else:
            continue
        key = (item.severity, item.message, item.file, item.line)
        if key not in seen:
            seen.add(key)
            messages.append(item)
    messages.sort(key=lambda m: m.severity != "error")
    return messages[:limit]


class SourceMap:
    """Maps lines of the files torch wrote (main.cpp, cuda.cu of each extension) to the .py file."""

    def __init__(self, solution_path: str, solution_text: str | None, extensions: list[dict]) -> None:
        self.document: SourceDocument | None = None
        if solution_text is not None:
            try:
                self.document = load_document(solution_path, solution_text)
            except Exception:  # noqa: BLE001 - no map, plain file lines then
                self.document = None
        self.files: dict[str, dict] = {}  # real path -> {"kind", "parts"}
        self.by_name: dict[str, list[dict]] = {}  # "cuda.cu" -> that file of every extension
        for extension in extensions:
            for file_name, info in (extension.get("sources") or {}).items():
                self.files[os.path.realpath(info["path"])] = info
                self.by_name.setdefault(file_name, []).append(info)

    def locate(self, file: str | None, line: int | None, column: int | None = None,
               kernel: str | None = None) -> dict:
        """{"source", "source_line", "py_line", "py_column"} for a line of a written file, or {}.

        compute-sanitizer names a file by its base name only (`cuda.cu`), which every extension of a
        solution has: the extension is then the one defining `kernel` whose sources hold `line`; when
        that still leaves a choice, the line is not mapped (an unmapped line beats a wrong one)."""
        if not file or not line:
            return {}
        info = self.files.get(os.path.realpath(file))
        if info is None:
            choices = [c for c in self.by_name.get(os.path.basename(file), []) if _holds_line(c, line)]
            if len(choices) > 1 and kernel:
                choices = [c for c in choices if any(kernel in kernel_definitions(p.get("text") or "")
                                                     for p in c["parts"])]
            info = choices[0] if len(choices) == 1 else None
        if info is None:
            return {}
        source = "cuda_sources" if info["kind"] == "cuda" else "cpp_sources"
        for part in info["parts"]:
            start = part.get("start_line")
            text = part.get("text") or ""
            if start is None:
                continue
            count = text.count("\n") + 1
            if start <= line < start + count:
                local = line - start + 1
                found = {"source": source, "source_line": local}
                position = self._to_py(text, local, column or 1)
                if position is not None:
                    found["py_line"], found["py_column"] = position
                return found
        return {}

    def _to_py(self, text: str, line: int, column: int) -> tuple[int, int] | None:
        if self.document is None:
            return None
        for unit in self.document.units:
            index = unit.text.find(text)
            if index < 0:
                continue
            base_line = unit.text.count("\n", 0, index)
            unit_line = base_line + line
            unit_column = column
            if line == 1:
                unit_column = index - (unit.text.rfind("\n", 0, index) + 1) + column
            position = unit.to_file(unit_line, unit_column)
            return position.line, position.column
        return None

    def apply(self, item) -> None:
        """Fill source/source_line/py_line/py_column of a CompileMessage or SanitizerReport."""
        located = self.locate(item.file, item.line, getattr(item, "column", None), getattr(item, "kernel_name", None))
        for key, value in located.items():
            setattr(item, key, value)


def _holds_line(info: dict, line: int) -> bool:
    return any(part.get("start_line") is not None
               and part["start_line"] <= line < part["start_line"] + (part.get("text") or "").count("\n") + 1
               for part in info["parts"])


def compile_messages(extensions: list[dict], source_map: SourceMap) -> list[CompileMessage]:
    """The compiler messages of every extension that failed to build, mapped to the .py lines."""
    messages: list[CompileMessage] = []
    for extension in extensions:
        if extension.get("ok") or not extension.get("error"):
            continue
        parsed = parse_compiler_output(extension["error"])
        if not parsed:
            parsed = [CompileMessage("error", _first_line(extension["error"]), None, None, None)]
        for item in parsed:
            source_map.apply(item)
        messages += parsed
    return messages


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:400]
    return text[:400]


# ------------------------------------------------------------------------------------------- messages

MESSAGE_LIMIT = 600  # characters of a record's message: the whole error stays in the worker's record
_TENSOR_REPR = re.compile(r"\btensor\(")


def short_message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """`text` with every printed tensor (`tensor([[...]], device='cuda:0', dtype=torch.float16)`, as pybind's
    "incompatible function arguments ... Invoked with:" prints its arguments) summarised by its rank, shape
    where printed, dtype and device, then cut to `limit` characters."""
    parts, position = [], 0
    for match in _TENSOR_REPR.finditer(text):
        if match.start() < position:
            continue
        end = _closing(text, match.end() - 1)
        if end is None:
            break
        body = text[match.end():end]
        rank = len(body) - len(body.lstrip("["))
        details = [f"{rank}-d" if rank else "scalar"]
        for name in ("size", "dtype", "device"):
            found = re.search(rf"\b{name}=((?:\([^)]*\))|[^,)\s]+)", body[body.rfind("]") + 1:] if rank else body)
            if found:
                details.append(f"{name}={found.group(1)}")
        parts += [text[position:match.start()], f"tensor<{', '.join(details)}>"]
        position = end + 1
    parts.append(text[position:])
    short = "".join(parts)
    return short if len(short) <= limit else short[:limit - 3].rstrip() + "..."


def _closing(text: str, opening: int) -> int | None:
    depth = 0
    for index in range(opening, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return None


# ----------------------------------------------------------------------------------- compute-sanitizer

SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")

_PREFIX = re.compile(r"^=+ ?(?P<indent>\s*)(?P<body>.*)$")
# "at kernel(args)+0x70 in /path/cuda.cu:12" (CUDA 12+) or "at 0x70 in /path/cuda.cu:12:kernel(args)" (11.x)
_AT_NEW = re.compile(r"^(?P<kernel>.+?)\+0x[0-9a-fA-F]+(?: in (?P<file>\S+?):(?P<line>\d+))?$")
_AT_OLD = re.compile(r"^0x[0-9a-fA-F]+ in (?P<file>[^:\s]+):(?P<line>\d+):(?P<kernel>.+?)$")
_RACE = re.compile(r"(?P<severity>Error|Warning|ERROR|WARNING|WARN): Race reported between (?P<first>\w+) access at ?"
                   r"(?P<rest>.*)$")
_RACE_AND = re.compile(r"^and (?P<second>\w+) access at ?(?P<rest>.*?)(?: \[(?P<hazards>\d+) hazards?\])?\s*$")
_RACE_INLINE_AND = re.compile(r"\s+and (?P<second>\w+) access at (?P<rest>.*?)(?: \[(?P<hazards>\d+) hazards?\])?\s*$")
_THREAD = re.compile(r"by thread \((?P<thread>[\d, ]+)\) in block \((?P<block>[\d, ]+)\)")
_INVALID = re.compile(r"^Invalid (?P<space>__\w+__|\w+) (?P<op>read|write|atomic)\w* of size (?P<size>\d+) bytes?")
_UNINIT = re.compile(r"^Uninitialized (?P<space>__\w+__|\w+) memory read of size (?P<size>\d+) bytes?")
_SUMMARY = re.compile(r"(?:ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|INITCHECK SUMMARY)")
# racecheck's summary: "1 hazard displayed (1 error, 0 warnings)": the errors are the number in parentheses
_SUMMARY_SPLIT = re.compile(r"\((\d+) errors?, (\d+) warnings?\)")
# the tool's own failure (not the program's): its words are the record's message
_INTERNAL = re.compile(r"^(?:Internal Sanitizer Error|Sanitizer Internal Error|Internal error)\b", re.IGNORECASE)
_HEADER_KINDS = (
    ("Barrier error", "barrier_error"),
    ("Invalid __syncthreads", "barrier_error"),
    ("Program hit", "api_error"),
    ("Misaligned", "misaligned_address"),
    ("Out-of-range", "out_of_range_address"),
    ("Address out of bounds", "out_of_range_address"),
    ("Malloc/Free error", "malloc_free_error"),
    ("Leaked", "leak"),
    ("Cuda API error", "api_error"),
    ("Device not supported", "sanitizer_unsupported"),
    ("Error:", "error"),
)


@dataclass
class SanitizerReport:
    tool: str
    kind: str  # invalid_global_write, race_write_read, uninitialized_global_read, barrier_error, api_error, ...
    severity: str  # "error" or "warning"
    message: str  # the report's first line
    kernel: str | None = None
    file: str | None = None
    line: int | None = None
    details: list[str] = field(default_factory=list)
    thread: str | None = None
    block: str | None = None
    hazards: int | None = None
    second_kind: str | None = None  # racecheck: the other access
    second_file: str | None = None
    second_line: int | None = None
    count: int = 1  # identical reports (same kind, kernel, line) folded together
    source: str | None = None
    source_line: int | None = None
    py_line: int | None = None
    py_column: int | None = None
    second_py_line: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def kernel_name(self) -> str | None:
        return self.kernel.split("(")[0].strip() if self.kernel else None

    def describe(self) -> str:
        where = []
        if self.kernel_name:
            where.append(f"in {self.kernel_name}")
        if self.py_line:
            where.append(f"at line {self.py_line}")
        elif self.file and self.line:
            where.append(f"at {os.path.basename(self.file)}:{self.line}")
        if self.second_py_line:
            where.append(f"(the other access at line {self.second_py_line})")
        if self.thread:
            where.append(f"by thread ({self.thread}) in block ({self.block})")
        extra = f" [{self.hazards} hazards]" if self.hazards else ""
        times = f" (x{self.count})" if self.count > 1 else ""
        details = "; ".join(d for d in self.details if "Address" in d or "Access" in d or "allocation" in d)[:300]
        text = f"{self.tool}: {self.message}{extra} " + " ".join(where) + times
        return text.strip() + (f": {details}" if details else "")


def parse_sanitizer_output(text: str, tool: str) -> tuple[list[SanitizerReport], dict]:
    """Reports of compute-sanitizer's log, folded by (kind, kernel, line); and its summary line(s)."""
    reports: list[SanitizerReport] = []
    current: SanitizerReport | None = None
    summary: dict = {}
    in_backtrace = False
    pending: str | None = None  # a race access whose location comes on the next line
    for raw in text.splitlines():
        if not raw.startswith("="):
            continue
        match = _PREFIX.match(raw)
        if match is None:
            continue
        indent, body = match.group("indent"), match.group("body").strip()
        if not body:
            continue
        if _SUMMARY.search(body):
            summary.setdefault("lines", []).append(body)
            split = _SUMMARY_SPLIT.search(body)
            number = split or re.search(r"(\d+) errors?", body)
            if number:
                summary["errors"] = summary.get("errors", 0) + int(number.group(1))
            if split:
                summary["warnings"] = summary.get("warnings", 0) + int(split.group(2))
            current = None
            continue
        if not indent and _INTERNAL.match(body):
            summary.setdefault("internal", []).append(body)
            current = None
            continue
        if body.startswith("COMPUTE-SANITIZER") or body.startswith("Target application returned"):
            continue
        if not indent:
            current = _header(body, tool)
            in_backtrace = False
            pending = None
            if current is not None:
                reports.append(current)
            continue
        if current is None:
            continue
        if body.startswith("Saved host backtrace") or body.startswith("Host Frame") or body.startswith(
                "Device Frame"):
            in_backtrace = True
            continue
        if in_backtrace:
            continue
        if current.kind.startswith("race"):
            and_match = _RACE_AND.match(body)
            if and_match:
                if current.second_kind is None:
                    current.second_kind = and_match.group("second").lower()
                    current.kind = f"{current.kind}_{current.second_kind}"
                    current.message = current.message.replace("access", current.second_kind)
                    second = _location(and_match.group("rest")) if and_match.group("rest").strip() else None
                    if second:
                        current.second_file, current.second_line = second[1], second[2]
                        current.kernel = current.kernel or second[0]
                    else:
                        pending = "second"
                if and_match.group("hazards"):
                    current.hazards = max(current.hazards or 0, int(and_match.group("hazards")))
                continue
            hazards = re.match(r"^\[(\d+) hazards?\]$", body)
            if hazards:
                current.hazards = max(current.hazards or 0, int(hazards.group(1)))
                continue
        location = _location(body) if (body.startswith("at ") or "+0x" in body) else None
        if location is not None:
            kernel, file, line = location
            if pending == "second" and current.second_line is None:
                current.second_file, current.second_line = file, line
                pending = None
            elif file and current.file is None:
                current.file, current.line = file, line
            current.kernel = current.kernel or kernel
            continue
        thread = _THREAD.search(body)
        if thread:
            current.thread = thread.group("thread").replace(" ", "")
            current.block = thread.group("block").replace(" ", "")
            continue
        if len(current.details) < 6:
            current.details.append(body)
    return _fold(reports), summary


def _header(body: str, tool: str) -> SanitizerReport | None:
    race = _RACE.match(body)
    if race:
        rest = race.group("rest")
        first = race.group("first").lower()
        report = SanitizerReport(tool, f"race_{first}", "warning" if race.group("severity").lower().startswith("warn")
                                 else "error", f"race between a {first} and another thread's access")
        inline = _RACE_INLINE_AND.search(rest)
        if inline:  # both accesses on one line
            rest = rest[:inline.start()]
            report.kind = f"race_{first}_{inline.group('second').lower()}"
            report.message = f"race between a {first} and another thread's {inline.group('second').lower()}"
            second = _location(inline.group("rest"))
            if second:
                report.second_file, report.second_line = second[1], second[2]
            if inline.group("hazards"):
                report.hazards = int(inline.group("hazards"))
        if inline:
            report.second_kind = inline.group("second").lower()
        location = _location(rest) if rest.strip() else None
        if location:
            report.kernel, report.file, report.line = location
        return report
    invalid = _INVALID.match(body)
    if invalid:
        space = invalid.group("space").strip("_")
        return SanitizerReport(tool, f"invalid_{space}_{invalid.group('op')}", "error", body)
    uninitialized = _UNINIT.match(body)
    if uninitialized:
        return SanitizerReport(tool, f"uninitialized_{uninitialized.group('space').strip('_')}_read", "error", body)
    for prefix, kind in _HEADER_KINDS:
        if body.startswith(prefix) or (prefix.endswith(":") and prefix in body):
            return SanitizerReport(tool, kind, "error", body)
    if body.startswith("Warning") or body.startswith("WARNING"):
        return SanitizerReport(tool, "warning", "warning", body)
    return None


def _location(text: str) -> tuple[str | None, str | None, int | None] | None:
    text = text.strip()
    if text.startswith("at "):
        text = text[3:].strip()
    old = _AT_OLD.search(text)
    if old:
        return old.group("kernel").strip(), old.group("file").strip(), int(old.group("line"))
    new = _AT_NEW.search(text)
    if new:
        file = new.group("file")
        return new.group("kernel").strip(), file.strip() if file else None, int(new.group("line")) if file else None
    simple = re.search(r"in (?P<file>\S+):(?P<line>\d+)", text)
    if simple:
        return None, simple.group("file"), int(simple.group("line"))
    return None


def _fold(reports: list[SanitizerReport]) -> list[SanitizerReport]:
    folded: dict[tuple, SanitizerReport] = {}
    for report in reports:
        key = (report.tool, report.kind, report.kernel_name, report.file, report.line, report.second_line)
        if key in folded:
            folded[key].count += 1
            if report.hazards:
                folded[key].hazards = max(folded[key].hazards or 0, report.hazards)
        else:
            folded[key] = report
    return list(folded.values())


def candidate_reports(reports: list[SanitizerReport], source_map: SourceMap,
                      kernel_names: set[str]) -> tuple[list[SanitizerReport], int]:
    """The reports about the candidate's own code (its .cu files or its kernels, and API errors), mapped to
    .py lines; and how many reports were about other code (PyTorch's own kernels)."""
    kept, other = [], 0
    for report in reports:
        ours = report.kind in ("api_error", "sanitizer_unsupported") or (
            report.file is not None
            and bool(source_map.locate(report.file, report.line, kernel=report.kernel_name))) or (
            report.kernel_name is not None and report.kernel_name in kernel_names)
        if not ours:
            other += report.count
            continue
        source_map.apply(report)
        if report.second_line:
            second = source_map.locate(report.second_file, report.second_line, kernel=report.kernel_name)
            report.second_py_line = second.get("py_line")
        kept.append(report)
    return kept, other


def kernel_names(solution_text: str | None, path: str = "solution.py") -> set[str]:
    """The `__global__` function names of a solution's CUDA sources (a textual scan)."""
    if not solution_text:
        return set()
    names: set[str] = set()
    for unit in load_document(path, solution_text).units:
        names |= kernel_definitions(unit.text)
    return names


_KERNEL_DEFINITION = re.compile(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:[\w:<>,\s*&]+?)\s+"
                                r"(?P<name>\w+)\s*\(")


def kernel_definitions(cuda_text: str) -> set[str]:
    """The names of the `__global__` functions a CUDA source defines (a textual scan)."""
    return {match.group("name") for match in _KERNEL_DEFINITION.finditer(cuda_text)}


def kernels_at_lines(solution_text: str | None, path: str, lines: set[int]) -> set[str]:
    """The names of the kernels whose definitions (signature to closing brace) hold any of the file's
    `lines`."""
    if not solution_text or not lines:
        return set()
    found = set()
    for unit in load_document(path, solution_text).units:
        for match in _KERNEL_DEFINITION.finditer(unit.text):
            end = _body_end(unit.text, match.end())
            first = unit.to_file(unit.text.count("\n", 0, match.start()) + 1, 1).line
            last = unit.to_file(unit.text.count("\n", 0, end) + 1, 1).line
            if any(first <= line <= last for line in lines):
                found.add(match.group("name"))
    return found


def _body_end(text: str, start: int) -> int:
    """The offset of the brace closing the body that opens first after `start` (the text's end if none)."""
    opening = text.find("{", start)
    if opening < 0:
        return len(text)
    depth = 0
    for index in range(opening, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return len(text)


KERNEL_SELECTIONS = ("all", "own", "flagged")


def parse_kernel_selection(value: str) -> str | list[str]:
    """`--sanitize-kernels`: "all" (every kernel, PyTorch's too), "own" (the solution's kernels), "flagged"
    (the kernels holding a line cudalint reported; the solution's when none), or a list of names."""
    value = (value or "").strip()
    if value in KERNEL_SELECTIONS:
        return value
    names = [name.strip() for name in value.split(",") if name.strip()]
    bad = [name for name in names if not re.fullmatch(r"[A-Za-z_]\w*", name)]
    if not names or bad:
        raise ValueError(f"--sanitize-kernels {value!r}: give all, own, flagged or kernel names separated by commas")
    return names


def sanitizer_command(tool: str, executable: str = "compute-sanitizer",
                      kernels: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The compute-sanitizer prefix for one tool; its report goes to its standard output. `kernels` limits the
    instrumentation to the kernels whose names contain one of them (none: every kernel): PyTorch's own
    kernels then run at full speed."""
    if tool not in SANITIZER_TOOLS:
        raise ValueError(f"unknown sanitizer tool {tool!r}; one of {', '.join(SANITIZER_TOOLS)}")
    command = [executable, "--tool", tool, "--print-limit", "200"]
    for name in kernels:
        command += ["--kernel-name", f"kns={name}"]
    return command


__all__ = ["CompileMessage", "MESSAGE_LIMIT", "SANITIZER_TOOLS", "SanitizerReport", "SourceMap", "candidate_reports",
           "compile_messages", "kernel_definitions", "kernel_names", "kernels_at_lines", "parse_compiler_output",
           "parse_kernel_selection", "parse_sanitizer_output",
           "sanitizer_command", "short_message"]
