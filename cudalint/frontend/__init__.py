"""The only place that knows libclang: parse a CUDA unit with cudalint's stub headers and lower it to
cudalint's own IR (`cudalint.model.ir`). Everything downstream sees cudalint types only."""

from cudalint.frontend.parse import ParsedUnit, parse_unit

__all__ = ["ParsedUnit", "parse_unit"]
