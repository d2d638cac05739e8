"""Facts computed on the kernel model and shared by rules: constants, thread dependence, guards, ..."""
