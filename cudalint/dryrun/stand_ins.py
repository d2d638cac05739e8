"""The dry-run worker's stand-ins for the other backends (`Backends`): Triton, cupy, CuTe DSL and cuda-python
at the Python layer, their launches recorded like a compiled extension's calls (`extension_calls`).

Part of the dry-run worker (`worker.py`, run as a script): it imports nothing of cudalint, only the standard
library and the worker's modules beside it; torch is passed in.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if __package__:
    from . import extension_calls
else:  # run as a script (worker.py): the modules beside it
    import extension_calls

if TYPE_CHECKING:
    from .worker import Recorder


_BACKEND_ROOTS = ("triton", "cupy", "cutlass", "cuda")  # cuda: cuda-python, which CuTe DSL solutions use for streams


class Matching(str):
    """An environment name or value that matches whatever the solution compares it with."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__

    def startswith(self, *args, **kwargs):
        return True

    def endswith(self, *args, **kwargs):
        return True

    def __contains__(self, item):
        return True

    def lower(self):
        return self

    def upper(self):
        return self

    def strip(self, *args):
        return self

    def casefold(self):
        return self


class DryRunStandIn:
    """What a backend module offers that the dry run does not model (annotations such as `tl.constexpr`,
    dtypes, constants, device queries): an attribute, a call, an index or a `with` of it is another
    stand-in. Calling one during forward is recorded (a `stand-in` event): it might have launched work."""

    def __init__(self, name: str, backends: Backends | None = None) -> None:
        self._name, self._backends = name, backends

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return DryRunStandIn(f"{self._name}.{attribute}", self._backends)

    def __call__(self, *args, **kwargs):
        if self._backends is not None:
            self._backends.stand_in_called(self._name)
        return DryRunStandIn(f"{self._name}()", self._backends)

    def __getitem__(self, key):
        return DryRunStandIn(f"{self._name}[]", self._backends)

    def __instancecheck__(self, instance):
        # `isinstance(k, triton.compiler.CompiledKernel)`: either answer could send the solution down a path it
        # does not take on a GPU; the run stops as the environment's failure (`_ENVIRONMENT_MARKERS`)
        raise TypeError(f"isinstance() against the DryRunStandIn {self._name}")

    def __subclasscheck__(self, subclass):
        raise TypeError(f"issubclass() against the DryRunStandIn {self._name}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self) -> str:
        return f"<dry-run stand-in {self._name}>"


class Backends:
    """Triton, cupy and CuTe DSL at the Python layer. A backend the solution imports is replaced by modules
    of stand-ins (or, for a Triton that is installed, its decorators are): `@triton.jit` kernels launched as
    `kernel[grid](...)` (also under `triton.autotune`/`heuristics`), cupy's `RawKernel`/`RawModule`/
    `ElementwiseKernel` called, CuTe DSL's `@cute.kernel(...).launch(...)`, `@cute.jit` functions and
    `cute.compile`d ones called: each launch is recorded like a compiled call (see `extension_calls.Extensions.launch`);
    no device code runs."""

    def __init__(self, torch, recorder: Recorder, extensions: extension_calls.Extensions) -> None:
        self.torch, self.recorder, self.extensions = torch, recorder, extensions
        self.installed: dict[str, str] = {}  # backend -> "stand-in" or "intercepted"

    def install(self, text: str) -> None:
        import importlib.util
        import re

        imported = set(re.findall(r"^\s*(?:import|from)\s+(\w+)", text, re.MULTILINE))
        wanted = [root for root in _BACKEND_ROOTS if root in imported]
        if not wanted:
            return
        if "triton" in wanted and importlib.util.find_spec("triton") is not None:
            import triton

            self._triton_api(triton)  # installed: its kernels must not run, its language may stay
            self.installed["triton"] = "intercepted"
            wanted.remove("triton")
        builders = {"triton": self._triton, "cupy": self._cupy, "cutlass": self._cutlass, "cuda": lambda m: None}
        modules: dict[str, object] = {}
        for root in wanted:
            modules[root] = self._module(root)
            builders[root](modules[root])
            self.installed[root] = "stand-in"
        sys.meta_path.insert(0, _StandInFinder(self, modules))
        self.recorder.facts["backends"] = dict(self.installed)
        if "cupy" in modules or "cutlass" in modules:
            self._record_pointers()

    def _record_pointers(self) -> None:
        """Remember which tensor each `data_ptr()` the solution reads belongs to (raw kernels take pointers)."""
        import weakref

        original, pointers = self.torch.Tensor.data_ptr, self.extensions.pointers

        def data_ptr(tensor):
            value = original(tensor)
            if not value and tensor.numel():  # a fake tensor's is 0: one per storage and offset, as on a GPU
                value = tensor.untyped_storage()._cdata + tensor.storage_offset() * tensor.element_size()
            try:
                pointers[value] = weakref.ref(tensor)
            except TypeError:
                pass
            return value

        self.torch.Tensor.data_ptr = data_ptr

    def _module(self, name: str):
        import types

        backends = self

        class StandInModule(types.ModuleType):
            def __getattr__(self, attribute):
                if attribute.startswith("__"):
                    raise AttributeError(attribute)
                return DryRunStandIn(f"{name}.{attribute}", backends)

        module = StandInModule(name)
        module.__version__ = "0.0.0+cudalint-dry-run"
        module.__path__ = []  # a package: its submodules come from the finder
        sys.modules[name] = module
        return module

    def stand_in_called(self, name: str) -> None:
        if self.extensions.call is not None:
            self.recorder.event("stand-in", name, self.recorder.solution_line())

    # Triton

    def _triton_api(self, module) -> type:
        """Triton's decorators on `module`; the stand-in kernel class they make."""
        backends = self

        class Kernel:
            def __init__(self, fn, configs=()):
                self.fn, self.configs = fn, list(configs)
                self.__name__ = getattr(fn, "__name__", "kernel")

            def __getitem__(self, grid):
                return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

            def run(self, *args, grid=None, warmup=False, **kwargs):
                meta = dict(getattr(self.configs[0], "kwargs", {}) if self.configs else {}, **kwargs)
                backends.extensions.launch("triton", self.__name__, _evaluated_grid(grid, meta),
                                           list(args) + list(kwargs.values()))

            def __call__(self, *args, **kwargs):
                raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel")

        def jit(fn=None, **options):
            return Kernel(fn) if fn is not None else (lambda f: Kernel(f))

        def autotune(configs, key=None, **options):
            return lambda kernel: Kernel(getattr(kernel, "fn", kernel), configs)

        def heuristics(values):
            return lambda kernel: kernel if isinstance(kernel, Kernel) else Kernel(kernel)

        module.jit, module.autotune, module.heuristics = jit, autotune, heuristics
        self._wrap_triton(Kernel)
        return Kernel

    def _wrap_triton(self, kernel_class) -> None:
        """`torch.library.wrap_triton(kernel)` (how a `torch.library.triton_op` launches) returns a stand-in
        kernel as it is: torch's own checks the kernel against Triton's classes, which a stand-in is not an
        instance of, and raised a TypeError (or RuntimeError) the solution never causes on a GPU."""
        import importlib

        try:
            library = importlib.import_module("torch._library.triton")
        except ImportError:
            return
        original = getattr(library, "wrap_triton", None)
        if original is None:
            return

        def wrap_triton(kernel):
            return kernel if isinstance(kernel, kernel_class) else original(kernel)

        library.wrap_triton = wrap_triton
        if getattr(self.torch.library, "wrap_triton", None) is original:
            self.torch.library.wrap_triton = wrap_triton

    def _triton(self, module) -> None:
        class Config:
            def __init__(self, kwargs=None, num_warps=4, num_stages=2, **options):
                self.kwargs, self.num_warps, self.num_stages = dict(kwargs or {}), num_warps, num_stages

        class constexpr:  # noqa: N801 - triton.language's name
            def __init__(self, value=None):
                self.value = value

        kernel = self._triton_api(module)
        # the classes torch's `triton_op` and `wrap_triton` test kernels against (`isinstance`)
        runtime = self._module("triton.runtime")
        runtime.jit, runtime.autotuner = self._module("triton.runtime.jit"), self._module("triton.runtime.autotuner")
        runtime.jit.JITFunction = runtime.autotuner.Autotuner = runtime.JITFunction = runtime.Autotuner = kernel
        module.runtime = runtime
        module.Config = Config
        module.cdiv = lambda a, b: -(-a // b)
        module.next_power_of_2 = lambda n: 1 << max(int(n) - 1, 0).bit_length()
        language = self._module("triton.language")
        language.constexpr = constexpr
        module.language = language

    # cupy

    def _cupy(self, module) -> None:
        backends, torch = self, self.torch

        class Array:
            """A cupy array over a torch tensor (`cp.asarray(t)`, `cp.from_dlpack(t)`)."""

            def __init__(self, tensor):
                self.tensor = tensor
                self.shape, self.size, self.ndim = tuple(tensor.shape), tensor.numel(), tensor.dim()

            def __dlpack__(self, *args, **kwargs):
                return self

            def toDlpack(self):  # noqa: N802 - cupy's name
                return self

            def __getattr__(self, attribute):
                if attribute.startswith("__"):
                    raise AttributeError(attribute)
                return DryRunStandIn(f"cupy.ndarray.{attribute}", backends)

        def array(value, *args, **kwargs):
            value = extension_calls.unwrapped(torch, value)
            if isinstance(value, torch.Tensor):
                return Array(value)
            return DryRunStandIn("cupy.asarray()", backends)

        class RawKernel:
            def __init__(self, code=None, name="kernel", *args, **kwargs):
                self.name = name

            def __call__(self, grid, block, args=(), *rest, **kwargs):
                backends.extensions.launch("cupy", self.name, grid, list(args))

            def __getattr__(self, attribute):
                if attribute.startswith("__"):
                    raise AttributeError(attribute)
                return DryRunStandIn(f"cupy.RawKernel.{attribute}", backends)

        class RawModule:
            def __init__(self, *args, **kwargs):
                pass

            def get_function(self, name):
                return RawKernel(None, name)

        class ElementwiseKernel:
            def __init__(self, in_params="", out_params="", operation="", name="kernel", *args, **kwargs):
                self.name, self.inputs = name, len([p for p in in_params.split(",") if p.strip()])

            def __call__(self, *args, **kwargs):
                backends.extensions.launch("cupy", self.name, None, list(args) + list(kwargs.values()))
                if len(args) > self.inputs:
                    return args[-1]  # the output array given
                unwrapped = extension_calls.unwrapped
                first = next((unwrapped(torch, a) for a in args if isinstance(unwrapped(torch, a), torch.Tensor)), None)
                result = torch.empty_like(first) if first is not None else torch.zeros(())
                backends.extensions.unmodelled_result()
                backends.extensions.mark(result)
                return Array(result)

        module.ndarray = Array
        module.asarray = module.array = module.from_dlpack = module.fromDlpack = module.ascontiguousarray = array
        module.RawKernel, module.RawModule = RawKernel, RawModule
        module.ElementwiseKernel = module.ReductionKernel = ElementwiseKernel
        for name in ("int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "intp"):
            setattr(module, name, int)
        for name in ("float16", "float32", "float64", "double", "single"):
            setattr(module, name, float)
        cuda = self._module("cupy.cuda")
        cuda.ExternalStream = cuda.Stream = cuda.Device = lambda *args, **kwargs: DryRunStandIn("cupy.cuda.Stream")
        cuda.get_current_stream = lambda *args, **kwargs: DryRunStandIn("cupy.cuda.Stream")
        module.cuda = cuda

    # CuTe DSL

    def _cutlass(self, module) -> None:
        backends, torch = self, self.torch

        class Launch:
            def __init__(self, name, args):
                self.name, self.args = name, args

            def launch(self, grid=None, block=None, **kwargs):
                backends.extensions.launch("cute", self.name, grid, self.args)

        class Kernel:
            def __init__(self, fn):
                self.fn, self.__name__ = fn, getattr(fn, "__name__", "kernel")

            def __call__(self, *args, **kwargs):
                return Launch(self.__name__, list(args) + list(kwargs.values()))

        class Jit:
            """A `@cute.jit` host function or a `cute.compile`d one: calling it from the solution launches."""

            def __init__(self, fn):
                self.fn, self.__name__ = fn, getattr(fn, "__name__", "jit")

            def __call__(self, *args, **kwargs):
                backends.extensions.launch("cute", self.__name__, None, list(args) + list(kwargs.values()))

            def __get__(self, instance, owner=None):
                if instance is None:
                    return self
                return lambda *args, **kwargs: self(instance, *args, **kwargs)

        class Wrapped:
            """`from_dlpack(tensor)`: the tensor inside; its layout methods return it again."""

            def __init__(self, tensor):
                self.tensor = tensor

            def __getattr__(self, attribute):
                if attribute.startswith("__"):
                    raise AttributeError(attribute)
                return lambda *args, **kwargs: self

        def decorator(kind):
            def apply(fn=None, **options):
                return kind(fn) if fn is not None else (lambda f: kind(f))
            return apply

        def from_dlpack(value, *args, **kwargs):
            value = extension_calls.unwrapped(torch, value)
            return Wrapped(value) if isinstance(value, torch.Tensor) else DryRunStandIn("from_dlpack()", backends)

        cute = self._module("cutlass.cute")
        cute.kernel, cute.jit = decorator(Kernel), decorator(Jit)
        cute.compile = lambda fn, *args, **kwargs: Jit(getattr(fn, "fn", fn))
        runtime = self._module("cutlass.cute.runtime")
        runtime.from_dlpack = from_dlpack
        cute.runtime = runtime
        module.cute = cute


class _StandInFinder:
    """Serves the stand-in modules and, on demand, stand-in submodules of them (`triton.language.extra`)."""

    def __init__(self, backends: Backends, modules: dict) -> None:
        self.backends, self.roots = backends, set(modules)

    def find_spec(self, name, path=None, target=None):
        import importlib.machinery

        if name.split(".", 1)[0] not in self.roots:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        return sys.modules.get(spec.name) or self.backends._module(spec.name)

    def exec_module(self, module) -> None:
        parent, _, child = module.__name__.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], child, module)


def _evaluated_grid(grid, meta: dict):
    if callable(grid):
        try:
            return grid(meta)
        except Exception:  # noqa: BLE001 - a grid of meta-parameters the stand-in does not know
            return None
    return grid
