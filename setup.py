"""The compiled part of cudalint: optional. Without a C compiler the install still succeeds, and
cudalint uses the same traversal written in Python (slower; see cudalint/frontend/clang_api.py)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("cudalint.frontend._subtree", ["cudalint/frontend/_subtree.c"], optional=True)])
