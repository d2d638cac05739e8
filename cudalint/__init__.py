"""cudalint: find the bugs in generated CUDA kernels before any compilation."""

import sys
import types

from cudalint.version import __version__

__all__ = ["ConfigError", "FileResult", "Finding", "InputError", "LintOptions", "Location", "Severity",
           "PrefilterResult", "__version__", "lint_paths", "lint_source", "prefilter"]

# The API's modules load on first use: `cudalint --version`, and any `cudalint.<module>` import, would
# otherwise pay for the whole engine (libclang, every rule) before doing anything.
_HOMES = {"ConfigError": "cudalint.config", "LintOptions": "cudalint.config", "FileResult": "cudalint.engine",
          "InputError": "cudalint.engine", "lint_paths": "cudalint.engine", "lint_source": "cudalint.engine",
          "Finding": "cudalint.findings", "Location": "cudalint.findings", "Severity": "cudalint.findings",
          "PrefilterResult": "cudalint.prefilter", "prefilter": "cudalint.prefilter"}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'cudalint' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    def __setattr__(self, name: str, value) -> None:
        # importing the submodule `cudalint.prefilter` binds its name here; the API's `prefilter` is the function
        if name == "prefilter" and isinstance(value, types.ModuleType):
            value = value.prefilter
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
