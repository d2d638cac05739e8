"""The kernel model: cudalint's IR of a CUDA unit and the program facts built from it once per file."""
