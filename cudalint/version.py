"""The version of cudalint, in a module of its own so that any layer can read it without importing the package's
API (the engine and everything above it)."""

__version__ = "0.1.0"


def version_line() -> str:
    """What `cudalint --version` prints."""
    return f"cudalint {__version__}\n"
