"""Trim a Ray wheel to what `cudalint verify --ray` uses, for a machine that cannot reach a registry.

    python tools/trim_ray_wheel.py ray-2.60.0-cp312-cp312-manylinux2014_x86_64.whl OUTDIR

Writes OUTDIR/<the same file name>: the wheel without Ray's libraries cudalint never imports (RLlib, Data,
Tune, Train, Serve, LLM), the Java jars, the dashboard's web client (its Python modules stay: the raylet
starts the dashboard agent) and source maps; RECORD lists what is left, with hashes, so that pip installs
it as the wheel it was. Core Ray (the raylet, the GCS server, `_raylet.so`, `ray.util`, `ray.cluster_utils`)
is kept whole. Install on the target with its dependencies, from carried wheels:

    pip install --no-index --find-links WHEELS ray==2.60.0
"""

from __future__ import annotations

import base64
import hashlib
import os
import sys
import zipfile

DROPPED = ("ray/jars/", "ray/rllib/", "ray/data/", "ray/tune/", "ray/train/", "ray/serve/", "ray/llm/",
           "ray/dashboard/client/")
DROPPED_SUFFIXES = (".js.map", ".css.map")


def kept(name: str) -> bool:
    return not name.startswith(DROPPED) and not name.endswith(DROPPED_SUFFIXES)


def trim(source: str, out_dir: str) -> str:
    os.makedirs(out_dir, exist_ok=True)
    target = os.path.join(out_dir, os.path.basename(source))
    with zipfile.ZipFile(source) as wheel, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
        record_name = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
        lines = []
        for info in wheel.infolist():
            if info.filename == record_name or not kept(info.filename):
                continue
            data = wheel.read(info)
            out.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)  # keeps the mode bits
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            lines.append(f"{info.filename},sha256={digest},{len(data)}")
        lines.append(f"{record_name},,")
        out.writestr(wheel.getinfo(record_name), "\n".join(lines) + "\n")
    return target


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    written = trim(sys.argv[1], sys.argv[2])
    sys.stdout.write(f"{written}: {os.path.getsize(written) / 1e6:.1f} MB\n")
