"""Load a script of benchmarks/ as a module, for tests of its pure parts."""

from __future__ import annotations

import importlib.util
import os
import sys
from types import ModuleType

BENCHMARKS = os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks")


def script_path(name: str) -> str:
    return os.path.join(BENCHMARKS, f"{name}.py")


def load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, script_path(name))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while they are made
    spec.loader.exec_module(module)
    return module
