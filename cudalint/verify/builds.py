"""The verify worker's build cache: every `load_inline` of a solution routed to `CACHE/ext/<name>-<key>`.

The key (`cache_key`) is a hash of the sources, the flags (`-lineinfo` is added to the CUDA flags, so sanitizer
reports carry source lines) and the toolchain (torch, CUDA, TORCH_CUDA_ARCH_LIST, Python); an unchanged call
finds its library there and ninja has nothing to do. A compile error is cached too (same key, same
diagnostics, no rebuild); a build killed or failing without compiler diagnostics is not. With `light_build`
(the default of `verify`), a CUDA unit is first built with its host code split off into a C++ unit of its own
(`split_cuda_sources`, `host_split`), then, where that does not apply or fails, with just the ATen headers it
uses (`minimal_cuda_sources`), or `<torch/types.h>` for `<torch/extension.h>` when it needs nothing beyond
ATen (`lighter_cuda_sources`), and as written when those fail. The binding unit's header is precompiled once
per toolchain and flags (`BindingHeader`, the worker's `pch` mode). `load_module` executes a solution or a
reference file as a module.

Part of the worker (`worker.py`, run as a script): standard library only at the top, torch passed in.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import sys
import time

if __package__:
    from . import channel, host_split
else:  # run as a script (worker.py): the modules beside it
    import channel
    import host_split


CACHE_VERSION = "1"
LINEINFO = "-lineinfo"  # added to every CUDA build: sanitizer reports then carry source lines
FAILURE_FILE = "cudalint-build-failure.txt"  # a cached compile error: same key, same diagnostics
COMPILER_DIAGNOSTIC = re.compile(r"(\(\d+\): (?:catastrophic )?error|:\d+:(?:\d+:)? (?:fatal )?error:|ptxas error)")


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


def install_build_cache(progress: channel.Progress, cache_dir: str, light: bool = False, precompiled: bool = False,
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
