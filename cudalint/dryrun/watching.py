"""The dry-run worker's watch on torch and the harness (`Watch`): what the solution replaces and the flags it
changes, compared after each stage with a snapshot taken before it ran; and the solution's reads of the
environment and the threads it starts, recorded with its lines.

Part of the dry-run worker (`worker.py`, run as a script): it imports nothing of cudalint, only the standard
library and the worker's modules beside it; torch is passed in.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .worker import Recorder

WORKER_FOLDER = os.path.dirname(__file__)  # the worker's code (worker.py and its modules): its frames read for it

_WATCHED_MODULES = ("torch", "torch.cuda", "torch.testing", "torch.nn.functional", "time", "torch.backends.cudnn",
                    "torch.backends.cuda")
_WATCHED_CLASSES = ("torch.Tensor", "torch.nn.Module", "torch.cuda.Event")
_FLAGS = {
    "torch.backends.cudnn.allow_tf32": lambda torch: torch.backends.cudnn.allow_tf32,
    "torch.backends.cudnn.benchmark": lambda torch: torch.backends.cudnn.benchmark,
    "torch.backends.cudnn.deterministic": lambda torch: torch.backends.cudnn.deterministic,
    "torch.backends.cudnn.enabled": lambda torch: torch.backends.cudnn.enabled,
    "torch.backends.cuda.matmul.allow_tf32": lambda torch: torch.backends.cuda.matmul.allow_tf32,
    "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction":
        lambda torch: torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
    "torch.get_float32_matmul_precision()": lambda torch: torch.get_float32_matmul_precision(),
    "torch.is_grad_enabled()": lambda torch: torch.is_grad_enabled(),
}


class Watch:
    """What the solution replaces of torch and the harness, and the flags it changes: compared after each
    stage with a snapshot taken before the solution ran."""

    def __init__(self, torch, recorder: Recorder) -> None:
        self.torch = torch
        self.recorder = recorder
        self.lines = recorder.attribute_lines
        self._flag_lines()
        self.snapshot = self._take()
        self.flags = self._flags()
        self.attribute_lines()

    def _objects(self) -> dict:
        import importlib

        found = {}
        for name in _WATCHED_MODULES + _WATCHED_CLASSES:
            module_name, _, attribute = name.rpartition(".")
            try:
                target = importlib.import_module(name) if name in _WATCHED_MODULES else \
                    getattr(importlib.import_module(module_name), attribute)
            except (ImportError, AttributeError):
                continue
            found[name] = target
        return found

    def _take(self) -> dict:
        snapshot = {}
        for name, target in self._objects().items():
            for attribute, value in list(vars(target).items()):
                if not attribute.startswith("__"):
                    snapshot[f"{name}.{attribute}"] = id(value)
        return snapshot

    def _flags(self) -> dict:
        values = {}
        for name, read in _FLAGS.items():
            try:
                values[name] = read(self.torch)
            except Exception:  # noqa: BLE001 - a flag this torch lacks
                continue
        return values

    def _flag_lines(self) -> None:
        """Remember the solution's line that last set a precision flag (`torch.backends.cuda.matmul.*`,
        `torch.backends.cudnn.*`, `torch.set_float32_matmul_precision`), however it reached the setter."""
        torch, recorder, lines = self.torch, self.recorder, self.lines

        def remember() -> None:
            line = recorder.solution_line()
            if line is not None:
                lines["flags"] = line

        for target in (torch.backends.cuda.matmul, torch.backends.cudnn):
            kind = type(target)
            original = kind.__setattr__

            def __setattr__(self, name, value, _original=original):  # noqa: N807
                remember()
                _original(self, name, value)

            kind.__setattr__ = __setattr__
        setter = torch.set_float32_matmul_precision

        def set_float32_matmul_precision(precision):
            remember()
            return setter(precision)

        torch.set_float32_matmul_precision = set_float32_matmul_precision

    def attribute_lines(self) -> None:
        """Give the watched plain modules a class whose `__setattr__` remembers the solution's line, so that a
        replaced object is named with the line that replaced it."""
        import types

        recorder, lines = self.recorder, self.lines

        class Watched(types.ModuleType):
            def __setattr__(self, name, value):
                line = recorder.solution_line()
                if line is not None:
                    lines[f"{self.__name__}.{name}"] = line
                super().__setattr__(name, value)

        for name, target in self._objects().items():
            if type(target) is types.ModuleType:
                target.__class__ = Watched

    def check(self, stage: str) -> None:
        now = self._take()
        for name, identity in now.items():
            if self.snapshot.get(name, identity) != identity:
                self.recorder.event("replaced", name, self.lines.get(name))
        for name, value in self._flags().items():
            if name in self.flags and self.flags[name] != value:
                self.recorder.event("flag", f"{name}: {self.flags[name]!r} -> {value!r}", self.lines.get("flags"),
                                    flag=name, before=self.flags[name], after=value)
        self.snapshot.update(now)
        self.flags.update(self._flags())


def reader_line(recorder: Recorder) -> int | None:
    """The solution's line when its own code reads the environment (through `os.getenv`, `.get`, `in`,
    `keys()`, ...); None when torch or another library does, even if the solution called that library."""
    import _collections_abc

    skipped = {os.__file__, _collections_abc.__file__, "<frozen os>", "<frozen _collections_abc>"}
    frame = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename in skipped
                                 or os.path.dirname(frame.f_code.co_filename) == WORKER_FOLDER):
        frame = frame.f_back
    if frame is not None and frame.f_code.co_filename == recorder.solution_path:
        return frame.f_lineno
    return None


def record_environment_reads(recorder: Recorder) -> None:
    environ_type = type(os.environ)

    class RecordingEnviron(environ_type):
        def __getitem__(self, key):
            line = reader_line(recorder)
            if line is not None:
                recorder.event("environment", str(key), line)
            return super().__getitem__(key)

        def __iter__(self):
            line = reader_line(recorder)
            if line is not None:
                recorder.event("environment", "*", line)  # every name: `for k in os.environ`, keys(), items()
            return super().__iter__()

    os.environ.__class__ = RecordingEnviron


def record_thread_starts(recorder: Recorder) -> None:
    import threading

    start = threading.Thread.start

    def recorded_start(self, *args, **kwargs):
        line = recorder.solution_line()
        if line is not None:
            self._cudalint_line = line
            recorder.event("thread", self.name, line)
        return start(self, *args, **kwargs)

    threading.Thread.start = recorded_start
