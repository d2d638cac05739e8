"""The verify worker's progress channel: its state (`Progress`), one JSON line per snapshot on the pipe the
parent gave it, at each stage, so that when the process dies or hangs the parent still knows how far it got:
`stage`, the extensions built, the trials done; and, with overlap, the wait for its turn on the GPU
(`wait_for_gpu`, the worker's side of `cudalint.verify.turns`).

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


def wait_for_gpu(request: dict, progress: Progress) -> bool:
    """With overlap (the request's `gpu_grant`, `cudalint.verify.turns`): say that this worker is ready (a byte
    on `ready`) and block until the parent grants it the GPU (a JSON line on `grant`, whose `request` fields
    are merged into `request`). Call it before the first CUDA call and before any candidate code. False:
    refused (the parent no longer needs this worker). Without `gpu_grant`: True at once. The traceback dump
    before the time limit (`faulthandler`) is moved by the time waited, which the limit does not count."""
    fds = request.get("gpu_grant")
    if not fds:
        return True
    import faulthandler

    progress.stage("waiting for the GPU")
    asked = time.time()
    faulthandler.cancel_dump_traceback_later()  # the wait is not the limit's: no dump of a "hang" meanwhile
    write_all(fds["ready"], b"r")
    os.close(fds["ready"])
    with os.fdopen(fds["grant"], "rb") as pipe:
        line = pipe.readline()
    try:
        grant = json.loads(line)
    except ValueError:
        return False
    if not isinstance(grant, dict) or grant.get("granted") is not True:
        return False
    request.update(grant.get("request") or {})
    if request.get("timeout"):
        spent = asked - float(progress.state["started"])
        faulthandler.dump_traceback_later(max(float(request["timeout"]) - 2.0 - spent, 1.0), exit=False)
    progress.stage("granted the GPU")
    return True


def _json_default(value):
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return str(value)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
