"""The GPU check of `cudalint repair --verify`: an answer's text verified against the reference (`runner.py`),
its record turned into the GPU reports the repair loop sends back (`results.gpu_reports`).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile

from cudalint.verify.results import NOT_THE_CANDIDATES, gpu_reports
from cudalint.verify.runner import VerifyOptions, verify_file


def make_gpu_check(reference: str, options=None, min_speedup: float | None = None, records: list | None = None):
    """A `gpu_check` for `cudalint.repairing.loop.repair_file`: (path, text) -> GPU reports of that text
    verified against `reference` (lint is skipped: the repair loop lints first); a correct one slower than
    `min_speedup` is reported too. Each verify record is appended to `records` when given."""
    from cudalint.repairing.loop import GpuCheckFailed

    base = dataclasses.replace(options or VerifyOptions(), lint=False)

    def gpu_check(path: str, text: str) -> list:
        directory = tempfile.mkdtemp(prefix="cudalint-gpu-check-")
        try:
            candidate = os.path.join(directory, os.path.basename(path))
            with open(candidate, "w", encoding="utf-8") as handle:
                handle.write(text)
            record = verify_file(candidate, reference, base)
            if records is not None:
                records.append(record)
            if record["status"] in NOT_THE_CANDIDATES:
                raise GpuCheckFailed(f"the GPU check could not judge the answer: {record['status']}: "
                                     f"{record['message']}")
            return gpu_reports(record, min_speedup=min_speedup)
        finally:
            shutil.rmtree(directory, ignore_errors=True)

    return gpu_check
