"""The resumable results file of a sweep (`verify --results FILE.jsonl`): one record per finished candidate.

Each record is appended as one JSON line and flushed as soon as its candidate is finished, so a sweep
killed at any point keeps every candidate it finished. A restarted sweep reads the file and takes the
record of every candidate whose key is there instead of verifying it again; the key is a hash of the
solution's bytes, the reference's bytes and the settings that change a verdict, so an edited file or
other settings are verified afresh. A record whose status is about the machine or the reference
(`results.NOT_THE_CANDIDATES`: no GPU, a dead worker) is verified again too. A line cut short by a kill
is skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading

from cudalint.verify.results import NOT_THE_CANDIDATES

KEY_VERSION = "1"
# the VerifyOptions fields that can change a candidate's record (not where it runs, nor how fast)
VERDICT_SETTINGS = ("trials", "seed", "tolerances", "timing", "warmup", "timing_trials", "compile", "lint", "poison",
                    "allow_tf32", "build_timeout", "run_timeout", "sanitize_timeout", "device", "build_only",
                    "sanitize_kernels", "isolate_network", "pass_env", "parity", "precision",
                    "light_build")


def _digest(path: str | None) -> str | None:
    if not path:
        return None
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def candidate_key(solution: str, reference: str | None, options, tools: tuple[str, ...]) -> str:
    """The key of a candidate's record: its solution and reference contents, and the settings (`options`,
    a VerifyOptions, with the sanitizer `tools` asked for this candidate)."""
    settings = {name: getattr(options, name) for name in VERDICT_SETTINGS}
    payload = {"version": KEY_VERSION, "solution": _digest(solution), "reference": _digest(reference),
               "settings": settings, "sanitize": list(tools)}
    blob = json.dumps(payload, sort_keys=True, default=repr).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


class ResultsFile:
    """Append-only JSON lines of finished records, safe to append to from several threads."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lock = threading.Lock()

    def finished(self) -> dict[str, dict]:
        """The records to keep, by key (the last line of a key wins)."""
        kept: dict[str, dict] = {}
        try:
            with open(self.path, encoding="utf-8") as handle:
                lines = handle.readlines()
        except FileNotFoundError:
            return kept
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # cut short by a kill
            if not isinstance(record, dict) or not isinstance(record.get("key"), str):
                continue
            if record.get("status") in NOT_THE_CANDIDATES:
                kept.pop(record["key"], None)
            else:
                kept[record["key"]] = record
        return kept

    def append(self, record: dict) -> None:
        line = json.dumps(record, default=str) + "\n"
        with self.lock:
            directory = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(directory, exist_ok=True)
            with open(self.path, "a+b") as handle:
                handle.seek(0, os.SEEK_END)
                if handle.tell():
                    handle.seek(-1, os.SEEK_END)
                    if handle.read(1) != b"\n":
                        handle.write(b"\n")  # a line a kill cut short stays on its own line
                handle.write(line.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())


__all__ = ["ResultsFile", "VERDICT_SETTINGS", "candidate_key"]
