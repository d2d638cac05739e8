"""The command line's option values converted without pydantic (cudalint/cli_coercion.py): the same values
as typer's own conversion for what cudalint's commands take, typer's conversion (and its messages) for the
rest, and a one-file check that never imports pydantic."""

from __future__ import annotations

import os
import subprocess
import sys
from enum import Enum
from pathlib import Path

import pytest
from typer.models import OptionInfo
from typer.testing import CliRunner

from cudalint.cli import app
from cudalint.cli_coercion import plain_value

REPO = Path(__file__).resolve().parents[1]


class Shade(str, Enum):
    light = "light"
    dark = "dark"


@pytest.mark.parametrize(("annotation", "info", "value", "expected"), [
    (str, OptionInfo(), "x.cu", "x.cu"),
    (list[str], OptionInfo(), ("CL1", "CL2"), ["CL1", "CL2"]),
    (bool, OptionInfo(), False, False),
    (Shade, OptionInfo(), "dark", Shade.dark),
    (Shade, OptionInfo(), Shade.light, Shade.light),
    (int, OptionInfo(min=0), "3", 3),
    (int, OptionInfo(min=0), 0, 0),
    (float, OptionInfo(min=0.0, max=2.0), "0.25", 0.25),
    (float, OptionInfo(), 3, 3.0),
])
def test_plain_values_convert_as_typer_does(annotation, info, value, expected):
    converted = plain_value(annotation, info, value, None)
    assert converted == expected and type(converted) is type(expected)
    coercion = pytest.importorskip("typer._coercion")  # typer 0.2x: its own conversion gives the same
    typers = coercion.build_runtime_param(coercion.resolve_type_descriptor(annotation, info))
    assert typers._coerce_value(value, param=None, ctx=None) == converted


@pytest.mark.parametrize(("annotation", "info", "value"), [
    (Shade, OptionInfo(), "Dark"),  # case-sensitive: not a member's value
    (Shade, OptionInfo(case_sensitive=False), "dark"),  # typer folds the case: its conversion decides
    (int, OptionInfo(min=0), "-1"),  # below the bound: typer's message
    (int, OptionInfo(), "3.0"),
    (int, OptionInfo(), " 3"),
    (float, OptionInfo(), "1e3"),
    (str, OptionInfo(), b"x.cu"),
    (list[str], OptionInfo(), "x.cu"),
])
def test_anything_else_is_left_to_typer(annotation, info, value):
    assert plain_value(annotation, info, value, None) is None


def test_a_rejected_value_gets_typers_message():
    result = CliRunner().invoke(app, ["check", "--format", "bogus", "x.cu"])
    assert result.exit_code == 2
    assert "'bogus' is not one of 'text', 'concise', 'json'" in result.output
    result = CliRunner().invoke(app, ["check", "-j", "-1", "x.cu"])
    assert result.exit_code == 2 and "greater than or equal to 0" in result.output


def test_a_check_of_one_file_does_not_import_pydantic():
    script = ("import sys; sys.argv = ['cudalint', 'check', '--no-cache', '--no-config', '--format', 'json', "
              "'--select', 'CL2', '-j', '1', 'examples/vector_add.cu']\n"
              "from cudalint.__main__ import main\n"
              "try:\n    main()\nexcept SystemExit:\n    pass\n"
              "sys.stderr.write('pydantic' in sys.modules and 'PYDANTIC' or 'none')\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, NO_COLOR="1"))
    assert done.stdout.strip() == "[]" and done.stderr.endswith("none")
