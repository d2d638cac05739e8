"""The dry-run worker's CUDA on the CPU (`CudaOnCpu`): tensors live on the CPU but say they are on cuda:0 (a
mode rewrites the device of every factory and move), `torch.cuda`'s streams, events and synchronisation are
stubs, and the random ops a solution draws from are recorded.

Part of the dry-run worker (`worker.py`, run as a script): it imports nothing of cudalint, only the standard
library and the worker's modules beside it; torch is passed in.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .worker import Recorder


# the aten ops that draw from torch's random stream (nn.init's functions and layers' inits end in these)
_RANDOM_OPS = frozenset({"uniform_", "normal_", "bernoulli_", "exponential_", "random_", "geometric_", "cauchy_",
                         "log_normal_", "rand", "randn", "randint", "randperm", "bernoulli", "normal", "multinomial",
                         "rand_like", "randn_like", "randint_like", "poisson", "uniform"})
_NOT_NUMBERS = frozenset({"generator", "dtype", "device", "layout", "out", "requires_grad", "size", "pin_memory",
                          "memory_format"})


class CudaOnCpu:
    """Tensors live on the CPU but say they are on cuda:0; `torch.cuda`'s runtime calls are stubs."""

    def __init__(self, torch, recorder: Recorder) -> None:
        self.torch = torch
        self.recorder = recorder
        self.cuda_random = False
        self.created_at: dict[int, int] = {}  # storage address -> the solution's line that made it
        self.draws: list[dict] = []  # the random draws of the model being built
        self.drawing_from: str | None = None  # the file whose lines name them

    def install(self) -> None:
        torch = self.torch
        cuda = torch.cuda
        recorder = self.recorder

        class Recorded(type):
            """The stand-in classes remember the solution's line that replaces one of their methods."""

            def __setattr__(cls, name, value):
                line = recorder.solution_line()
                if line is not None:
                    recorder.attribute_lines[f"torch.cuda.{cls.__name__}.{name}"] = line
                super().__setattr__(name, value)

        class Event(metaclass=Recorded):
            def __init__(self, enable_timing=False, blocking=False, interprocess=False):
                self.recorded = None

            def record(self, stream=None):
                self.recorded = time.perf_counter()

            def synchronize(self):
                return None

            def wait(self, stream=None):
                return None

            def query(self):
                return True

            def elapsed_time(self, end):
                return 1.0

        class Stream(metaclass=Recorded):
            cuda_stream = 0
            device = torch.device("cuda", 0)

            def __init__(self, *args, **kwargs):
                pass

            def synchronize(self):
                return None

            def wait_stream(self, other):
                return None

            def wait_event(self, event):
                return None

            def record_event(self, event=None):
                return event or Event()

            def query(self):
                return True

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

        class StreamContext:
            def __init__(self, stream=None):
                self.stream = stream

            def __enter__(self):
                return self.stream

            def __exit__(self, *exc):
                return False

        class Properties:
            name = "cudalint dry run"
            major, minor = 9, 0
            multi_processor_count = 132
            total_memory = 80 * 1024 ** 3
            max_threads_per_block = 1024
            warp_size = 32

        stream = Stream()
        stubs = {
            "is_available": lambda: True, "device_count": lambda: 1, "current_device": lambda: 0,
            "synchronize": lambda device=None: None, "current_stream": lambda device=None: stream,
            "default_stream": lambda device=None: stream, "Stream": Stream, "Event": Event,
            "stream": StreamContext, "set_device": lambda device: None, "is_initialized": lambda: True,
            "get_device_properties": lambda device=None: Properties(), "get_device_name": lambda device=None: Properties.name,
            "get_device_capability": lambda device=None: (9, 0), "empty_cache": lambda: None,
            "manual_seed": lambda seed: None, "manual_seed_all": lambda seed: None, "init": lambda: None,
            "memory_allocated": lambda device=None: 0, "max_memory_allocated": lambda device=None: 0,
        }
        for name, value in stubs.items():
            setattr(cuda, name, value)

        cpu = torch.device("cpu")
        cuda_device = torch.device("cuda", 0)
        device_type = torch.device
        random_factories = {"rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like",
                            "randint_like", "bernoulli", "multinomial", "uniform_", "normal_"}

        def on_cuda(device) -> bool:
            if isinstance(device, int):
                return True
            if isinstance(device, str):
                return device.startswith("cuda")
            return isinstance(device, device_type) and device.type == "cuda"

        owner = self
        is_cuda = torch._C.TensorBase.__dict__["is_cuda"]
        device_property = torch._C.TensorBase.__dict__["device"]

        class Mode(torch.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = dict(kwargs or {})
                name = getattr(func, "__name__", "")
                owner_object = getattr(func, "__self__", None)
                if owner_object is is_cuda:
                    return True
                if owner_object is device_property:
                    return cuda_device
                if name == "cuda":
                    return args[0]  # the harness's inputs are on the GPU already: `.cuda()` is the tensor itself
                if name == "to" and _to_cuda(args, kwargs, on_cuda):
                    args, kwargs = _without_device(args, kwargs, on_cuda)
                    if not args[1:] and not kwargs:
                        return args[0]
                if "device" in kwargs and on_cuda(kwargs["device"]):
                    kwargs["device"] = cpu
                    if name in random_factories:
                        owner.cuda_random = True
                if recorder.in_reference:
                    recorder.reference_ops.add(name)
                result = func(*args, **kwargs)
                recorder.extension.propagate(args, kwargs, result)
                if isinstance(result, torch.Tensor):
                    if recorder.stage == "construct":
                        owner.note_creation(result)
                    elif recorder.extension.call is not None:
                        recorder.extension.note_made(result, recorder.solution_line())
                return result

        self.mode_type = Mode
        self._fake_tensors_say_cuda(cuda_device)

    def _fake_tensors_say_cuda(self, cuda_device) -> None:
        """A fake tensor's `device` is a Python property that no torch-function mode sees: to the solution's
        and the reference's code it says cuda:0 like every real tensor here (a `x.device.type == "cpu"`
        branch must take the path the GPU takes); torch's own code still sees the fake tensor's device."""
        from torch._subclasses.fake_tensor import FakeTensor

        own = FakeTensor.__dict__["device"].fget
        files = {self.recorder.solution_path, self.recorder.reference_path}
        busy = self.recorder.busy  # the audit hook then records no frame access of the solution's

        def device(tensor):
            value = own(tensor)
            if value.type != "cpu":
                return value
            held, busy[0] = busy[0], True
            try:
                asked_by = sys._getframe(1).f_code.co_filename
            finally:
                busy[0] = held
            return cuda_device if asked_by in files else value

        FakeTensor.device = property(device)

    def note_creation(self, tensor) -> None:
        """Remember the solution's line that made a tensor's storage while the models are built."""
        try:
            pointer = tensor.untyped_storage().data_ptr()
        except Exception:  # noqa: BLE001 - no storage (fake, meta)
            return
        if pointer and pointer not in self.created_at:
            line = self.recorder.solution_line()
            if line is not None:
                self.created_at[pointer] = line

    def recording_draws(self):
        """A dispatch mode that records each draw from the random stream (the aten ops nn.init's functions and
        the layers' inits end in): what, of which shape, with which numbers, from which line."""
        from torch.utils._python_dispatch import TorchDispatchMode

        owner, torch = self, self.torch

        class Draws(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                result = func(*args, **kwargs)
                name = func.overloadpacket.__name__
                if name in _RANDOM_OPS and isinstance(result, torch.Tensor):
                    numbers = [a for a in (list(args[1:]) if name.endswith("_") else []) + [
                        v for k, v in sorted(kwargs.items()) if k not in _NOT_NUMBERS]
                        if isinstance(a, (int, float)) and not isinstance(a, bool)]
                    owner.draws.append({"op": name.rstrip("_"), "shape": list(result.shape),
                                        "dtype": str(result.dtype).replace("torch.", ""),
                                        "numbers": [round(float(n), 6) for n in numbers],
                                        "line": owner.recorder.solution_line(path=owner.drawing_from)})
                return result

        return Draws()

    def line_of(self, tensor) -> int | None:
        try:
            return self.created_at.get(tensor.untyped_storage().data_ptr())
        except Exception:  # noqa: BLE001
            return None

    def active(self):
        return self.mode_type()

    def fake_mode(self, enabled: bool = True):
        import contextlib

        if not enabled:
            return contextlib.nullcontext()
        from torch._subclasses.fake_tensor import FakeTensorMode

        return FakeTensorMode(allow_non_fake_inputs=True)


def _to_cuda(args, kwargs, on_cuda) -> bool:
    return any(on_cuda(a) for a in args[1:2]) or on_cuda(kwargs.get("device"))


def _without_device(args, kwargs, on_cuda):
    args = [args[0]] + [a for a in args[1:] if not on_cuda(a)]
    kwargs = {k: v for k, v in kwargs.items() if not (k == "device" and on_cuda(v))}
    return args, kwargs
