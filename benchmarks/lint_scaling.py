"""Lint time and memory against file size: is the time per MB constant?

    python benchmarks/lint_scaling.py [--sizes 64K,256K,1M,4M] [--repeat 3] [--kind cu,py] [--checkout DIR]
                                      [--cli] [--profile SIZE] [--keep DIR]

Builds KernelBench-like files of growing size from the corpus's own kernels, each copy's identifiers renamed
so that the file stays one valid translation unit with many distinct kernels, launches and shared arrays:
- `cu`: one `.cu` file, the corpus `.cu` files cycled, their `#include`s hoisted to the top, every name a
  copy declares at file scope (functions, kernels, macros, types, globals) given the copy's suffix;
- `py`: one `.py` solution, the corpus `.py` files cycled, each with its own `load_inline` module (its
  module-level Python names and its CUDA names suffixed, as above), the last copy's `ModelNew` the graded one.
Each size is linted in a fresh process (warmed up on a small file first) with `lint_source`: the median of
`--repeat` runs of wall and CPU time, the CPU time per MB (less disturbed than wall time where other
processes share the cores), the peak RSS of the process and its growth over the warmed-up process,
and the number of findings (which should grow with the size, about linearly). `--cli` also times one
`cudalint check` of each file (a new process: start-up included). `--checkout DIR` measures another
checkout's code on the same files (its compiled parts built), for a before/after table. `--profile SIZE`
lints that size once under a sampling profiler and prints where the time goes (see `profile`).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]

_INCLUDE = re.compile(r"^\s*#\s*include\b.*$", re.M)
_MACRO = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)
_TAG = re.compile(r"\b(?:struct|class|union|enum)\s+(\w+)")
_EXTERN_SHARED = re.compile(r"\bextern\s+__shared__[^;]*?(\w+)\s*\[")  # one entity across kernels
_FILE_SCOPE_NAME = re.compile(r"\b([A-Za-z_]\w*)\s*(?=[(\[=;])")
_C_WORDS = frozenset(
    "if for while switch return sizeof decltype alignof operator template typename static_cast "
    "reinterpret_cast const_cast dynamic_cast defined main".split())
_PY_NAME = re.compile(r"^(?:def|class)\s+(\w+)|^(\w+)\s*(?::[^=\n]*)?=(?!=)", re.M)
_PY_KEEP = frozenset({"ModelNew", "Model", "get_inputs", "get_init_inputs"})
_TRIPLE_QUOTED = re.compile(r'"""(.*?)"""|\'\'\'(.*?)\'\'\'', re.S)


def _file_scope_text(code: str) -> str:
    """The text of `code` at brace depth 0 (what C declares at file or namespace scope), comments and
    string literals blanked."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
                  lambda m: " " * len(m.group()), code, flags=re.S)
    kept, depth = [], 0
    for char in code:
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            kept.append(char)
    return "".join(kept)


def c_names(code: str) -> set[str]:
    """The names a CUDA/C++ text declares at file scope: its functions, kernels, globals, types and macros."""
    scope = _file_scope_text(code)
    scope = re.sub(r"\busing\s+namespace\s+[\w:]+\s*;", "", scope)  # a name used, not declared
    names = set(_MACRO.findall(code)) | set(_TAG.findall(scope)) | set(_EXTERN_SHARED.findall(code))
    for line in scope.splitlines():
        if line.lstrip().startswith("#"):
            continue
        names.update(_FILE_SCOPE_NAME.findall(re.sub(r"=\s*[\w:]+", "=", line)))  # declared, not used
    members = set(re.findall(r"(?:\.|->)\s*([A-Za-z_]\w*)", code))  # `.x`: renaming a field would break it
    return {n for n in names if n not in _C_WORDS and not n.startswith("__") and n not in members}


def _rename(text: str, names: set[str], suffix: str) -> str:
    if not names:
        return text
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda m: m.group(1) + suffix, text)


def _sources(kind: str) -> list[str]:
    """The corpus files of a kind that can be copied: a solution that does not parse (the CL400 case) or
    that binds its own Python module would stop the copies after it from being analysed."""
    texts = [p.read_text() for p in sorted((REPOSITORY / "corpus" / kind).rglob(f"*.{kind}"))]
    return [t for t in texts if "PYBIND11_MODULE" not in t and "expect: CL400" not in t]


def build_cu(size: int) -> str:
    sources, includes, bodies, length, copy = _sources("cu"), {}, [], 0, 0
    while length < size:
        text = sources[copy % len(sources)]
        for line in _INCLUDE.findall(text):
            includes.setdefault(line.strip(), None)
        body = _rename(_INCLUDE.sub("", text), c_names(text), f"_c{copy}")
        bodies.append(f"// ---- copy {copy}\n{body}\n")
        length += len(body)
        copy += 1
    return "\n".join(includes) + "\n\n" + "".join(bodies)


def build_py(size: int) -> str:
    sources, copies, length, copy = _sources("py"), [], 0, 0
    while length < size:
        text = sources[copy % len(sources)]
        names = set()
        for literal in _TRIPLE_QUOTED.finditer(text):
            names |= c_names(literal.group(1) or literal.group(2) or "")
        names |= {a or b for a, b in _PY_NAME.findall(text)} - _PY_KEEP
        suffix = f"_c{copy}"
        text = re.sub(r"(\bname\s*=\s*[\"'])(\w+)", lambda m: m.group(1) + m.group(2) + suffix, text)
        copies.append(_rename(text, names, suffix))
        length += len(copies[-1])
        copy += 1
    # one graded solution: the earlier copies' ModelNew, Model and inputs are helpers under other names
    for index in range(len(copies) - 1):
        copies[index] = _rename(copies[index], set(_PY_KEEP), f"_c{index}")
    return "\n\n".join(copies)


def _measure(root: str, path: str, repeat: int, connection) -> None:
    sys.path.insert(0, root)
    from cudalint import lint_source
    from cudalint.engine import tune_garbage_collector

    tune_garbage_collector()
    text = Path(path).read_text()
    _warm_up(path)
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times, cpu_times, findings = [], [], []
    for _ in range(repeat):
        start, cpu_start = time.perf_counter(), time.process_time()
        findings = lint_source(text, filename=path)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    codes: dict[str, int] = {}
    for finding in findings:
        codes[finding.code] = codes.get(finding.code, 0) + 1
    connection.send((statistics.median(times), statistics.median(cpu_times), base_rss, peak, codes))


def _warm_up(path: str) -> None:
    """Lint one corpus file of the same kind first: stub headers, preludes and the parser pool are ready."""
    from cudalint import lint_source

    suffix = Path(path).suffix
    lint_source(_sources(suffix.lstrip("."))[0], filename="warm" + suffix)


def measure(root: str, path: str, repeat: int) -> tuple[float, float, int, int, dict[str, int]]:
    """Median wall and CPU seconds, warmed-up and peak RSS (KiB), findings per code, in a fresh process."""
    mine, theirs = multiprocessing.Pipe()
    process = multiprocessing.Process(target=_measure, args=(root, path, repeat, theirs))
    process.start()
    result = mine.recv()
    process.join()
    return result


def time_cli(root: str, path: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cudalint", "check", "--exit-zero", "-q", path], cwd=root,
                   env=dict(os.environ, PYTHONPATH=root), capture_output=True, check=False)
    return time.perf_counter() - start


def profile(root: str, path: str) -> None:
    """Sample the lint thread's stack every 2 ms while it lints `path` once; print each function's share
    of the samples, inclusive (on the stack) and self (on top). cProfile's overhead per call distorts
    this code's many small calls, and the lint runs on a thread of its own, which cProfile does not see."""
    sys.path.insert(0, root)
    from cudalint import lint_source
    from cudalint.engine import _lint_thread, tune_garbage_collector

    tune_garbage_collector()
    _warm_up(path)
    target = _lint_thread._thread.ident
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    samples = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal samples
        while not done.is_set():
            frame, seen = sys._current_frames().get(target), set()
            if frame is not None:
                samples += 1
                own[_frame_name(frame)] += 1
            while frame is not None:
                name = _frame_name(frame)
                if name not in seen:
                    seen.add(name)
                    inclusive[name] += 1
                frame = frame.f_back
            time.sleep(0.002)

    sampler = threading.Thread(target=sample)
    sampler.start()
    start = time.perf_counter()
    lint_source(Path(path).read_text(), filename=path)
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    print(f"{path}: {seconds:.2f} s, {samples} samples")
    for title, counts in (("inclusive", inclusive), ("self", own)):
        print(f"  {title}:")
        for name, count in counts.most_common(40):
            print(f"    {100 * count / max(samples, 1):5.1f}%  {count / max(samples, 1) * seconds:7.2f} s  {name}")


def _frame_name(frame) -> str:
    code = frame.f_code
    return f"{code.co_filename.rsplit('cudalint/', 1)[-1]}:{code.co_firstlineno}({code.co_name})"


def parse_size(text: str) -> int:
    units = {"K": 1000, "M": 1000_000}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64K,256K,1M,4M")
    parser.add_argument("--kind", default="cu,py")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--checkout", default=str(REPOSITORY))
    parser.add_argument("--cli", action="store_true")
    parser.add_argument("--profile", metavar="SIZE")
    parser.add_argument("--keep", metavar="DIR", help="write the generated files there and keep them")
    args = parser.parse_args()
    multiprocessing.set_start_method("spawn")
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
        run_benchmark(args, Path(args.keep))
    else:
        with tempfile.TemporaryDirectory(prefix="cudalint-scaling-") as directory:
            run_benchmark(args, Path(directory))


def run_benchmark(args: argparse.Namespace, directory: Path) -> None:
    builders = {"cu": build_cu, "py": build_py}
    if args.profile:
        for kind in args.kind.split(","):
            path = directory / f"scaling_{args.profile}.{kind}"
            path.write_text(builders[kind](parse_size(args.profile)))
            profile(args.checkout, str(path))
        return
    print(f"checkout {args.checkout}, median of {args.repeat}")
    print("| file | bytes | kernels | lint s | CPU s | CPU s per MB | peak RSS MB | RSS growth MB | findings |"
          + (" check s |" if args.cli else ""))
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if args.cli else ""))
    for kind in args.kind.split(","):
        per_mb = []
        for size_text in args.sizes.split(","):
            text = builders[kind](parse_size(size_text))
            path = directory / f"scaling_{size_text}.{kind}"
            path.write_text(text)
            seconds, cpu, base, peak, codes = measure(args.checkout, str(path), args.repeat)
            megabytes = len(text.encode()) / 1e6
            per_mb.append(cpu / megabytes)
            row = (f"| {path.name} | {len(text.encode())} | {text.count('__global__')} | {seconds:.2f} | {cpu:.2f} | "
                   f"{cpu / megabytes:.2f} | {peak / 1024:.0f} | {(peak - base) / 1024:.0f} | "
                   f"{sum(codes.values())} |")
            if args.cli:
                row += f" {time_cli(args.checkout, str(path)):.2f} |"
            print(row, flush=True)
        print(f"{kind}: CPU time per MB, largest/smallest: {per_mb[-1] / per_mb[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
