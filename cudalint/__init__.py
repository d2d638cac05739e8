"""cudalint: find the bugs in generated CUDA kernels before any compilation."""

from cudalint.config import ConfigError, LintOptions
from cudalint.engine import FileResult, InputError, lint_paths, lint_source
from cudalint.findings import Finding, Location, Severity
from cudalint.prefilter import PrefilterResult, prefilter
from cudalint.version import __version__

__all__ = ["ConfigError", "FileResult", "Finding", "InputError", "LintOptions", "Location", "Severity",
           "PrefilterResult", "__version__", "lint_paths", "lint_source", "prefilter"]
