"""Compile-only ground truth for cudalint's build verdict (issue 19): each solution's CUDA and C++ units
are written the way `torch.utils.cpp_extension.load_inline` writes them and compiled with nvcc and the
host compiler (no GPU, no linking), and the result is compared, file by file, with cudalint's verdict
(a CL901 or CL401 finding means "does not build").

    # here (no torch): the corpus's plain .cu files and the valid fixtures
    python benchmarks/nvcc_agreement.py corpus/cu tests/fixtures/valid --jobs 2
    # the development set: the units and cudalint's verdicts here (libclang), the compilers on the GPU
    # machine (torch installed, no libclang), continued over several calls through --results
    python benchmarks/nvcc_agreement.py --labels ../shared/data/realkernels/labels.jsonl --cause ok --cause B \\
        --prepare-only prepared.json
    python3 benchmarks/nvcc_agreement.py --prepared prepared.json --jobs 16 --results $OUT/rows.jsonl \\
        --json $OUT/agreement.json

A `.cu` file is compiled as nvcc compiles a file (cuda_runtime.h implied) with `nvcc -c`; a `.py` file's
`load_inline` calls give `cuda.cu` (`<torch/types.h>`, `<cuda.h>`, `<cuda_runtime.h>` prepended, compiled
with torch's nvcc flags and the call's `extra_cuda_cflags`) and `main.cpp` (`<torch/extension.h>` prepended,
the `PYBIND11_MODULE` of `functions=` appended, checked with `g++ -fsyntax-only`). The units come from
cudalint's own reading of the solution (`cudalint.harness.kernelbench.parse_solution`), so a source that
cudalint cannot resolve statically is reported as skipped, not guessed. Link errors (a bound function
declared but never defined) are beyond a compile-only check: CL401 findings of that kind count as
"cudalint-only" here.

Torch's include directories come from `--torch-include` (repeatable) or, when torch imports, from
`torch.utils.cpp_extension.include_paths`; a unit that needs torch's headers without either is skipped.
`--results FILE` receives one JSON line per file as soon as it is done, and a rerun with the same file
skips the files already in it (a long run can be continued in another call). Exit status 0 unless the
arguments are wrong.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

BUILD_CODES = ("CL901", "CL401")
# torch.utils.cpp_extension.COMMON_NVCC_FLAGS, used when torch is not importable
TORCH_NVCC_FLAGS = ["-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__", "--expt-relaxed-constexpr"]
NEEDS_TORCH = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](?:torch|ATen|c10|pybind11)/', re.MULTILINE)
COMPILER_ERROR = re.compile(r"\berror\b", re.IGNORECASE)
ERROR_COUNT = re.compile(r"errors? detected in the compilation")
# a header the compiler cannot find (gcc's and nvcc front end's wording)
MISSING_HEADER = re.compile(r'fatal error: ([\w./]+): No such file or directory|cannot open source file "([\w./]+)"')
VERDICTS = ("both build", "both fail", "cudalint-only fail", "nvcc-only fail")
ERROR_LINES = 8  # compiler error lines kept per failing unit


@dataclass
class Toolchain:
    nvcc: str
    cxx: str
    arch: str
    torch_include: list[str]
    nvcc_flags: list[str]
    python_include: str
    cuda_include: str
    timeout: float
    library_headers: frozenset[str] = frozenset()  # the headers cudalint knows (its stubs)


@dataclass
class Unit:
    """One file load_inline would write (or the .cu file itself), ready for the compiler."""

    name: str  # "cuda.cu" / "main.cpp" of a call, or the .cu file's name
    language: str  # "cuda" or "c++"
    text: str
    extension: str | None = None  # TORCH_EXTENSION_NAME
    extra_flags: list[str] = field(default_factory=list)


def solution_units(path: str, text: str) -> tuple[list[Unit], str | None]:
    """The units the build of `path` compiles, or a reason to skip the file."""
    if not path.endswith(".py"):
        return [Unit(os.path.basename(path), "cuda", text)], None
    from cudalint.harness.kernelbench import argument, parse_solution

    try:
        module = ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as error:
        return [], f"Python does not parse: {error}"
    solution = parse_solution(module, text, path)
    if not solution.load_inline_calls:
        return [], "no load_inline call"
    units: list[Unit] = []
    for number, call in enumerate(solution.load_inline_calls):
        if call.cpp.given and call.cpp.text is None or call.cuda.given and call.cuda.text is None:
            return [], f"the sources of load_inline call {number + 1} are not static"
        if call.functions_given and call.functions is None:
            return [], f"functions= of load_inline call {number + 1} is not static"
        implicit = not _true(argument(call.call, "no_implicit_headers", None))
        wrap = _true(argument(call.call, "with_pytorch_error_handling", None), default=True)
        name = call.name or f"extension_{number}"
        prefix = f"{name}/" if len(solution.load_inline_calls) > 1 else ""
        cpp = (["#include <torch/extension.h>"] if implicit else []) + [call.cpp.text or ""]
        if call.functions is not None:
            cpp.append("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {")
            cpp += [f'm.def("{f}", torch::wrap_pybind_function({f}), "{f}");' if wrap else f'm.def("{f}", {f}, "{f}");'
                    for f, _ in call.functions]
            cpp.append("}")
        units.append(Unit(f"{prefix}main.cpp", "c++", "\n".join(cpp), name))
        if call.cuda.given and call.cuda.text:
            head = ["#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>"] if implicit else []
            units.append(Unit(f"{prefix}cuda.cu", "cuda", "\n".join(head + [call.cuda.text]), name,
                              list(call.extra_cuda_cflags or [])))
    return units, None


def _true(node: ast.expr | None, default: bool = False) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return default


def compile_unit(unit: Unit, tools: Toolchain, directory: str) -> dict:
    """Compile one unit; the outcome, the command and the first error lines."""
    if NEEDS_TORCH.search(unit.text) and not tools.torch_include:
        return {"unit": unit.name, "status": "skipped", "reason": "needs torch's headers (--torch-include)"}
    source = os.path.join(directory, unit.name)
    os.makedirs(os.path.dirname(source), exist_ok=True)
    with open(source, "w", encoding="utf-8") as handle:
        handle.write(unit.text)
    includes = [f for d in tools.torch_include for f in ("-isystem", d)]
    defines = [f"-DTORCH_EXTENSION_NAME={unit.extension}", "-DTORCH_API_INCLUDE_EXTENSION_H"] if unit.extension else []
    if unit.language == "cuda":
        # torch adds its -gencode flags only when the call's own flags choose no architecture
        arch = [] if any(f.startswith(("-arch", "--gpu-architecture", "-gencode")) for f in unit.extra_flags) else [
            f"-arch={tools.arch}"]
        torch_flags = tools.nvcc_flags if unit.extension else []
        # torch's CUDA flags carry Python's headers too (<torch/extension.h> in a CUDA unit reaches Python.h)
        python = ["-isystem", tools.python_include] if unit.extension else []
        command = [tools.nvcc, "-c", source, "-o", source + ".o", "-std=c++17", *arch, *defines, *includes, *python,
                   *torch_flags, "--compiler-options", "-fPIC", *unit.extra_flags]
    else:
        command = [tools.cxx, "-fsyntax-only", "-std=c++17", "-fPIC", source, *defines, *includes,
                   "-isystem", tools.python_include, "-isystem", tools.cuda_include]
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=tools.timeout)
    except subprocess.TimeoutExpired:
        return {"unit": unit.name, "status": "timeout", "seconds": tools.timeout, "command": command}
    output = done.stdout + done.stderr
    errors = [line.replace(directory + os.sep, "") for line in output.splitlines()
              if COMPILER_ERROR.search(line) and not ERROR_COUNT.search(line)]
    missing = {next(g for g in m.groups() if g) for m in MISSING_HEADER.finditer(output)}
    if done.returncode != 0 and missing & set(tools.library_headers):
        # a CUDA library this toolkit does not ship (cuRAND, cuBLAS): says nothing about the code
        return {"unit": unit.name, "status": "skipped", "reason": f"this toolkit lacks <{sorted(missing)[0]}>",
                "command": command}
    return {"unit": unit.name, "status": "builds" if done.returncode == 0 else "fails", "rc": done.returncode,
            "seconds": round(time.monotonic() - started, 2), "errors": errors[:ERROR_LINES] or output.splitlines()[-3:],
            "command": command}


def compile_file(prepared: dict, tools: Toolchain) -> dict:
    """nvcc's verdict on one prepared solution: `fails` when any unit fails, `skipped` when any unit cannot be
    tried."""
    if prepared["reason"] is not None:
        return {"status": "skipped", "reason": prepared["reason"], "units": []}
    directory = tempfile.mkdtemp(prefix="nvcc-agreement-")
    try:
        results = [compile_unit(Unit(**unit), tools, directory) for unit in prepared["units"]]
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    statuses = {r["status"] for r in results}
    status = "fails" if "fails" in statuses else "skipped" if statuses - {"builds"} else "builds"
    reason = next((r.get("reason", r["status"]) for r in results if r["status"] in ("skipped", "timeout")), None)
    return {"status": status, "reason": reason if status == "skipped" else None, "units": results,
            "seconds": round(sum(r.get("seconds", 0.0) for r in results), 2)}


def prepare(files: list[str], labels: dict[str, dict], arch: str, jobs: int) -> dict:
    """What the compilers need and cudalint's verdicts, for `files`: the part that needs cudalint (and libclang),
    made once here and read on a machine that has torch and nvcc but no libclang (`--prepared`)."""
    from cudalint.frontend.parse import stub_header_names

    started = time.monotonic()
    verdicts = cudalint_verdicts(files, arch, jobs) if files else {}
    entries = {}
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as handle:
            units, reason = solution_units(path, handle.read())
        entries[path] = {"units": [vars(unit) for unit in units], "reason": reason, "cudalint": verdicts[path]}
        if path in labels:
            entries[path]["harness"] = {k: labels[path].get(k) for k in ("compiled", "correct", "cause", "subcause")}
    return {"arch": arch, "library_headers": sorted(stub_header_names()), "files": entries,
            "seconds": round(time.monotonic() - started, 1)}


def cudalint_verdicts(paths: list[str], arch: str, jobs: int) -> dict[str, dict]:
    """cudalint's build verdict on each file (its CL901/CL401 findings), and the other error rules it reports."""
    from cudalint.config import LintOptions
    from cudalint.engine import iter_lint_files

    verdicts = {}
    for result in iter_lint_files(paths, LintOptions(arch=arch), jobs):
        findings = [{"code": f.code, "line": f.line, "message": f.message} for f in result.findings
                    if f.code in BUILD_CODES]
        # a failure nvcc sees that another rule names (a legacy warp intrinsic, too much static shared memory)
        others = sorted({f.code for f in result.findings if f.code not in BUILD_CODES and f.severity == "error"})
        verdicts[result.path] = {"fails": bool(findings) or result.error is not None, "findings": findings,
                                 "other_errors": others, "error": result.error}
    return verdicts


def agreement(cudalint_fails: bool, nvcc_status: str) -> str | None:
    if nvcc_status not in ("builds", "fails"):
        return None
    nvcc_fails = nvcc_status == "fails"
    if cudalint_fails == nvcc_fails:
        return "both fail" if nvcc_fails else "both build"
    return "cudalint-only fail" if cudalint_fails else "nvcc-only fail"


def of_causes(label: dict, causes: list[str]) -> bool:
    """Whether a labelled kernel is of one of `causes` (a cause, `B`, or a subcause, `B1`); all do when none."""
    return not causes or any(label["cause"] == c or (label.get("subcause") or "").startswith(c) for c in causes)


def select_files(paths: list[str], labels: str | None, kernels: str | None, causes: list[str], limit: int | None,
                 ) -> tuple[list[str], dict[str, dict]]:
    """The files to check (the given paths, else the labelled ones of the chosen causes) and their labels."""
    found: list[str] = []
    if paths:
        from cudalint.engine import expand_paths

        found = list(expand_paths(paths))
    labelled: dict[str, dict] = {}
    if labels:
        root = kernels or os.path.join(os.path.dirname(labels), "kernels")
        with open(labels, encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
        for row in rows:
            if not of_causes(row, causes):
                continue
            labelled[os.path.join(root, row["path"])] = row
        found = [p for p in found if p in labelled] if paths else list(labelled)
    return (found[:limit] if limit else found), labelled


def default_toolchain(args: argparse.Namespace, library_headers: list[str]) -> Toolchain:
    torch_include = list(args.torch_include)
    nvcc_flags = list(TORCH_NVCC_FLAGS)
    if not torch_include:
        try:
            import torch.utils.cpp_extension as cpp_extension
        except ImportError:
            pass
        else:
            try:
                torch_include = cpp_extension.include_paths(device_type="cuda")
            except TypeError:  # torch before 2.6: include_paths(cuda=True)
                torch_include = cpp_extension.include_paths(cuda=True)
            except OSError:  # a CPU build of torch finds no CUDA home: its own headers are all it has
                torch_include = cpp_extension.include_paths()
            nvcc_flags = list(cpp_extension.COMMON_NVCC_FLAGS)
    cuda_home = args.cuda_home or os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    return Toolchain(args.nvcc, args.cxx, args.arch, torch_include, nvcc_flags, sysconfig.get_paths()["include"],
                     os.path.join(cuda_home, "include"), args.timeout, frozenset(library_headers))


def run(prepared: dict, tools: Toolchain, jobs: int, results_path: str | None,
        progress=None) -> dict:
    """Compile every prepared file and compare; the rows (one per file) and the timing. Rows already in
    `results_path` are kept."""
    files = list(prepared["files"])
    rows: dict[str, dict] = {}
    if results_path and os.path.exists(results_path):
        with open(results_path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    row = json.loads(line)
                    rows[row["path"]] = row
    pending = [p for p in files if p not in rows]
    started = time.monotonic()
    sink = open(results_path, "a", encoding="utf-8") if results_path else None
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(compile_file, prepared["files"][path], tools): path for path in pending}
            for future in as_completed(futures):
                path = futures[future]
                nvcc = future.result()
                lint = prepared["files"][path]["cudalint"]
                row = {"path": path, "cudalint": lint, "nvcc": nvcc,
                       "agreement": agreement(lint["fails"], nvcc["status"])}
                if "harness" in prepared["files"][path]:
                    row["harness"] = prepared["files"][path]["harness"]
                rows[path] = row
                if sink:
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()
                if progress:
                    progress(len(rows), len(files), row)
    finally:
        if sink:
            sink.close()
    ordered = [rows[p] for p in files if p in rows]
    return {"rows": ordered, "table": table(ordered), "seconds": {
        "wall": round(time.monotonic() - started, 1), "cudalint": prepared["seconds"],
        "compile_sum": round(sum(r["nvcc"].get("seconds", 0.0) for r in ordered), 1)},
        "toolchain": {"nvcc": tools.nvcc, "cxx": tools.cxx, "arch": tools.arch, "torch_include": tools.torch_include,
                      "nvcc_flags": tools.nvcc_flags}}


def table(rows: list[dict]) -> dict[str, int]:
    counts = {verdict: 0 for verdict in VERDICTS}
    counts.update({"nvcc-only fail, another rule reports it": 0, "skipped": 0})
    for row in rows:
        counts[row["agreement"] or "skipped"] += 1
        if row["agreement"] == "nvcc-only fail" and row["cudalint"]["other_errors"]:
            counts["nvcc-only fail, another rule reports it"] += 1
    return counts


def render(summary: dict) -> str:
    counts = summary["table"]
    lines = ["| files | both build | both fail | cudalint-only fail (false CL901/CL401) | nvcc-only fail (miss) "
             "| of which another rule reports it | skipped |", "| --- | --- | --- | --- | --- | --- | --- |",
             f"| {len(summary['rows'])} | {counts['both build']} | {counts['both fail']} | "
             f"{counts['cudalint-only fail']} | {counts['nvcc-only fail']} | "
             f"{counts['nvcc-only fail, another rule reports it']} | {counts['skipped']} |", ""]
    disagreements = [r for r in summary["rows"] if r["agreement"] in ("cudalint-only fail", "nvcc-only fail")]
    for row in disagreements:
        others = row["cudalint"]["other_errors"]
        lines.append(f"- {row['path']}: {row['agreement']}" + (f" (cudalint reports {', '.join(others)})" if others
                                                               else ""))
        for finding in row["cudalint"]["findings"]:
            lines.append(f"  - cudalint {finding['code']} line {finding['line']}: {finding['message'][:300]}")
        for unit in row["nvcc"]["units"]:
            if unit["status"] == "fails":
                lines += [f"  - nvcc {unit['unit']}: {error[:300]}" for error in unit["errors"][:3]]
    skipped = [r for r in summary["rows"] if r["agreement"] is None]
    if skipped:
        reasons: dict[str, int] = {}
        for row in skipped:
            reason = row["nvcc"].get("reason") or row["nvcc"]["status"]
            reasons[reason] = reasons.get(reason, 0) + 1
        lines.append("")
        lines += [f"skipped: {count} ({reason})" for reason, count in sorted(reasons.items())]
    seconds = summary["seconds"]
    lines += ["", f"time: {seconds['wall']} s wall, cudalint {seconds['cudalint']} s, "
              f"compilers {seconds['compile_sum']} s in all ({len(summary['rows'])} files)"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="solution files (.py, .cu) or directories")
    parser.add_argument("--labels", help="a labels.jsonl (the development set's): check its files")
    parser.add_argument("--kernels", help="the directory the labels' paths are under (default: kernels/ beside it)")
    parser.add_argument("--cause", action="append", default=[],
                        help="only labelled files of this cause or subcause (ok, A, B, B1, ...); repeatable")
    parser.add_argument("--limit", type=int, help="at most this many files")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--torch-include", action="append", default=[], help="torch's include directory; repeatable")
    parser.add_argument("--nvcc", default=shutil.which("nvcc") or "nvcc")
    parser.add_argument("--cxx", default=os.environ.get("CXX") or "g++")
    parser.add_argument("--cuda-home", help="for <cuda_runtime.h> in C++ units (default: $CUDA_HOME, /usr/local/cuda)")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per compiler run")
    parser.add_argument("--results", help="a JSON-lines file: one row per file as it is done; continued when rerun")
    parser.add_argument("--json", help="write the summary and every row to this file")
    parser.add_argument("--prepare-only", metavar="FILE",
                        help="write the units and cudalint's verdicts to FILE and stop (for a machine without "
                             "libclang)")
    parser.add_argument("--prepared", metavar="FILE", help="read the units and verdicts --prepare-only wrote")
    args = parser.parse_args(argv)
    if not args.paths and not args.labels and not args.prepared:
        parser.error("give files or directories, --labels, or --prepared")
    if args.prepared:
        with open(args.prepared, encoding="utf-8") as handle:
            prepared = json.load(handle)
        chosen = [(p, e) for p, e in prepared["files"].items()
                  if not args.cause or of_causes(e.get("harness") or {"cause": None}, args.cause)]
        prepared["files"] = dict(chosen[:args.limit] if args.limit else chosen)
    else:
        files, labels = select_files(args.paths, args.labels, args.kernels, args.cause, args.limit)
        prepared = prepare(files, labels, args.arch, max(1, args.jobs))
    if args.prepare_only:
        with open(args.prepare_only, "w", encoding="utf-8") as handle:
            json.dump(prepared, handle)
        print(f"{len(prepared['files'])} files prepared in {prepared['seconds']} s: {args.prepare_only}")
        return 0
    tools = default_toolchain(args, prepared["library_headers"])

    def progress(done: int, total: int, row: dict) -> None:
        print(f"[{done}/{total}] {row['agreement'] or 'skipped'}: {row['path']} ({row['nvcc'].get('seconds', 0)} s)",
              file=sys.stderr, flush=True)

    summary = run(prepared, tools, max(1, args.jobs), args.results, progress)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=1)
    print(render(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
