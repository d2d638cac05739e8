"""Turns on a GPU: several candidates' workers start at once, one of them uses the GPU at a time.

A run's worker and judge spend seconds starting (the interpreter, `import torch`) before their first CUDA call.
With overlap (`VerifyOptions.overlap` above 1), the executor starts the next candidates' workers while one
candidate has the GPU; each worker prepares what needs no GPU and no candidate code (torch imported, the
request read, the build cache routed), then asks for the GPU (`channel.wait_for_gpu`: a byte on its `ready`
pipe) and blocks reading its `grant` pipe. This process decides: `GpuTurns` (one per GPU) grants the GPU to
one worker at a time, the earliest candidate first among those waiting, and takes it back only when that
worker's process has ended (the sandbox kills everything it started), never on the worker's word, so a
candidate cannot take the GPU from another, nor keep it past its own time limit. Nothing of a candidate's code
runs before its grant: the run worker loads the solution after it. A worker's time limit does not run while it
waits (`GpuGrant.waited`; `sandbox.run_sandboxed`'s `paused`), and the seconds of its record leave the wait out.
"""

from __future__ import annotations

import heapq
import json
import os
import threading
import time


class GpuTurns:
    """One GPU's grant: held by at most one worker process at a time; given, when free, to the waiting worker
    of the earliest job (by the number `turn` is given), its run before its judge. `log` keeps every
    grant: (job, phase, granted, released), in `time.time()` seconds."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._holder: tuple | None = None
        self._waiting: list[tuple] = []
        self.log: list[tuple] = []

    def turn(self, job: int) -> Turn:
        """The turns of job number `job` (its place in the batch: the earlier first)."""
        return Turn(self, job)

    def acquire(self, key: tuple, withdrawn: threading.Event) -> bool:
        """Block until `key` holds the GPU (True), or until `withdrawn` is set (False)."""
        with self._lock:
            heapq.heappush(self._waiting, key)
            while not withdrawn.is_set() and not (self._holder is None and self._waiting[0] == key):
                self._lock.wait()
            self._waiting.remove(key)
            heapq.heapify(self._waiting)
            if withdrawn.is_set():
                self._lock.notify_all()
                return False
            self._holder = key
            return True

    def release(self, key: tuple, granted: float) -> None:
        with self._lock:
            if self._holder == key:
                self._holder = None
                self.log.append((key[0], key[1], granted, time.time()))
            self._lock.notify_all()

    def wake(self) -> None:
        with self._lock:
            self._lock.notify_all()


class Turn:
    """One job's turns on its GPU: `grant(0)` for its run worker, `grant(1)` for its judge."""

    def __init__(self, turns: GpuTurns, job: int) -> None:
        self.turns, self.job = turns, job

    def grant(self, phase: int, opened: bool = True) -> GpuGrant:
        return GpuGrant(self.turns, (self.job, phase), opened)


class GpuGrant:
    """This process's side of one worker's grant: the worker gets `request()` (the file descriptors of its
    `ready` pipe, to write, and of its `grant` pipe, to read: pass them with `pass_fds()`); a thread here waits
    for its byte on `ready`, for `open()` (a judge waits for its run's outputs and nonces: `open(fields)` sends
    them with the grant, merged into its request), then for the GPU, and writes the grant line. `withdraw()`
    (the judge of a run that failed) refuses it; `finish()`, once the process has ended, takes the GPU back.
    `held`: (granted, released) in `time.time()` seconds once it held the GPU."""

    def __init__(self, turns: GpuTurns, key: tuple, opened: bool = True) -> None:
        self.turns, self.key = turns, key
        self._ready_read, self.ready_fd = os.pipe()
        self._grant_read, self._grant_write = os.pipe()
        self._opened, self.withdrawn = threading.Event(), threading.Event()
        self._fields: dict = {}
        self._asked: float | None = None  # time.monotonic() when the worker asked
        self._granted: float | None = None
        self._granted_at: float | None = None  # time.time() of the grant
        self.held: tuple[float, float] | None = None
        self._finished = False
        if opened:
            self._opened.set()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def request(self) -> dict:
        return {"gpu_grant": {"ready": self.ready_fd, "grant": self._grant_read}}

    def pass_fds(self) -> tuple[int, int]:
        return self.ready_fd, self._grant_read

    def open(self, fields: dict | None = None) -> None:
        self._fields = dict(fields or {})
        self._opened.set()

    def opened(self) -> bool:
        return self._opened.is_set()

    def withdraw(self) -> None:
        self.withdrawn.set()
        self._opened.set()
        self.turns.wake()

    def waited(self) -> float:
        """Seconds the worker has waited for its grant so far (its time limit does not run meanwhile)."""
        if self._asked is None:
            return 0.0
        return (self._granted if self._granted is not None else time.monotonic()) - self._asked

    def finish(self) -> None:
        """The worker's process has ended: stop waiting for it, and take the GPU back if it held it."""
        if self._finished:
            return
        self._finished = True
        self.withdraw()
        for fd in (self.ready_fd, self._grant_read):  # our copies of its ends: its byte can no longer come
            _close(fd)
        self.ready_fd = self._grant_read = -1
        self._thread.join()
        if self._granted_at is not None:
            self.turns.release(self.key, self._granted_at)
            self.held = (self._granted_at, time.time())

    def _serve(self) -> None:
        try:
            with open(self._ready_read, "rb", buffering=0) as ready:
                if not ready.read(1):  # it ended without asking (or is not a worker that asks)
                    return
                self._asked = time.monotonic()
            self._opened.wait()
            if self.withdrawn.is_set() or not self.turns.acquire(self.key, self.withdrawn):
                return
            self._granted_at, self._granted = time.time(), time.monotonic()
            line = memoryview((json.dumps({"granted": True, "request": self._fields}) + "\n").encode())
            try:
                while line:
                    line = line[os.write(self._grant_write, line):]
            except OSError:  # it is gone: the GPU is taken back when its end is seen (`finish`)
                pass
        finally:
            _close(self._grant_write)  # refused or sent: the worker reads its line, then the end


def _close(fd: int) -> None:
    if fd >= 0:
        try:
            os.close(fd)
        except OSError:
            pass


__all__ = ["GpuGrant", "GpuTurns", "Turn"]
