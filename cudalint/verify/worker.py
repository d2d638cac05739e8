"""The worker of `cudalint verify`: builds, checks, sanitizes and times ONE candidate, in its own process.

Run as a script, never imported by the parent at run time: `python worker.py REQUEST` (the request's
JSON, from a pipe: /dev/fd/N). The parent (`cudalint.verify.isolation`) starts one per candidate in a
sandbox (`cudalint.sandbox`) with a time limit, `CUDA_VISIBLE_DEVICES` naming one GPU, and kills
everything it started when the limit passes. This file
imports only the standard library at the top; torch is imported inside the modes, so the pure helpers
here (the build-cache key, error classification) can be tested without torch.

The request (JSON) names the mode and the channels, pipes inherited from the parent: `channel`, the
file descriptor the progress goes to, and in `run` mode `outputs`, where the candidate's output tensors
go. The solution's code runs in this process and can write to both, so nothing it says here passes it:
the parent's `judge` decides.

- `build`: executes the solution module with `load_inline` routed into the build cache, on no GPU
  (the parent hides them), so that the slow compilations of a batch run in parallel before any timing.
- `run`: builds (a cache hit after `build`) and runs the correctness trials, sending each trial's
  candidate outputs to the `outputs` channel; when its own comparison passes, runs the candidate's timed
  rounds, clocked by the parent (`TimedRounds`, `clock`), and sends each round's last outputs.
- `judge`: never loads the solution. Computes the reference's outputs for the same trial seeds and
  compares the candidate's, as the `run` worker sent them (file descriptor `outputs`), with them: the
  correctness verdict; then runs the reference's timed rounds (the same seeds and nonces, the same
  parent's clock) and checks the candidate's rounds against them (`check_rounds`).
- `pch`: never loads a solution. Precompiles the binding header the builds share (`BindingHeader`).
- `sanitize`: one candidate forward pass and nothing else; the parent runs this mode under
  compute-sanitizer with the caching allocator off (`PYTORCH_NO_CUDA_MEMORY_CACHING=1`), so every
  tensor is its own allocation and an access past its end is out of bounds for memcheck.
- `probe`: reports torch's view of the GPUs.

The build cache: every `load_inline` call is routed to `CACHE/ext/<name>-<key>`, the key a hash of the
sources, the flags (`-lineinfo` is added to the CUDA flags, so sanitizer reports carry source lines) and
the toolchain (torch, CUDA, TORCH_CUDA_ARCH_LIST, Python); an unchanged call finds its library there and
ninja has nothing to do. A compile error is cached too (same key, same diagnostics, no rebuild); a build
killed or failing without compiler diagnostics is not. With `light_build` (the default of `verify`), a CUDA
unit is first built with its host code split off into a C++ unit of its own (`split_cuda_sources`, `host_split`),
then, where that does not apply or fails, with just the ATen headers it uses (`minimal_cuda_sources`), or
`<torch/types.h>` for `<torch/extension.h>` when it needs nothing beyond ATen (`lighter_cuda_sources`), and
as written when those fail.

The progress is sent (one JSON line per snapshot) at each stage, so when the process dies or hangs the
parent still knows how far it got: `stage`, the extensions built, the trials done.

Output poisoning: before each candidate forward the worker empties the caching allocator's cache, then
allocates the output-sized blocks (and a large and a few small blocks) the candidate's `torch::empty`
is going to receive, fills them with 0xFF bytes (NaN in float32/float16/bfloat16, -1 in integers) and
frees them again: the allocator keeps them and hands the same memory to the candidate. An element the
kernel never writes then reads back as NaN with the all-ones bit pattern, reported as unwritten. This is
best effort: it covers memory from PyTorch's caching allocator (torch::empty and friends), not cudaMalloc
called directly by the candidate.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import json
import math
import os
import re
import sys
import time
import traceback

if __package__:
    from . import clock, host_split
else:  # run as a script: the modules beside it
    import clock
    import host_split

STARTED = time.time()  # the worker's start, for its deadline
CACHE_VERSION = "1"
LINEINFO = "-lineinfo"  # added to every CUDA build: sanitizer reports then carry source lines
POISON_BYTE = 0xFF
SMALL_POOL_BLOCK = 512 * 1024  # allocations up to 1 MiB come from the allocator's 2 MiB small segments
FAILURE_FILE = "cudalint-build-failure.txt"  # a cached compile error: same key, same diagnostics
COMPILER_DIAGNOSTIC = re.compile(r"(\(\d+\): (?:catastrophic )?error|:\d+:(?:\d+:)? (?:fatal )?error:|ptxas error)")


# -------------------------------------------------------------------------------------- pure helpers


def cache_key(name: str, cpp_sources, cuda_sources, functions, extra_cflags, extra_cuda_cflags, extra_ldflags,
              extra_include_paths, options: dict | None = None, toolchain: dict | None = None) -> str:
    """The build-cache key of one `load_inline` call: the sources, the flags and the toolchain
    (torch and CUDA versions, target architectures, Python). Two calls with the same key build the same
    library; anything that changes the binary changes the key."""

    def listed(value):
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return sorted((str(k), str(v)) for k, v in value.items())
        return [str(v) for v in value]

    payload = {
        "version": CACHE_VERSION,
        "name": name,
        "cpp_sources": listed(cpp_sources),
        "cuda_sources": listed(cuda_sources),
        "functions": listed(functions),
        "extra_cflags": listed(extra_cflags),
        "extra_cuda_cflags": listed(extra_cuda_cflags),
        "extra_ldflags": listed(extra_ldflags),
        "extra_include_paths": listed(extra_include_paths),
        "options": {k: repr(v) for k, v in sorted((options or {}).items())},
        "toolchain": dict(sorted((toolchain or {}).items())),
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=True).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


_CUDA_ERRORS = (  # CUDA runtime error strings (as torch reports them) -> status; the specific before the generic
    ("an illegal memory access was encountered", "illegal_address"),
    ("illegal memory access", "illegal_address"),
    ("operation not supported on global/shared address space", "illegal_address"),  # cudaErrorInvalidAddressSpace
    ("illegal address", "illegal_address"),
    ("misaligned address", "misaligned_address"),
    ("out of memory", "oom"),
    ("device-side assert triggered", "device_assert"),
    ("unspecified launch failure", "launch_failure"),
    ("the launch timed out", "launch_failure"),
    ("invalid program counter", "launch_failure"),
    ("illegal instruction", "illegal_instruction"),
    ("cuda error", "cuda_error"),
    ("cudaerror", "cuda_error"),
    ("cuda driver error", "cuda_error"),
)


def classify_error(text: str) -> str | None:
    """The status a CUDA/torch error message stands for, or None for an ordinary exception. (torch appends
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions." to every CUDA error: only the
    error's own words count.)"""
    lowered = text.lower()
    for words, status in _CUDA_ERRORS:
        if words in lowered:
            return status
    return None


def source_offsets(file_text: str, parts: list[str]) -> list[dict]:
    """Where each source string passed to load_inline starts in the file torch wrote (1-based line),
    found by search, so that torch's implicit headers need not be known."""
    found, position = [], 0
    for part in parts:
        index = file_text.find(part, position) if part else -1
        if index < 0:
            index = file_text.find(part) if part else -1
        if index >= 0:
            found.append({"start_line": file_text.count("\n", 0, index) + 1, "text": part})
            position = index + len(part)
        else:
            found.append({"start_line": None, "text": part})
    return found


# ------------------------------------------------------------------------------------------ progress


class Progress:
    """The worker's state, sent to the parent's channel (a pipe: file descriptor `channel`) at each stage,
    so that a dead worker still tells how far it got. The parent keeps the last complete line."""

    def __init__(self, channel: int, mode: str) -> None:
        self.channel = channel
        self.state: dict = {"mode": mode, "stage": "start", "done": False, "extensions": [], "notes": [],
                            "pid": os.getpid(), "started": time.time()}
        self.write()

    def write(self) -> None:
        _write_all(self.channel, (json.dumps(self.state, default=_json_default) + "\n").encode("utf-8"))

    def stage(self, name: str) -> None:
        self.state["stage"] = name
        self.write()

    def note(self, text: str) -> None:
        self.state["notes"].append(text)

    def finish(self, status: str, message: str = "", **fields) -> None:
        self.state.update(fields)
        self.state.update(status=status, message=message, done=True, seconds=time.time() - self.state["started"])
        self.write()


def _json_default(value):
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return str(value)


# ------------------------------------------------------------------------------------------ building


class BuildFailure(Exception):
    """load_inline failed (compile, link or import of the built library)."""


def toolchain_id(torch) -> dict:
    return {
        "torch": torch.__version__,
        "cuda": str(torch.version.cuda),
        "arch_list": os.environ.get("TORCH_CUDA_ARCH_LIST", ""),
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "platform": sys.platform,
    }


def install_build_cache(progress: Progress, cache_dir: str, light: bool = False, precompiled: bool = False,
                        pch_dir: str | None = None) -> None:
    """Route every `torch.utils.cpp_extension.load_inline` call into `cache_dir/ext/<key>`: a call whose
    sources and flags were built before reuses the library (ninja finds nothing to do).

    With `light`, a call is first built with its CUDA unit's host code in a C++ unit of its own
    (`split_cuda_sources`, `_host_unit`), then with lighter headers: only `<ATen/core/Tensor.h>` and the
    headers of the operators its CUDA unit names (`minimal_cuda_sources`), else, for a unit that includes
    `<torch/extension.h>` (`<torch/torch.h>`, `<torch/all.h>`) and uses nothing beyond ATen,
    `<torch/types.h>` in its place (`lighter_cuda_sources`). When those builds fail, the call is built
    exactly as written, and only that build's outcome counts. With `precompiled`, the minimal build's C++
    unit includes `<torch/extension.h>` through a header precompiled in `pch_dir` (`BindingHeader`) where the
    `pch` worker made one for its flags (candidates only read that directory)."""
    import inspect

    import torch
    import torch.utils.cpp_extension as cpp_extension

    original = cpp_extension.load_inline
    signature = inspect.signature(original)
    toolchain = toolchain_id(torch)

    aten = AtenHeaders(cpp_extension.include_paths())
    common_nvcc_flags = list(getattr(cpp_extension, "COMMON_NVCC_FLAGS", []))  # nvcc gets them before the call's
    binding = None
    if precompiled and light:
        binding = BindingHeader(pch_dir or os.path.join(cache_dir, "pch"), cpp_extension, toolchain, precompile=False)

    def build(arguments: dict, cuda_sources: list[str], variant: str, written_as: list[str], preamble: str = "",
              host: str = ""):
        """One `load_inline` call into the cache; a `preamble` (the lighter builds' headers) is passed as
        its own first source string of the CUDA unit, with load_inline's implicit headers off (and
        `<torch/extension.h>` prepended to the C++ unit as load_inline would, through the shared
        precompiled header where there is one: `BindingHeader`); the `host` part of a split CUDA unit
        (`host_split`) is a third unit, `host.cpp`, after the same header (`_host_unit`)."""
        name = arguments.get("name")
        cpp_sources = _as_list(arguments.get("cpp_sources"))
        cuda_flags = list(arguments.get("extra_cuda_cflags") or [])
        if cuda_sources and LINEINFO not in cuda_flags:
            cuda_flags.append(LINEINFO)
        if preamble:
            arguments = dict(arguments, no_implicit_headers=True)
        options = {k: v for k, v in arguments.items() if k in (
            "with_cuda", "is_python_module", "with_pytorch_error_handling", "no_implicit_headers", "use_pch",
            "sycl_sources", "extra_sycl_cflags", "with_sycl")}
        include = None  # the C++ units' torch header, written here by the lighter builds (a split has a preamble)
        if preamble:
            include = binding.include_line(arguments) if binding is not None else TORCH_EXTENSION_INCLUDE
        built_cpp = [include, *cpp_sources] if include else cpp_sources
        if host:  # its own unit, after what the CUDA unit saw of torch (the precompiled header serves it too)
            host = (include if _HEAVY_INCLUDE.search("\n".join(written_as)) else "#include <torch/types.h>") \
                + "\n" + host
        built_cuda = [preamble, *cuda_sources] if preamble else cuda_sources
        key = cache_key(name, [*built_cpp, host] if host else built_cpp, built_cuda, arguments.get("functions"),
                        arguments.get("extra_cflags"),
                        cuda_flags, arguments.get("extra_ldflags"), arguments.get("extra_include_paths"),
                        options, toolchain)
        directory = os.path.join(cache_dir, "ext", f"{name}-{key[:20]}")
        os.makedirs(directory, exist_ok=True)
        _remove_stale_lock(directory)
        library = os.path.join(directory, f"{name}.so")
        failure = os.path.join(directory, FAILURE_FILE)
        record = {"name": name, "key": key, "directory": directory, "cache_hit": os.path.exists(library),
                  "ok": False, "seconds": None, "variant": variant}
        if arguments.get("build_directory"):
            record["requested_build_directory"] = arguments["build_directory"]
        progress.state["extensions"].append(record)
        if not record["cache_hit"] and os.path.exists(failure):
            # the same sources and flags failed to compile before: the same diagnostics, no rebuild
            with open(failure, encoding="utf-8") as handle:
                record["error"] = handle.read()
            record.update(cache_hit=True, seconds=0.0,
                          sources=_written_sources(directory, cpp_sources, cuda_sources, written_as))
            progress.write()
            raise BuildFailure(record["error"])
        progress.stage(f"build {name}" + _VARIANT_NOTE.get(variant, ""))
        call = dict(arguments, cpp_sources=list(built_cpp), build_directory=directory)
        if cuda_sources:
            call.update(cuda_sources=list(built_cuda), extra_cuda_cflags=cuda_flags)
        started = time.time()
        try:
            with _host_unit(cpp_extension, directory, host):
                module = original(**call)
        except Exception as error:
            record["error"] = f"{type(error).__name__}: {error}"
            if COMPILER_DIAGNOSTIC.search(record["error"]):  # a real compile error, not a killed compiler
                with open(failure, "w", encoding="utf-8") as handle:
                    handle.write(record["error"])
            raise BuildFailure(record["error"]) from error
        finally:
            record["seconds"] = time.time() - started
            record["sources"] = _written_sources(directory, cpp_sources, cuda_sources, written_as)
            progress.write()
        record["ok"] = True
        progress.stage(f"built {name}")
        return module

    def load_inline(*args, **kwargs):
        arguments = dict(signature.bind(*args, **kwargs).arguments)
        cuda_sources = _as_list(arguments.get("cuda_sources"))
        tried = False
        if light and not arguments.get("no_implicit_headers"):
            for variant, sources, preamble, host in lighter_attempts(arguments, cuda_sources):
                tried = True
                try:
                    return build(arguments, sources, variant, cuda_sources, preamble=preamble, host=host)
                except BuildFailure:
                    progress.note(f"{arguments.get('name')}: the lighter build{_VARIANT_NOTE[variant]} failed")
                    progress.state["extensions"][-1]["superseded"] = True
        if tried:
            progress.note(f"{arguments.get('name')}: built as written")
        return build(arguments, cuda_sources, "exact", cuda_sources)

    def lighter_attempts(arguments: dict, cuda_sources: list[str]):
        """The lighter builds that apply, each made when the one before failed: host code split off, then
        the fewest headers (variant, CUDA sources, CUDA preamble, host part)."""
        if not cuda_sources:  # a C++-only extension: nothing to lighten
            return
        split, refusal = split_cuda_sources(arguments, cuda_sources, common_nvcc_flags)
        if refusal:
            progress.note(f"{arguments.get('name')}: host code not split off: {refusal}")
        else:
            yield "split", split.device_sources, split.device_preamble, split.host_source
        minimal = minimal_cuda_sources(cuda_sources, aten)
        if minimal:
            yield "minimal", minimal[1], minimal[0], ""
            return
        lighter = lighter_cuda_sources(cuda_sources)
        if lighter:
            yield "light", lighter, "", ""

    cpp_extension.load_inline = load_inline


# the headers that pull in all of libtorch's C++ API (and pybind11) for a CUDA unit that needs only ATen
_HEAVY_INCLUDE = re.compile(r'^([ \t]*#[ \t]*include[ \t]*)[<"]torch/(?:extension|torch|all)\.h[>"]', re.MULTILINE)
# what a unit may use that torch/types.h (ATen, c10, torch::Tensor and the tensor factories) does not declare
_BEYOND_ATEN = re.compile(r"\bPYBIND11_|\bpybind11\b|\bpy::|\btorch::(?:nn|autograd|jit|optim|data|serialize|python|"
                          r"Library|CppFunction|cuda|utils|special|fft|linalg)\b|\bTORCH_LIBRARY|\bTORCH_MODULE")


def lighter_cuda_sources(cuda_sources: list[str]) -> list[str] | None:
    """The CUDA sources with `#include <torch/extension.h>` (`torch/torch.h`, `torch/all.h`) replaced by
    `#include <torch/types.h>` (which load_inline includes anyway), when they name nothing beyond ATen;
    None when there is nothing to lighten. nvcc then parses ATen only, not the whole C++ API and pybind11:
    the cold build of the CUDA unit takes less than half the time. Lines keep their numbers."""
    joined = "\n".join(cuda_sources)
    if not _HEAVY_INCLUDE.search(joined) or _BEYOND_ATEN.search(joined):
        return None
    return [_HEAVY_INCLUDE.sub(r"\1<torch/types.h>", source) for source in cuda_sources]


TORCH_EXTENSION_INCLUDE = "#include <torch/extension.h>"  # what load_inline prepends to the C++ unit
_VARIANT_NOTE = {"split": " (host code split off into its own unit)", "minimal": " (only the ATen headers it uses)",
                 "light": " (<torch/types.h> for <torch/extension.h>)"}
# every header that brings all of ATen's operators (what load_inline prepends to a CUDA unit included)
_ATEN_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"](?:torch/(?:extension|torch|all|types)|ATen/ATen)\.h[>"][^\n]*', re.MULTILINE)
_QUALIFIED_NAME = re.compile(r"\b(?:torch|at)::(\w+)")
_TORCH_ALIAS = re.compile(r"^[ \t]*constexpr auto k\w+ = [\w:]+;[ \t]*\n", re.MULTILINE)
# `torch::`/`at::` names <ATen/core/Tensor.h> declares (the tensor, its options, dtype and device constants);
# a CUDA unit's explicit includes (at::cuda's streams, guards) stay as written
_TENSOR_HEADER_NAMES = frozenset({
    "Tensor", "TensorBase", "TensorOptions", "ScalarType", "Scalar", "Device", "DeviceType", "IntArrayRef",
    "MemoryFormat", "Layout", "Half", "BFloat16", "dtype", "device", "layout", "cuda", "optional", "nullopt",
    "kFloat", "kFloat32", "kFloat16", "kHalf", "kBFloat16", "kDouble", "kFloat64", "kInt", "kInt32", "kLong",
    "kInt64", "kShort", "kInt16", "kChar", "kInt8", "kByte", "kUInt8", "kBool", "kCUDA", "kCPU", "kStrided"})
# what a CUDA unit gets from <torch/extension.h>'s standard library without naming it, and costs little
_STANDARD_HEADERS = ("algorithm", "array", "cmath", "cstdint", "cstdio", "iostream", "limits", "memory", "numeric",
                     "sstream", "string", "tuple", "type_traits", "utility", "vector")
# a unit that names ATen's operators unqualified, or asks for autograd, keeps torch/types.h
_UNQUALIFIED_OR_AUTOGRAD = re.compile(r"\busing\s+namespace\s+(?:torch|at)\b|\brequires_grad\b")


class AtenHeaders:
    """What the minimal build takes from an installed torch's headers: the per-operator header of a name
    (`ATen/ops/<name>.h`) and torch/types.h's dtype aliases (`torch::kFloat32 = at::kFloat`, ...), read
    from that header so that they follow the torch version."""

    def __init__(self, include_dirs: list[str]) -> None:
        self.ops = os.path.join(include_dirs[0], "ATen", "ops")
        self.aliases = ""
        for directory in include_dirs:
            try:
                with open(os.path.join(directory, "torch", "types.h"), encoding="utf-8") as handle:
                    self.aliases = "".join(_TORCH_ALIAS.findall(handle.read()))
                break
            except OSError:
                continue
        self.alias_names = frozenset(re.findall(r"\bauto\s+(\w+)", self.aliases))

    def operator(self, name: str) -> str | None:
        return f"ATen/ops/{name}.h" if os.path.isfile(os.path.join(self.ops, f"{name}.h")) else None


def minimal_cuda_sources(cuda_sources: list[str], aten: AtenHeaders) -> tuple[str, list[str]] | None:
    """The fewest headers that serve a CUDA unit that uses `torch::Tensor` and a few ATen operators: a
    preamble (`<ATen/core/Tensor.h>` and the tensor operators, the per-operator header of each
    `torch::`/`at::` function it names, `<ATen/Dispatch.h>` for AT_DISPATCH, the CUDA headers load_inline
    adds, torch/types.h's dtype aliases) and the sources with their
    ATen-wide includes blanked (lines keep their numbers); None when the unit names something else of
    torch (then the `<torch/types.h>` build or the sources as written). nvcc then parses a few hundred
    headers instead of all of ATen's operators: the CUDA unit's cold build takes about 11 s, not 26 s.
    `torch::NAME` still resolves (`namespace torch { using namespace at; }`, as torch/types.h has it); ATen's
    factories and torch's differ only for `requires_grad`, which keeps the unit out."""
    joined = "\n".join(cuda_sources)
    if not cuda_sources or _BEYOND_ATEN.search(joined) or _UNQUALIFIED_OR_AUTOGRAD.search(joined):
        return None
    operators = []
    for name in sorted(set(_QUALIFIED_NAME.findall(joined)) - _TENSOR_HEADER_NAMES - aten.alias_names):
        header = aten.operator(name)
        if header is None:
            return None
        operators.append(header)
    dispatch = ["ATen/Dispatch.h"] if "AT_DISPATCH" in joined else []
    headers = ["ATen/core/Tensor.h", "ATen/TensorOperators.h", *operators, *dispatch, *_STANDARD_HEADERS, "cuda.h",
               "cuda_runtime.h"]
    preamble = ("".join(f"#include <{h}>\n" for h in headers)
                + "namespace torch {\nusing namespace at;\n" + aten.aliases + "}\n")
    return preamble, [_ATEN_INCLUDE.sub("", source) for source in cuda_sources]


# nvcc flags whose effect on host code the split keeps: the optimization level (no change of meaning) and
# flags of device code only; `-D`/`-U` become directives of the host part, every other flag keeps the unit whole
_HOST_NEUTRAL_NVCC_FLAG = re.compile(
    r"-O[0-3]?|--?use_fast_math|-lineinfo|--?(?:expt-relaxed-constexpr|expt-extended-lambda|extended-lambda|restrict|"
    r"resource-usage|res-usage)|--?(?:ftz|prec-div|prec-sqrt|fmad)=(?:true|false)|"
    r"--?(?:maxrregcount|ptxas-options|gpu-architecture|arch|gencode)=\S+|-arch=\S+|-gencode=\S+|-Xptxas=\S+")
# the C++ flags the host part may share with the binding unit (g++ gets `extra_cflags`, nvcc did not)
_HOST_NEUTRAL_CXX_FLAG = re.compile(r"-O[0-3s]?|-g\d?|-w|-W[\w=-]*|-fPIC")
# what a shell reads other than as words split at spaces (torch's ninja file passes the flags unquoted)
_SHELL_SPECIAL = re.compile(r"""["'`$\\;&|<>()*?\[\]{}~#!]""")


def _shell_words(flags: list[str]) -> list[str] | None:
    """The words a shell makes of `flags` joined by spaces, as the compiler gets them from torch's ninja file;
    None when one holds a quote or another character the shell would read."""
    if any(_SHELL_SPECIAL.search(flag) for flag in flags):
        return None
    return [word for flag in flags for word in flag.split()]


def split_cuda_sources(arguments: dict, cuda_sources: list[str], common_nvcc_flags: list[str] = ()):
    """The host-split build of a load_inline call (`host_split.split_host_code`) and None, or None and why
    not. The host part becomes a C++ unit of its own, beside the binding unit (`build`), and keeps what it
    saw under nvcc: after `<torch/extension.h>` where the CUDA unit included it, else after
    `<torch/types.h>` (what load_inline gave the CUDA unit); with the macros of nvcc's `-D`/`-U` flags
    (torch's `common_nvcc_flags`, then the call's). Flags that would reach host code otherwise (`-I`,
    `-std`, `-Xcompiler`, ...) and C++ flags beyond the optimization level and warnings keep the unit whole."""
    if not cuda_sources:
        return None, "no CUDA sources"
    cxx_flags = _shell_words(_as_list(arguments.get("extra_cflags")))
    flags = _shell_words([*common_nvcc_flags, *_as_list(arguments.get("extra_cuda_cflags"))])
    if cxx_flags is None or flags is None:
        return None, "a flag the shell would read other than as words"
    for flag in cxx_flags:
        if not _HOST_NEUTRAL_CXX_FLAG.fullmatch(flag):
            return None, f"the C++ flag {flag} would reach host code nvcc compiled without it"
    macros, position = [], 0
    while position < len(flags):
        flag = flags[position]
        macro = re.fullmatch(r"(-D|-U|--define-macro=?|--undefine-macro=?)(.*)", flag)
        if macro:
            value = macro.group(2)
            if not value and position + 1 < len(flags):
                position += 1
                value = flags[position]
            name, equals, definition = value.partition("=")
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                return None, f"the nvcc flag {flag} defines no macro this split can read"
            undefine = macro.group(1).startswith(("-U", "--undefine"))
            macros.append(f"#undef {name}" if undefine else f"#define {name} {definition if equals else '1'}")
        elif flag in ("-Xptxas", "--ptxas-options"):
            position += 1  # its argument goes to ptxas: device code only
        elif not _HOST_NEUTRAL_NVCC_FLAG.fullmatch(flag):
            return None, f"the nvcc flag {flag} may change host code"
        position += 1
    try:
        split = host_split.split_host_code(cuda_sources, tuple(macros))
    except host_split.NotSplittable as refusal:
        return None, str(refusal)
    return split, None


class BindingHeader:
    """`<torch/extension.h>` precompiled once per toolchain and C++ flags, in the build cache
    (`CACHE/pch/<key>/`), for the binding unit (`main.cpp`: torch's C++ API and pybind11) of the lighter
    builds and the split's host unit (`host.cpp`, which has the same flags). g++ parsing that header is
    most of `main.o`'s 14 s; loading a precompiled one is not. torch's own `use_pch` writes into torch's
    include directory and removes it whenever `use_pch` is off, so it is not used here.

    The unit includes a wrapper that only includes `<torch/extension.h>`: where g++ finds no precompiled
    header beside it, or one it cannot use (other flags), it parses the header, and the unit is the same
    either way. The flags are the ones load_inline gives `main.cpp` (written by torch's own ninja-file
    writer into a scratch directory) less the extension's name, which the header does not use. The first
    `pch` worker (a worker that loads no solution: the directory is shared by every candidate, which only
    reads it) precompiles it for the usual flags (`PCH_FLAG_SETS`), one at a time under a lock, waiting for
    each until its deadline at most; a build whose flags have no header parses `<torch/extension.h>`.
    Candidates' workers (`precompile` off) never start one."""

    WRAPPER = "torch_extension.h"
    FAILED = ".failed"  # beside the wrapper: g++ could not precompile it with these flags; not tried again

    def __init__(self, root: str, cpp_extension, toolchain: dict, precompile: bool = True,
                 deadline: float | None = None) -> None:
        self.root = root
        self.cpp_extension = cpp_extension
        self.toolchain = toolchain
        self.precompile = precompile
        self.deadline = deadline
        self._pending = None  # (process, lock file, partial output, final output) of a background build

    def include_line(self, arguments: dict) -> str:
        flags = self._flags(arguments)
        if flags is None:
            return TORCH_EXTENSION_INCLUDE
        compiler, cflags = flags
        key = hashlib.sha256(json.dumps([compiler, cflags, self.toolchain]).encode()).hexdigest()[:20]
        directory = os.path.join(self.root, key)
        wrapper = os.path.join(directory, self.WRAPPER)
        try:
            os.makedirs(directory, exist_ok=True)
            if not os.path.exists(wrapper):
                _write_atomically(wrapper, TORCH_EXTENSION_INCLUDE + "\n")
            made = any(os.path.exists(wrapper + suffix) for suffix in (".gch", self.FAILED))
            if not made and self.precompile and self._pending is None:
                self._start(directory, wrapper, compiler, cflags)
        except OSError:
            return TORCH_EXTENSION_INCLUDE
        return f'#include "{wrapper}"'

    def _flags(self, arguments: dict) -> tuple[str, list[str]] | None:
        """The compiler and flags of `main.cpp` for these arguments, from the build file torch writes."""
        import inspect
        import shlex
        import tempfile

        writer = getattr(self.cpp_extension, "_write_ninja_file_to_build_library", None)
        if writer is None:
            return None
        with tempfile.TemporaryDirectory(prefix="cudalint-flags-") as scratch:
            given = {"path": os.path.join(scratch, "build.ninja"), "name": "cudalint_binding",
                     "sources": [os.path.join(scratch, "main.cpp")],
                     "extra_cflags": _as_list(arguments.get("extra_cflags")),
                     "extra_cuda_cflags": _as_list(arguments.get("extra_cuda_cflags")),
                     "extra_sycl_cflags": [], "extra_ldflags": _as_list(arguments.get("extra_ldflags")),
                     "extra_include_paths": _as_list(arguments.get("extra_include_paths")),
                     "with_cuda": arguments.get("with_cuda") is not False, "with_sycl": False,
                     "is_python_module": True, "is_standalone": False}
            try:
                parameters = inspect.signature(writer).parameters
                if any(p.default is inspect.Parameter.empty and name not in given for name, p in parameters.items()):
                    return None  # a torch whose writer wants something this code does not know
                writer(**{name: given[name] for name in parameters if name in given})
                with open(os.path.join(scratch, "build.ninja"), encoding="utf-8") as handle:
                    ninja = handle.read()
            except Exception:  # noqa: BLE001 - a private torch function: without it, no precompiled header
                return None
        variables = dict(re.findall(r"^(\w+) = (.*)$", ninja, re.MULTILINE))
        if "cxx" not in variables or "cflags" not in variables:
            return None
        cflags = [flag for flag in shlex.split(variables["cflags"]) + shlex.split(variables.get("post_cflags", ""))
                  if not flag.startswith("-DTORCH_EXTENSION_NAME=")]
        return variables["cxx"], cflags

    def _start(self, directory: str, wrapper: str, compiler: str, cflags: list[str]) -> None:
        import fcntl
        import subprocess

        lock = open(os.path.join(directory, "lock"), "w")  # noqa: SIM115 - held until the build ends
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another build is precompiling it
            lock.close()
            return
        final = wrapper + ".gch"
        if os.path.exists(final) or os.path.exists(wrapper + self.FAILED):
            lock.close()
            return
        for name in os.listdir(directory):  # left by a killed build: only the lock holder writes these
            if name.startswith(self.WRAPPER + ".gch.") and name.endswith(".tmp"):
                os.remove(os.path.join(directory, name))
        partial = f"{final}.{os.getpid()}.tmp"
        # in the worker's process group, so that the parent's kill of a worker that overruns stops it too
        process = subprocess.Popen([compiler, *cflags, "-x", "c++-header", wrapper, "-o", partial],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._pending = (process, lock, partial, final)

    def finish(self, timeout: float = 300.0) -> None:
        """Wait for a background precompilation this process started (until the deadline at most) and
        publish its header; a compiler that fails marks the flags, one killed or cut short does not."""
        if self._pending is None:
            return
        process, lock, partial, final = self._pending
        self._pending = None
        if self.deadline is not None:
            timeout = min(timeout, max(self.deadline - time.time(), 0.0))
        try:
            status = process.wait(timeout=timeout)
            if status == 0:
                os.replace(partial, final)
            elif status > 0:
                _write_atomically(final[:-len(".gch")] + self.FAILED, f"exit status {status}\n")
        except Exception:  # noqa: BLE001 - a header not made is a slower build next time, nothing more
            process.kill()  # past the deadline: the partial header is removed below and never published
            process.wait()
        finally:
            if os.path.exists(partial):
                os.remove(partial)
            lock.close()


HOST_UNIT = "host.cpp"  # the split's host part, a third unit of the extension


@contextlib.contextmanager
def _host_unit(cpp_extension, directory: str, host: str):
    """With a `host` part: load_inline's build gets one more C++ unit, `directory/host.cpp`, compiled with the
    binding unit's flags (torch's `_jit_compile` is given it beside `main.cpp` and `cuda.cu`, which load_inline
    writes as usual), and one more ninja job, so that the two C++ units build side by side."""
    if not host:
        yield
        return
    jit_compile = cpp_extension._jit_compile
    path = os.path.join(directory, HOST_UNIT)
    try:
        with open(path, encoding="utf-8") as handle:
            unchanged = handle.read() == host
    except OSError:
        unchanged = False
    if not unchanged:  # an unchanged file keeps its time: ninja has nothing to redo
        _write_atomically(path, host)
    jobs = os.environ.get("MAX_JOBS")

    def with_host(name, sources, *rest, **options):
        return jit_compile(name, [*sources, path], *rest, **options)

    cpp_extension._jit_compile = with_host
    if jobs and jobs.isdigit():
        os.environ["MAX_JOBS"] = str(int(jobs) + 1)
    try:
        yield
    finally:
        cpp_extension._jit_compile = jit_compile
        if jobs is not None:
            os.environ["MAX_JOBS"] = jobs


def _deadline(request: dict) -> float | None:
    """When the parent kills this worker, less a margin to write the result (None: no limit)."""
    timeout = request.get("timeout")
    return STARTED + float(timeout) - 5.0 if timeout else None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _write_atomically(path: str, text: str) -> None:
    partial = f"{path}.{os.getpid()}.tmp"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(partial, path)


def _as_list(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _remove_stale_lock(directory: str, older_than: float = 3600.0) -> None:
    """torch's FileBaton waits forever on a lock left by a killed build: drop one older than an hour
    (the parent removes the lock of a build it killed at once)."""
    lock = os.path.join(directory, "lock")
    try:
        if time.time() - os.path.getmtime(lock) > older_than:
            os.remove(lock)
    except OSError:
        pass


def _written_sources(directory: str, cpp_sources: list[str], cuda_sources: list[str],
                     cuda_as_written: list[str]) -> dict:
    """Where each source string starts in the files torch wrote; CUDA parts carry the text of the solution
    (`cuda_as_written`: a lighter build changed one line, not the line numbers), to map lines back."""
    written = {}
    for file_name, kind, parts, shown in (("main.cpp", "cpp", cpp_sources, cpp_sources),
                                          ("cuda.cu", "cuda", cuda_sources, cuda_as_written)):
        path = os.path.join(directory, file_name)
        if not parts or not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        offsets = source_offsets(text, parts)
        for offset, original in zip(offsets, shown):
            offset["text"] = original
        written[file_name] = {"path": path, "kind": kind, "parts": offsets}
    return written


def load_module(path: str, name: str, shared_globals=None):
    """Execute the file as module `name`. `shared_globals` (a module) seeds its namespace, as KernelBench
    executes the solution in the namespace the reference ran in: a solution may read the reference's
    sizes (`batch_size`) or subclass its `Model`."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    if shared_globals is not None:
        module.__dict__.update({k: v for k, v in vars(shared_globals).items() if not k.startswith("__")})
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------------- tensors


def _flatten(value, torch) -> list | None:
    """The tensors of a forward result: one tensor, or a tuple/list of them; None for anything else."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        tensors = []
        for item in value:
            inner = _flatten(item, torch)
            if inner is None:
                return None
            tensors += inner
        return tensors
    return None


def _to_device(values, device, torch, dtype=None):
    """Tensors moved to `device`; with a `dtype` (KernelBench's `precision`) cast to it too, integer tensors
    included, as KernelBench's `_process_input_tensor` does."""
    if dtype is not None:
        return [v.to(device=device, dtype=dtype) if isinstance(v, torch.Tensor) else v for v in values]
    return [v.to(device) if isinstance(v, torch.Tensor) else v for v in values]


def _fresh_inputs(reference, seed: int, device, torch, progress: Progress | None, keep_zeros: bool = False,
                  dtype=None) -> list:
    """get_inputs() under `seed`; a floating-point input that comes back all zeros is replaced by random
    values of the same shape (zeros hide unwritten outputs and wrong indexing) unless `keep_zeros`; cast to
    `dtype` when given (`_precision`)."""
    torch.manual_seed(seed)
    inputs = list(reference.get_inputs())
    for index, value in enumerate(inputs if not keep_zeros else ()):
        if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel() and not bool(value.any()):
            generator = torch.Generator(device="cpu").manual_seed(seed * 1000 + index)
            inputs[index] = torch.randn(value.shape, generator=generator, dtype=value.dtype).to(value.device)
            if progress is not None and f"input {index} was all zeros" not in " ".join(progress.state["notes"]):
                progress.note(f"input {index} was all zeros; replaced by seeded random values")
    return _to_device(inputs, device, torch, dtype)


def tolerance_for(dtype, tolerances: dict) -> tuple[float, float] | None:
    """(atol, rtol) for an output dtype; None means exact comparison (integers, bool)."""
    name = str(dtype).replace("torch.", "")
    if name in tolerances:
        atol, rtol = tolerances[name]
        return float(atol), float(rtol)
    if name in ("float32", "float", "float64", "double", "float16", "half", "bfloat16", "complex64"):
        return tuple(tolerances.get("float32", (1e-4, 1e-4)))
    return None


def compare(outputs, references, tolerances: dict, poisoned: bool, torch) -> dict:
    """Compare a candidate's output tensors with the reference's (both on one device)."""
    report = {"ok": True, "max_abs_error": 0.0, "mean_abs_error": 0.0, "failures": []}
    if outputs is None:
        report.update(ok=False, failures=[{"kind": "output_structure", "message": "forward did not return a tensor "
                                           "or a tuple of tensors"}])
        return report
    if len(outputs) != len(references):
        report.update(ok=False, failures=[{"kind": "output_structure", "message": f"forward returned {len(outputs)} "
                                           f"tensors, the reference {len(references)}"}])
        return report
    total_error, total_count = 0.0, 0
    for index, (out, ref) in enumerate(zip(outputs, references)):
        where = f"output {index}" if len(references) > 1 else "output"
        if tuple(out.shape) != tuple(ref.shape):
            report["failures"].append({"kind": "shape_mismatch", "output": index, "message":
                                       f"{where} has shape {tuple(out.shape)}, the reference {tuple(ref.shape)}"})
            continue
        if out.dtype != ref.dtype:
            report["failures"].append({"kind": "dtype_mismatch", "output": index, "message":
                                       f"{where} has dtype {out.dtype}, the reference {ref.dtype}"})
            continue
        tolerance = tolerance_for(ref.dtype, tolerances)
        if tolerance is None:
            mismatched = int((out != ref).sum())
            if mismatched:
                report["failures"].append({"kind": "mismatch", "output": index, "mismatched": mismatched,
                                           "numel": out.numel(), "message":
                                           f"{where}: {mismatched} of {out.numel()} elements differ (exact compare)"})
            continue
        atol, rtol = tolerance
        report.update(atol=atol, rtol=rtol)
        out64, ref64 = out.double(), ref.double()
        ref_finite = torch.isfinite(ref64)
        out_finite = torch.isfinite(out64)
        bad_nonfinite = ref_finite & ~out_finite
        both = ref_finite & out_finite
        difference = (out64 - ref64).abs()
        difference = torch.where(both, difference, torch.zeros_like(difference))
        if out.numel():
            report["max_abs_error"] = max(report["max_abs_error"], float(difference.max()))
            total_error += float(difference.sum())
            total_count += int(both.sum())
        nonfinite = int(bad_nonfinite.sum())
        if nonfinite:
            unwritten = _poison_count(out, bad_nonfinite, torch) if poisoned else 0
            if unwritten:
                message = (f"{where}: {unwritten} of {out.numel()} elements were never written (they still hold the "
                           f"NaN poison the output memory was filled with)")
                kind = "unwritten_output"
            else:
                message = f"{where}: {nonfinite} of {out.numel()} elements are NaN or Inf where the reference is finite"
                kind = "nonfinite"
            first = int(bad_nonfinite.flatten().nonzero()[0])
            report["failures"].append({"kind": kind, "output": index, "count": nonfinite, "unwritten": unwritten,
                                       "numel": out.numel(), "first_index": _unravel(first, out.shape),
                                       "message": message})
        # NaN in both at the same place is agreement (equal_nan); elsewhere the usual allclose bound
        same_nan = torch.isnan(out64) & torch.isnan(ref64)
        same_inf = (out64 == ref64) & ~ref_finite
        within = (difference <= atol + rtol * ref64.abs()) | same_nan | same_inf | bad_nonfinite
        mismatched = int((~within).sum())
        if mismatched:
            flat = int((~within).flatten().nonzero()[0])
            worst = int(difference.flatten().argmax())
            report["failures"].append({
                "kind": "mismatch", "output": index, "mismatched": mismatched, "numel": out.numel(),
                "first_index": _unravel(flat, out.shape), "worst_index": _unravel(worst, out.shape),
                "worst_value": float(out64.flatten()[worst]), "worst_expected": float(ref64.flatten()[worst]),
                "message": f"{where}: {mismatched} of {out.numel()} elements differ beyond atol={atol:g}, "
                           f"rtol={rtol:g} (max abs error {float(difference.max()):.3g} at "
                           f"{_unravel(worst, out.shape)}: got {float(out64.flatten()[worst]):.6g}, "
                           f"expected {float(ref64.flatten()[worst]):.6g})"})
    report["mean_abs_error"] = total_error / total_count if total_count else 0.0
    report["ok"] = not report["failures"]
    return report


def _poison_count(out, mask, torch) -> int:
    """How many of the masked elements still hold the all-ones poison bit pattern."""
    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}.get(out.element_size())
    if bits is None or not out.is_contiguous():
        out = out.contiguous()
    try:
        pattern = out.view(bits) == (POISON_BYTE if bits == torch.uint8 else -1)
    except (RuntimeError, TypeError):
        return 0
    return int((pattern & mask).sum())


def _unravel(index: int, shape) -> list[int]:
    position = []
    for size in reversed(list(shape)):
        position.append(index % size if size else 0)
        index = index // size if size else 0
    return list(reversed(position))


class Poisoner:
    """Fills the memory the caching allocator is about to hand out with 0xFF bytes (see the module doc):
    every block the allocator holds free (found in its memory snapshot, smallest first, so that best-fit
    hands out exactly that block), plus fresh blocks of each output's size, are allocated, filled and
    freed again. The allocator then serves the candidate's allocations from poisoned memory."""

    def __init__(self, torch, device) -> None:
        self.torch = torch
        self.device = device
        self.covered_bytes = 0  # how much memory the last call poisoned

    def __call__(self, output_bytes: list[int]) -> None:
        torch = self.torch
        torch.cuda.synchronize(self.device)
        torch.cuda.empty_cache()
        held: list = []
        self.covered_bytes = 0
        try:
            self._soak(held)
        except Exception:  # noqa: BLE001 - the snapshot API differs between versions: fresh blocks only then
            pass
        for size in list(output_bytes) * 2:
            if size > 0:
                held.append(self._filled(size))
        held.append(self._filled(max([64 * 1024 * 1024] + [4 * s for s in output_bytes])))
        held += [self._filled(SMALL_POOL_BLOCK) for _ in range(4)]
        torch.cuda.synchronize(self.device)
        del held  # back to the allocator's cache, still holding the poison

    def _filled(self, size: int):
        self.covered_bytes += size
        return self.torch.empty(size, dtype=self.torch.uint8, device=self.device).fill_(POISON_BYTE)

    def _soak(self, held: list, limit: int = 2048) -> None:
        """Take every free block of the current stream's pools, smallest first."""
        torch = self.torch
        index = self.device.index if self.device.index is not None else torch.cuda.current_device()
        stream = torch.cuda.current_stream(self.device).cuda_stream
        skipped: set[int] = set()
        for _ in range(limit):
            free = []
            for segment in torch.cuda.memory_snapshot():
                if segment.get("device") != index or segment.get("stream", stream) != stream:
                    continue
                for block in segment.get("blocks", []):
                    if block.get("state") == "inactive" and block["address"] not in skipped:
                        free.append((block["size"], block["address"], segment.get("segment_type")))
            if not free:
                return
            size, address, kind = min(free)
            request = min(size, 1024 * 1024) if kind == "small" else size
            reserved = torch.cuda.memory_reserved(self.device)
            held.append(self._filled(request))
            if torch.cuda.memory_reserved(self.device) > reserved:
                skipped.add(address)  # served from a new segment: this free block cannot be had; move on


def _synchronize(torch, device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _synchronizer(torch, device):
    """A device-wide synchronize through the function torch has now (the solution, imported later, may
    replace torch.cuda.synchronize in its process)."""
    if device.type != "cuda":
        return lambda: None
    synchronize = torch.cuda.synchronize
    return lambda: synchronize(device)


# ----------------------------------------------------------------------------------------------- timing


summarize = clock.summarize  # the timing summary (median, quartiles, ...) of a list of milliseconds


class TimedRounds:
    """The worker's side of the timing protocol (`clock`): the same code times the candidate in the run worker
    and the reference in the judge. For each round: the inputs of its seed, `ready`, the parent's nonce,
    then `iterations` forwards, each on the inputs scaled by the nonce's factor for it and ended by a device-wide
    synchronize (`synchronize`: torch's, captured before the solution was imported), each reduced to a
    projection of its outputs on random signs drawn from the nonce and to the sum of their squares (the
    judge's bound: `clock.projection_bound`); `done` with those; the last outputs are kept (`rounds`).
    CUDA events around each forward are reported too: the judge's are honest, the run worker's are the
    candidate's word."""

    def __init__(self, request: dict, torch, device, reference, synchronize, tolerances: dict,
                 keep_zeros: bool) -> None:
        self.torch, self.device, self.reference = torch, device, reference
        self.synchronize, self.tolerances, self.keep_zeros = synchronize, tolerances, keep_zeros
        self.control = os.fdopen(request["control_fd"], "rb")
        self.timing = int(request["timing_fd"])
        self.seeds = [int(s) for s in request["timing_seeds"]]
        self.warmup = int(request.get("warmup", 3))
        self.dtype = _precision(request, torch)
        self.number = 0  # the rounds sent so far (the judge times the reference, then its torch.compile)

    def run(self, forward, progress: Progress, label: str) -> list[dict]:
        torch = self.torch
        rounds = []
        for seed in self.seeds:
            self.number += 1
            progress.stage(f"timing {label}: round {len(rounds) + 1}/{len(self.seeds)}")
            base = _fresh_inputs(self.reference, seed, self.device, torch, None, keep_zeros=self.keep_zeros,
                                 dtype=self.dtype)
            working = [v.clone() if _perturbed(v, torch) else v for v in base]
            for _ in range(self.warmup if not rounds else 0):  # the projection's kernels warm up too
                warm = _flatten(forward(*working), torch)
                if warm:
                    self._project(warm, self._signs(0, warm))
            self.synchronize()
            self._send({"kind": "ready", "round": self.number})
            nonce, iterations = self._go()
            projections = torch.zeros((iterations, 2), dtype=torch.float64, device=self.device)
            signs, tensors, events = None, None, []
            # a factor per element and run, drawn on the device from the nonce (the same in the judge): no
            # output of an earlier run can be rescaled into this one's, as one factor per run allowed
            scaling = torch.Generator(device=self.device).manual_seed(clock.scaling_seed(nonce))
            factors = [torch.empty_like(v) if _perturbed(v, torch) else None for v in base]
            for index in range(iterations):
                for now, before, factor in zip(working, base, factors):
                    if factor is not None:
                        factor.uniform_(*clock.SCALE_RANGE, generator=scaling)
                        torch.mul(before, factor, out=now)
                marks = self._events()
                output = forward(*working)
                if marks:
                    marks[1].record()
                    events.append(marks)
                self.synchronize()
                tensors = _flatten(output, torch)
                if not tensors:
                    raise RuntimeError("the forward returned no tensor")
                if signs is None:
                    signs = self._signs(nonce, tensors)
                projections[index] = self._project(tensors, signs)
            values = projections.tolist()
            done = {"kind": "done", "round": self.number, "projections": [v[0] for v in values],
                    "squares": [v[1] for v in values]}
            if events:
                done["events_ms"] = [start.elapsed_time(end) for start, end in events]
            self._send(done)
            rounds.append(dict(done, seed=seed, nonce=nonce, outputs=[t.detach().cpu() for t in tensors]))
        return rounds

    def _send(self, message: dict) -> None:
        try:
            _write_all(self.timing, clock.encode(message))
        except OSError as error:  # the parent rejected the timing (junk on the channel) and closed it
            raise ProtocolBroken(f"the timing channel is closed ({error})") from None

    def _go(self) -> tuple[int, int]:
        """The parent's nonce and iterations for this round."""
        try:
            go = json.loads(self.control.readline() or b"{}")
            if go.get("round") == self.number:
                return int(go["nonce"]), int(go["iterations"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
        raise ProtocolBroken(f"no start for timed round {self.number}")

    def _events(self):
        if self.device.type != "cuda":
            return None
        marks = (self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True))
        marks[0].record()
        return marks

    def _signs(self, nonce: int, tensors: list) -> list:
        torch = self.torch
        generator = torch.Generator(device=self.device).manual_seed(nonce)
        return [torch.randint(0, 2, (t.numel(),), generator=generator, device=self.device,
                              dtype=torch.float64).mul_(2).sub_(1) for t in tensors]

    def _project(self, tensors: list, signs: list):
        """(the projection on the signs, the bound's sum of squared tolerances) of one iteration's outputs."""
        torch = self.torch
        total = torch.zeros(2, dtype=torch.float64, device=self.device)
        for tensor, sign in zip(tensors, signs):
            flat = tensor.detach().reshape(-1).to(torch.float64)
            if flat.numel() != sign.numel():
                raise RuntimeError("the outputs changed shape between iterations")
            atol, rtol = tolerance_for(tensor.dtype, self.tolerances) or (0.0, 0.0)
            total[0] += torch.dot(flat, sign)
            # sum_j (atol + rtol |o_j|)^2 <= 2 n atol^2 + 2 rtol^2 sum_j o_j^2
            total[1] += 2 * flat.numel() * atol * atol + 2 * rtol * rtol * torch.dot(flat, flat)
        return total


class ProtocolBroken(Exception):
    """The timing protocol stopped (the parent rejected the timing): the run goes on untimed."""


def _perturbed(value, torch) -> bool:
    """An input the timing rounds scale: a floating-point tensor."""
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def check_rounds(candidate: list[dict], reference: list[dict], tolerances: dict, torch) -> dict:
    """The judge's check of the candidate's timed rounds against the reference's (same seeds and nonces):
    every iteration's projection within `clock.projection_bound` of the reference's, the last outputs
    as the correctness trials compare them. `candidate`: {"projections", "outputs"} per round."""
    if len(candidate) != len(reference):
        return {"ok": False, "message": f"{len(candidate)} timed rounds checked, {len(reference)} expected"}
    for number, (got, expected) in enumerate(zip(candidate, reference), 1):
        bounds = [clock.projection_bound(q, p) for q, p in zip(expected["squares"], expected["projections"])]
        why = clock.projections_agree(got.get("projections"), expected["projections"], bounds)
        if why is None:
            result = compare(got.get("outputs"), expected["outputs"], tolerances, False, torch)
            why = None if result["ok"] else "; ".join(f["message"] for f in result["failures"])[:400]
        if why is not None:
            return {"ok": False, "message": f"timed round {number}: {why}"}
    return {"ok": True, "message": f"{len(reference)} timed rounds: every iteration's outputs checked"}


# ------------------------------------------------------------------------------------------------ modes


def kernelbench_trial_seeds(torch, seed: int, trials: int) -> list[int]:
    """The per-trial seeds KernelBench's `run_and_check_correctness` draws from `seed`."""
    torch.manual_seed(seed)
    return [int(torch.randint(0, 2 ** 32 - 1, (1,)).item()) for _ in range(trials)]


KERNELBENCH_PARITIES = ("kernelbench", "kernelbench-v0.1")  # runner.KERNELBENCH_PARITIES


def _kernelbench(request: dict) -> bool:
    """Whether the request mirrors a KernelBench eval (its trial seeds, the same tensors for both models, its
    TF32 defaults, all-zero inputs kept)."""
    return request.get("parity") in KERNELBENCH_PARITIES


def _precision(request: dict, torch):
    """The dtype KernelBench's current eval casts every input tensor and both models to (its `precision`
    argument: fp32, fp16, bf16); None for the other harnesses, which cast nothing."""
    if request.get("parity") != "kernelbench":
        return None
    return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[request.get("precision") or "fp32"]


def _set_precision(torch, allow_tf32: bool | None) -> None:
    """The reference in IEEE fp32 by default: TF32 matmul/convolution would put the reference itself
    further from the truth than the fp32 tolerance (1e-4). None leaves PyTorch's defaults (TF32 off for
    matmul, on for cuDNN convolutions), as KernelBench does."""
    if allow_tf32 is None:
        return
    try:
        torch.backends.cuda.matmul.allow_tf32 = allow_tf32
        torch.backends.cudnn.allow_tf32 = allow_tf32
    except AttributeError:
        pass


def run(request: dict, progress: Progress) -> None:
    """The `run` and `sanitize` modes."""
    import torch

    sanitize = request["mode"] == "sanitize"
    device = torch.device(request.get("device", "cuda"))
    if device.type == "cuda" and not torch.cuda.is_available():
        progress.finish("no_gpu", "torch sees no CUDA device in the worker")
        return
    kernelbench = _kernelbench(request)
    precision = _precision(request, torch)
    _set_precision(torch, None if kernelbench else bool(request.get("allow_tf32", False)))
    if device.type == "cuda":
        progress.state["device_name"] = torch.cuda.get_device_name(device)
    install_build_cache(progress, request["cache_dir"], light=bool(request.get("light_build", False)),
                        precompiled=bool(request.get("precompiled_header", False)), pch_dir=request.get("pch_dir"))
    seed = int(request.get("seed", 42))
    tolerances = {k: tuple(v) for k, v in (request.get("tolerances") or {}).items()}
    synchronize = _synchronizer(torch, device)  # captured before the solution can patch it

    progress.stage("load reference")
    try:
        reference = load_module(request["reference"], "cudalint_reference")
    except Exception as error:  # noqa: BLE001 - reported, not raised
        progress.finish("reference_error", f"the reference failed to load: {type(error).__name__}: {error}",
                        traceback=traceback.format_exc(limit=8))
        return
    sizes = {}
    if sanitize and request.get("sanitize_shapes"):  # before the solution loads: it shares the reference's globals
        with open(request["solution"], encoding="utf-8", errors="replace") as handle:
            sizes = reduced_sizes(reference, handle.read(), torch)
        _apply_sizes(reference, sizes, 1)
    progress.stage("load solution")
    try:
        solution = load_module(request["solution"], "cudalint_solution", shared_globals=reference)
    except BuildFailure as error:
        progress.finish("compile_error", str(error)[:400])
        return
    model_new = getattr(solution, "ModelNew", None)
    if model_new is None:
        progress.finish("invalid_solution", "the solution defines no ModelNew")
        return

    progress.stage("construct models")
    torch.manual_seed(seed)
    init_inputs = _to_device(list(reference.get_init_inputs()), device, torch, precision)
    with torch.no_grad():
        reference_model = None
        if not sanitize:
            torch.manual_seed(seed)
            reference_model = reference.Model(*init_inputs).to(device=device, dtype=precision)
        torch.manual_seed(seed)
        candidate_model = model_new(*init_inputs).to(device=device, dtype=precision)
        _synchronize(torch, device)

        if sanitize:
            shapes = None
            if sizes:
                progress.stage("sanitize: the reference at reduced sizes")
                shapes = {"reduced": sizes}
                try:
                    torch.manual_seed(seed)
                    reference.Model(*init_inputs).to(device=device, dtype=precision)(
                        *_fresh_inputs(reference, seed, device, torch, None, keep_zeros=kernelbench, dtype=precision))
                    _synchronize(torch, device)
                except Exception as error:  # noqa: BLE001 - the problem does not allow them: full sizes
                    _apply_sizes(reference, sizes, 0)
                    shapes = {"full": True, "why": f"the reference refused the reduced sizes: {type(error).__name__}: "
                                                   f"{error}"[:300]}
            progress.stage("sanitize: candidate forward")
            inputs = _fresh_inputs(reference, seed, device, torch, progress, keep_zeros=kernelbench, dtype=precision)
            try:
                counts = counted_launches(torch, device, lambda: candidate_model(*inputs))
            except Exception as error:  # noqa: BLE001 - a CUDA error is the sanitizer's finding; a refusal is not
                text = f"{type(error).__name__}: {error}"
                if not (shapes and "reduced" in shapes) or classify_error(text):
                    raise
                _apply_sizes(reference, sizes, 0)
                shapes = {"full": True, "why": f"the candidate refused the reduced sizes: {text}"[:300]}
                inputs = _fresh_inputs(reference, seed, device, torch, progress, keep_zeros=kernelbench,
                                       dtype=precision)
                counts = counted_launches(torch, device, lambda: candidate_model(*inputs))
            progress.finish("ran", "one candidate forward pass ran", launches=attributed_launches(counts),
                            libraries=_extension_libraries(progress.state["extensions"]), sizes=shapes)
            return

        correctness = _correctness(request, progress, torch, device, reference, reference_model, candidate_model,
                                   tolerances, seed)
        progress.state["correctness"] = correctness
        if not correctness["ok"]:
            progress.finish("incorrect", correctness["message"])
            return
        if request.get("timing", True) and request.get("control_fd") is not None:
            timer = TimedRounds(request, torch, device, reference, synchronize, tolerances, kernelbench)
            try:
                rounds = timer.run(candidate_model, progress, "candidate")
            except ProtocolBroken as error:  # the parent says why; the verdict is the judge's still
                progress.note(f"timing: {error}")
                rounds = []
            for timed in rounds:  # untimed: the judge compares them with the reference's last outputs
                send_outputs(request["outputs"], torch, None, timed["seed"], timed["outputs"], [],
                             timed_round=timed["round"])
            events = [ms for timed in rounds for ms in timed.get("events_ms") or []]
            if events:
                progress.state["timing_self_reported"] = {"cuda_events": summarize(events)}
        progress.finish("correct", f"{correctness['trials']} trials passed")


SANITIZE_ELEMENTS = 1 << 20  # a reduced sanitizer run's inputs: about a million elements in all
SIZE_ALIGNMENT = 32  # a reduced size keeps its original's power-of-two factor up to this (warps, tiles, vectors)


def reduced_sizes(reference, solution_text: str, torch, target: int = SANITIZE_ELEMENTS) -> dict[str, list[int]]:
    """Smaller values of the reference's module-level sizes, for sanitizer runs (`--sanitize-shapes`):
    {name: [original, reduced]}. A size is reduced only when `get_inputs` reads it, `get_init_inputs` does
    not (the weights keep their shapes) and the solution never names it (it may rely on its value); it is
    halved, the largest first, while the inputs (made on the meta device) hold more than `target` elements,
    keeping its original's power-of-two factor up to SIZE_ALIGNMENT, so that a kernel whose launch shape
    assumes a multiple of a warp or a tile still gets one. {} where nothing can be reduced."""
    get_inputs, get_init_inputs = getattr(reference, "get_inputs", None), getattr(reference, "get_init_inputs", None)
    code = getattr(get_inputs, "__code__", None)
    if code is None:
        return {}
    fixed = set(getattr(getattr(get_init_inputs, "__code__", None), "co_names", ()))
    original = {name: getattr(reference, name) for name in code.co_names
                if name not in fixed and type(getattr(reference, name, None)) is int and getattr(reference, name) > 1
                and not re.search(rf"\b{re.escape(name)}\b", solution_text)}
    floors = {name: value >> max((value & -value).bit_length() - 1 - (SIZE_ALIGNMENT.bit_length() - 1), 0)
              for name, value in original.items()}
    current = dict(original)

    def elements() -> int:
        _apply_sizes(reference, {name: [original[name], value] for name, value in current.items()}, 1)
        with torch.device("meta"):
            return sum(v.numel() for v in reference.get_inputs() if isinstance(v, torch.Tensor))

    try:
        while elements() > target:
            shrinkable = [name for name in current if current[name] > floors[name]]
            if not shrinkable:
                break
            largest = max(shrinkable, key=lambda name: current[name])
            current[largest] //= 2
    except Exception:  # noqa: BLE001 - inputs the meta device cannot make (a .cuda() call): no reduction
        current = dict(original)
    finally:
        _apply_sizes(reference, {name: [value, value] for name, value in original.items()}, 0)
    return {name: [original[name], current[name]] for name in original if current[name] != original[name]}


def _apply_sizes(module, sizes: dict[str, list[int]], which: int) -> None:
    """Set each size of `sizes` ({name: [original, reduced]}) in `module`: the original (0) or the reduced (1)."""
    for name, values in sizes.items():
        setattr(module, name, values[which])


def counted_launches(torch, device, forward) -> dict | None:
    """Run `forward` once (and synchronize) under torch's profiler: the GPU kernels it launched, by name, with
    their counts; None where the profiler recorded nothing, not even a launch of its own made inside the same
    region (under compute-sanitizer CUPTI may be unavailable): then no count is claimed."""
    if device.type != "cuda":
        forward()
        return None
    try:
        from torch.profiler import ProfilerActivity, profile

        profiler = profile(activities=[ProfilerActivity.CUDA])
        profiler.__enter__()
    except Exception:  # noqa: BLE001 - no profiler: the forward runs, uncounted
        forward()
        _synchronize(torch, device)
        return None
    try:
        forward()
        _synchronize(torch, device)
        torch.full((1,), 7, device=device).mul_(3)  # a launch the profiler must see, or it saw nothing
        _synchronize(torch, device)
    finally:
        profiler.__exit__(None, None, None)
    counts: dict[str, int] = {}
    try:
        for event in profiler.events():
            if str(getattr(event, "device_type", "")).endswith("CUDA") and event.name:
                counts[event.name] = counts.get(event.name, 0) + 1
    except Exception:  # noqa: BLE001 - a profiler that cannot report counted nothing
        return None
    if not any("mul" in name.lower() for name in counts):
        return None
    return counts


def kernel_base_name(name: str) -> str:
    """`relu_kernel` of a profiler's kernel name: `void ns::relu_kernel<float>(float const*, float*, int)`."""
    head = name.split("(")[0].split("<")[0].strip()
    return head.split()[-1].split("::")[-1] if head else name


def attributed_launches(counts: dict | None) -> list[dict] | None:
    """Each launched kernel (`counted_launches`) with the extension libraries loaded in this process whose
    bytes hold its name (`defined_in`): libraries outside the Python installation and the system's, which
    are torch's and CUDA's, so a same-named kernel of another extension shows as a second library."""
    if counts is None:
        return None
    libraries = _loaded_extension_libraries()
    contents = {}
    for path in libraries:
        try:
            with open(path, "rb") as handle:
                contents[path] = handle.read()
        except OSError:
            continue
    launches = []
    for name, count in sorted(counts.items()):
        base = kernel_base_name(name)
        defined_in = sorted(p for p, data in contents.items() if base and base.encode() in data)
        launches.append({"name": name, "kernel": base, "count": count, "defined_in": defined_in})
    return launches


def _loaded_extension_libraries() -> list[str]:
    """The shared libraries mapped into this process that are neither the Python installation's (torch's)
    nor the system's (CUDA's)."""
    system = tuple(os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix, "/usr", "/lib", "/lib64",
                                                          "/opt", "/usr/local/cuda"})
    found = set()
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                path = line.split(maxsplit=5)[-1].strip() if line.count(" ") >= 5 else ""
                if path.endswith(".so") and not os.path.realpath(path).startswith(system):
                    found.add(path)
    except OSError:
        return []
    return sorted(found)


def _extension_libraries(extensions: list[dict]) -> list[str]:
    """The shared libraries of the extensions this worker built or loaded for the candidate."""
    return [os.path.join(e["directory"], f"{e['name']}.so") for e in extensions
            if e.get("ok") and e.get("directory") and not e.get("superseded")]


def _trial_seeds(request, torch, seed: int) -> list[int]:
    trials = int(request.get("trials", 5))
    if _kernelbench(request):
        return kernelbench_trial_seeds(torch, seed, trials)
    return [seed + t for t in range(trials)]


class Trials:
    """The correctness summary, trial by trial: the same in the run worker's own check and in the judge's."""

    def __init__(self, trials: int, poisoned: bool) -> None:
        self.summary = {"ok": True, "trials": trials, "passed": 0, "max_abs_error": 0.0, "mean_abs_error": 0.0,
                        "poisoned": poisoned, "trial_results": [], "message": ""}
        self.mean_errors: list[float] = []

    def add(self, result: dict, trial: int, seed: int) -> bool:
        """One trial's comparison (`compare`, plus failures found around it); False once one failed."""
        summary = self.summary
        result["ok"] = not result["failures"]
        result.update(trial=trial + 1, seed=seed)
        summary["trial_results"].append(result)
        summary["max_abs_error"] = max(summary["max_abs_error"], result["max_abs_error"])
        self.mean_errors.append(result["mean_abs_error"])
        for name in ("atol", "rtol"):
            if name in result:
                summary[name] = result[name]
        if result["ok"]:
            summary["passed"] += 1
            return True
        summary["ok"] = False
        summary["message"] = f"trial {trial + 1} (seed {seed}): " + "; ".join(f["message"] for f in result["failures"])
        return False

    def finish(self) -> dict:
        summary = self.summary
        summary["mean_abs_error"] = sum(self.mean_errors) / len(self.mean_errors) if self.mean_errors else 0.0
        if summary["ok"]:
            summary["message"] = (f"{summary['trials']} trials passed: max abs error {summary['max_abs_error']:.3g}, "
                                  f"mean {summary['mean_abs_error']:.3g}")
        return summary


# what the run worker found around the comparison and sends with the outputs (it can only fail a trial)
SELF_REPORTED = ("device_mismatch", "inputs_modified")


def _correctness(request, progress, torch, device, reference, reference_model, candidate_model, tolerances,
                 seed) -> dict:
    """The trials in the run worker: each candidate output is compared here (to decide whether timing is
    worth it) and sent to the `outputs` channel, for the judge's verdict."""
    seeds = _trial_seeds(request, torch, seed)
    poison = bool(request.get("poison", True)) and device.type == "cuda"
    poisoner = Poisoner(torch, device) if poison else None
    trials = Trials(len(seeds), poison)
    kernelbench = _kernelbench(request)
    for trial, trial_seed in enumerate(seeds):
        progress.stage(f"correctness trial {trial + 1}/{len(seeds)}: inputs")
        inputs = _fresh_inputs(reference, trial_seed, device, torch, progress, keep_zeros=kernelbench,
                               dtype=_precision(request, torch))
        progress.stage(f"correctness trial {trial + 1}/{len(seeds)}: reference")
        pristine = _pristine_copies(inputs, torch)
        torch.manual_seed(trial_seed)
        # KernelBench hands both models the same tensors; by default the reference gets copies, so that a
        # reference that works in place cannot change what the candidate sees
        reference_out = reference_model(*(inputs if kernelbench else _clones(inputs, torch)))
        reference_tensors = _flatten(reference_out, torch)
        if reference_tensors is None:
            raise RuntimeError("the reference's forward returned no tensor")
        # on the CPU: a candidate writing out of bounds cannot corrupt what it is compared with
        reference_cpu = [t.detach().cpu() for t in reference_tensors]
        del reference_out, reference_tensors
        if poisoner is not None:
            poisoner([t.numel() * t.element_size() for t in reference_cpu])
            trials.summary["poisoned_bytes"] = poisoner.covered_bytes
        progress.stage(f"correctness trial {trial + 1}/{len(seeds)}: candidate")
        torch.manual_seed(trial_seed)
        candidate_out = candidate_model(*inputs)
        _synchronize(torch, device)
        candidate_tensors = _flatten(candidate_out, torch)
        # compared on the device (the candidate has finished: nothing can corrupt the copies any more)
        outputs = None if candidate_tensors is None else [t.detach() for t in candidate_tensors]
        expected = [t.to(outputs[i].device if outputs and i < len(outputs) else device)
                    for i, t in enumerate(reference_cpu)]
        result = compare(outputs, expected, tolerances, poison, torch)
        elsewhere = [i for i, t in enumerate(outputs or []) if t.device.type != device.type]
        if elsewhere:
            result["failures"].append({"kind": "device_mismatch", "outputs": elsewhere, "message":
                                       f"output(s) {elsewhere} are not on {device.type}"})
        changed = [i for i, (now, before) in enumerate(zip(inputs, pristine)) if isinstance(now, torch.Tensor)
                   and not torch.equal(now.detach(), before.to(now.device))]
        if changed:
            result["failures"].append({"kind": "inputs_modified", "inputs": changed, "message":
                                       f"the candidate modified its input(s) {changed} in place"})
        if request.get("outputs") is not None:
            send_outputs(request["outputs"], torch, trial + 1, trial_seed, outputs,
                         [f for f in result["failures"] if f["kind"] in SELF_REPORTED])
        del outputs, expected, candidate_out, candidate_tensors
        if not trials.add(result, trial, trial_seed):
            break
        progress.state["correctness"] = trials.summary
        progress.write()
    return trials.finish()


def send_outputs(fd: int, torch, trial: int | None, seed: int, outputs, failures: list[dict],
                 timed_round: int | None = None) -> None:
    """One trial's candidate outputs (on the CPU) to the `outputs` channel: a length, then torch.save's bytes;
    with `timed_round`, the last outputs of that timed round (`TimedRounds`)."""
    buffer = io.BytesIO()
    sent = {"trial": trial, "seed": seed, "failures": failures,
            "outputs": None if outputs is None else [t.detach().cpu() for t in outputs]}
    if timed_round is not None:
        sent["round"] = timed_round
    torch.save(sent, buffer)
    data = buffer.getvalue()
    _write_all(fd, len(data).to_bytes(8, "big") + data)


def received_outputs(stream, torch):
    """The trials the run worker sent (`send_outputs`), read back with torch's safe loader (tensors and plain
    containers only: nothing the candidate wrote is executed); None where the stream is cut or garbled."""
    while True:
        header = stream.read(8)
        if len(header) < 8:
            return
        size = int.from_bytes(header, "big")
        if size > os.fstat(stream.fileno()).st_size - stream.tell():  # a length past the end: garbled
            yield None
            return
        data = stream.read(size)
        try:
            sent = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
        except Exception:  # noqa: BLE001 - whatever the candidate wrote, it is no trial
            sent = None
        if not isinstance(sent, dict) or not isinstance(sent.get("outputs"), (list, type(None))) \
                or not all(isinstance(t, torch.Tensor) for t in sent.get("outputs") or []):
            yield None
            return
        yield sent


def judge(request: dict, progress: Progress) -> None:
    """The `judge` mode: the correctness verdict, in a process that never loads the solution. For each trial
    seed, the reference's outputs are computed here, as the run worker computed them, and compared with the
    candidate outputs it sent (`outputs`: the parent's copy of that channel)."""
    import torch

    device = torch.device(request.get("device", "cuda"))
    kernelbench = _kernelbench(request)
    precision = _precision(request, torch)
    _set_precision(torch, None if kernelbench else bool(request.get("allow_tf32", False)))
    seed = int(request.get("seed", 42))
    tolerances = {k: tuple(v) for k, v in (request.get("tolerances") or {}).items()}
    poison = bool(request.get("poison", True)) and device.type == "cuda"
    progress.stage("judge: load reference")
    reference = load_module(request["reference"], "cudalint_reference")
    torch.manual_seed(seed)
    init_inputs = _to_device(list(reference.get_init_inputs()), device, torch, precision)
    seeds = _trial_seeds(request, torch, seed)
    trials = Trials(len(seeds), poison)
    with torch.no_grad(), os.fdopen(request["outputs"], "rb") as stream:
        torch.manual_seed(seed)
        reference_model = reference.Model(*init_inputs).to(device=device, dtype=precision)
        sent_trials = received_outputs(stream, torch)
        for trial, trial_seed in enumerate(seeds):
            progress.stage(f"judge: trial {trial + 1}/{len(seeds)}")
            sent = next(sent_trials, None)
            if sent is None or sent.get("trial") != trial + 1 or sent.get("seed") != trial_seed:
                trials.add({"max_abs_error": 0.0, "mean_abs_error": 0.0, "failures": [{
                    "kind": "no_outputs", "message": "the run worker sent no outputs for this trial"}]},
                    trial, trial_seed)
                break
            inputs = _fresh_inputs(reference, trial_seed, device, torch, None, keep_zeros=kernelbench, dtype=precision)
            torch.manual_seed(trial_seed)
            expected = _flatten(reference_model(*(inputs if kernelbench else _clones(inputs, torch))), torch)
            if expected is None:
                raise RuntimeError("the reference's forward returned no tensor")
            outputs = None if sent["outputs"] is None else [t.to(device) for t in sent["outputs"]]
            result = compare(outputs, expected, tolerances, poison, torch)
            result["failures"] += [f for f in sent.get("failures") or []
                                   if isinstance(f, dict) and f.get("kind") in SELF_REPORTED]
            if not trials.add(result, trial, trial_seed):
                break
        summary = trials.finish()
        progress.state["correctness"] = summary
        progress.write()  # the verdict, sent before the timing: it stands if the timing fails
        if summary["ok"] and request.get("timing", True) and request.get("control_fd") is not None:
            _judge_timing(request, progress, torch, device, reference, reference_model, tolerances, kernelbench,
                          sent_trials)
    progress.finish("correct" if summary["ok"] else "incorrect", summary["message"])


def _judge_timing(request, progress, torch, device, reference, reference_model, tolerances, kernelbench,
                  sent) -> None:
    """The judge's part of the timing (`clock`): the reference timed by the same protocol as the candidate
    (then its torch.compile, when asked), and the candidate's timed rounds checked against it: the
    projections the parent received from the run worker (`timing_rounds`), the last outputs it sent."""
    timer = TimedRounds(request, torch, device, reference, _synchronizer(torch, device), tolerances, kernelbench)
    try:
        rounds = timer.run(reference_model, progress, "reference")
    except Exception as error:  # noqa: BLE001 - no timing then; the correctness verdict stands
        progress.state["timing_check"] = {"ok": False, "message": f"the reference's timed rounds failed: "
                                                                  f"{type(error).__name__}: {error}"[:400]}
        return
    candidate = []
    for timed, given in zip(rounds, request.get("timing_rounds") or []):
        frame = next(sent, None)
        if frame is None or frame.get("round") != timed["round"]:
            break
        candidate.append({"projections": given.get("projections"), "outputs": frame["outputs"]})
    progress.state["timing_check"] = check_rounds(candidate, rounds, tolerances, torch)
    events = [ms for timed in rounds for ms in timed.get("events_ms") or []]
    if events:
        progress.state["timing_reference_events"] = summarize(events)
    if request.get("compile"):
        progress.stage("timing: torch.compile of the reference")
        try:
            compiled = torch.compile(reference_model)
            compiled(*_fresh_inputs(reference, timer.seeds[0], device, torch, None, keep_zeros=kernelbench,
                                    dtype=timer.dtype))
            timer.run(compiled, progress, "reference (torch.compile)")
        except Exception as error:  # noqa: BLE001 - the baseline is optional; say why it is missing
            progress.state["compiled_error"] = f"{type(error).__name__}: {error}"[:400]


def _clones(values: list, torch) -> list:
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


def _pristine_copies(inputs: list, torch) -> list:
    """Copies of the inputs to tell later whether the candidate wrote into them: on the device (a copy there
    takes milliseconds where a host copy of a multi-GB input takes many seconds), on the host when the
    device has no room for them."""
    try:
        return [v.detach().clone() if isinstance(v, torch.Tensor) else v for v in inputs]
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        return [v.detach().cpu() if isinstance(v, torch.Tensor) else v for v in inputs]


def build(request: dict, progress: Progress) -> None:
    """The `build` mode: execute the solution module so that its load_inline calls build into the cache."""
    import torch  # noqa: F401 - imported before the solution so that a missing torch is reported plainly

    install_build_cache(progress, request["cache_dir"], light=bool(request.get("light_build", False)),
                        precompiled=bool(request.get("precompiled_header", False)), pch_dir=request.get("pch_dir"))
    reference = None
    if request.get("reference"):
        progress.stage("load reference")
        try:
            reference = load_module(request["reference"], "cudalint_reference")
        except Exception:  # noqa: BLE001 - the run reports a reference that fails; building needs none
            reference = None
    progress.stage("load solution")
    try:
        load_module(request["solution"], "cudalint_solution", shared_globals=reference)
    except BuildFailure as error:
        progress.finish("compile_error", str(error)[:400])
        return
    except Exception as error:  # noqa: BLE001 - import-time code that needs a GPU fails here; run it later
        progress.finish("built", f"the module's other import-time code failed without a GPU: "
                                 f"{type(error).__name__}: {error}"[:400])
        return
    progress.finish("built", "")


# the C++ flags `pch` precompiles the binding header for: none, and the -O3 most generated solutions give
PCH_FLAG_SETS = ([], ["-O3"])


def pch(request: dict, progress: Progress) -> None:
    """The `pch` mode: the shared precompiled headers (`BindingHeader`) for `PCH_FLAG_SETS`, made in a worker
    that never loads a solution, the only one that writes `pch_dir`."""
    import torch
    import torch.utils.cpp_extension as cpp_extension

    binding = BindingHeader(request["pch_dir"], cpp_extension, toolchain_id(torch), precompile=True,
                            deadline=_deadline(request))
    made = []
    for flags in PCH_FLAG_SETS:
        progress.stage(f"precompile <torch/extension.h> for C++ flags {flags}")
        made.append(binding.include_line({"extra_cflags": flags}))
        binding.finish()
    progress.finish("built", "; ".join(made))


def probe(request: dict, progress: Progress) -> None:
    import torch

    devices = []
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            major, minor = torch.cuda.get_device_capability(index)
            devices.append({"index": index, "name": torch.cuda.get_device_name(index), "capability": f"{major}.{minor}"})
    progress.finish("ok", "", torch=torch.__version__, cuda=str(torch.version.cuda), devices=devices)


MODES = {"run": run, "sanitize": run, "judge": judge, "build": build, "pch": pch, "probe": probe}


def main(argv: list[str]) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path.pop(0)  # this package's modules must not shadow others'
    with open(argv[1], encoding="utf-8") as handle:
        request = json.load(handle)
    progress = Progress(request["channel"], request["mode"])
    import faulthandler

    faulthandler.enable(file=sys.stderr, all_threads=True)
    if request.get("timeout"):
        # a hang leaves the Python stack in the log before the parent's kill
        faulthandler.dump_traceback_later(max(float(request["timeout"]) - 2.0, 1.0), exit=False)
    try:
        MODES[request["mode"]](request, progress)
    except BaseException as error:  # noqa: BLE001 - every failure becomes a status
        text = f"{type(error).__name__}: {error}"
        status = "compile_error" if isinstance(error, BuildFailure) else (classify_error(text) or "runtime_error")
        progress.finish(status, text[:2000], traceback=traceback.format_exc(limit=12))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
