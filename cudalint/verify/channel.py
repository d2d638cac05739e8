"""The verify worker's progress channel: its state (`Progress`), one JSON line per snapshot on the pipe the
parent gave it, at each stage, so that when the process dies or hangs the parent still knows how far it got:
`stage`, the extensions built, the trials done.

Part of the worker (`worker.py`, run as a script): standard library only.
"""

from __future__ import annotations

import json
import math
import os
import time


class Progress:
    """The worker's state, sent to the parent's channel (a pipe: file descriptor `channel`) at each stage,
    so that a dead worker still tells how far it got. The parent keeps the last complete line."""

    def __init__(self, channel: int, mode: str) -> None:
        self.channel = channel
        self.state: dict = {"mode": mode, "stage": "start", "done": False, "extensions": [], "notes": [],
                            "pid": os.getpid(), "started": time.time()}
        self.write()

    def write(self) -> None:
        write_all(self.channel, (json.dumps(self.state, default=_json_default) + "\n").encode("utf-8"))

    def stage(self, name: str) -> None:
        self.state["stage"] = name
        self.write()

    def note(self, text: str) -> None:
        self.state["notes"].append(text)

    def finish(self, status: str, message: str = "", **fields) -> None:
        self.state.update(fields)
        self.state.update(status=status, message=message, done=True, seconds=time.time() - self.state["started"])
        self.write()


def _json_default(value):
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return str(value)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
