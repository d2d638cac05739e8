"""The only place that knows libclang: parse a CUDA unit with cudalint's stub headers and lower it to
cudalint's own IR (`cudalint.model.ir`). Everything downstream sees cudalint types only."""

from cudalint.frontend.lower import MAX_NESTING, LoweredUnit, lower_unit
from cudalint.frontend.parse import Diagnostic, prepare_workspace
from cudalint.frontend.prototypes import HostDefinitions

__all__ = ["Diagnostic", "HostDefinitions", "LoweredUnit", "MAX_NESTING", "lower_unit", "prepare_workspace"]
