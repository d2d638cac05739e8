"""`cudalint repair` while it waits: a progress line on a terminal's stderr, a --timeout that is the wall
time the user waits (retries included), and a one-line error when the model client is not installed."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from cudalint.cli import app

sys.path.insert(0, str(Path(__file__).parent))
from openai_stub_server import Reply, StubServer  # noqa: E402

FIXTURE = Path(__file__).parent / "fixtures" / "repair" / "sigmoid_block2048.py"  # CL302: 2048-thread blocks
KEY = "sk-test-0123456789abcdef"


def _repair_on_a_terminal(workdir: Path, server: StubServer) -> tuple[int, str, str]:
    """`cudalint repair` in a process whose stderr is a terminal: (exit code, stdout, the terminal's text)."""
    controller, terminal = pty.openpty()
    env = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url, "COLUMNS": "200"}
    process = subprocess.Popen([sys.executable, "-m", "cudalint", "repair", FIXTURE.name, "--model", "stub-model",
                                "--rounds", "1", "--no-config"], cwd=workdir, env=env, stdout=subprocess.PIPE,
                               stderr=terminal, text=True)
    os.close(terminal)
    shown = b""
    while True:
        ready, _, _ = select.select([controller], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the process closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    stdout = process.stdout.read()
    os.close(controller)
    return process.wait(timeout=60), stdout, shown.decode()


def test_a_terminal_sees_what_is_awaited(tmp_path: Path) -> None:
    (tmp_path / FIXTURE.name).write_text(FIXTURE.read_text())
    fixed = FIXTURE.read_text().replace("block_size = 2048", "block_size = 256")
    with StubServer([Reply(content=f"```python\n{fixed}```\n", delay=2.0)]) as server:
        code, stdout, shown = _repair_on_a_terminal(tmp_path, server)
    assert code == 0, (stdout, shown)
    assert (f"{FIXTURE.name}: repairing 1 finding (CL302); round 1/1: waiting for stub-model, 1 s, attempt 1"
            in shown), shown
    assert shown.endswith("\r\x1b[K")  # the line is cleared before the report
    assert "waiting for" not in stdout


def test_without_a_terminal_no_progress_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / FIXTURE.name).write_text(FIXTURE.read_text())
    with StubServer([Reply(content="no code", delay=0.8)]) as server:
        result = CliRunner().invoke(app, ["repair", FIXTURE.name, "-m", "stub-model", "--rounds", "1", "--no-config"],
                                    env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url})
    assert "waiting for" not in result.output


def test_timeout_is_the_wall_time_the_user_waits(tmp_path: Path, monkeypatch) -> None:
    """A server that answers 503 with Retry-After: 30 is given up on after --timeout, with a reason that does
    not blame the URL (it was reached)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / FIXTURE.name).write_text(FIXTURE.read_text())
    busy = Reply.error(503, "overloaded", headers={"Retry-After": "30"})
    with StubServer([busy] * 10) as server:
        started = time.monotonic()
        result = CliRunner().invoke(app, ["repair", FIXTURE.name, "-m", "stub-model", "--timeout", "2",
                                          "--no-config"], env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url})
        waited = time.monotonic() - started
    assert result.exit_code == 2, result.output
    assert waited < 20, waited  # the Retry-After alone would be 30 s a retry (the linting around it is not counted)
    assert re.search(r"no answer within 2 s \(\d attempts?, the last HTTP 503\); a slow model may need a longer "
                     r"--timeout", result.output), result.output
    assert "base URL" not in result.output


def test_model_settings_without_a_model_are_refused(tmp_path: Path, monkeypatch) -> None:
    """Without a model, repair applies the built-in fixes: --rounds or --temperature would be ignored."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CUDALINT_MODEL", raising=False)
    (tmp_path / FIXTURE.name).write_text(FIXTURE.read_text())
    result = CliRunner().invoke(app, ["repair", FIXTURE.name, "--rounds", "2", "--temperature", "0.1", "--no-config"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("cudalint: error: --temperature, --rounds set how the model is asked, and no model is "
                             "named: give --model MODEL (or $CUDALINT_MODEL)\n")
    assert CliRunner().invoke(app, ["repair", FIXTURE.name, "--no-config"]).exit_code == 1  # built-in fixes: none
