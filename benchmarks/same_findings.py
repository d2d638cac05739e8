"""Check that two checkouts find the same: `cudalint check --format json` of each, compared finding by finding.

    python benchmarks/same_findings.py OLD_CHECKOUT NEW_CHECKOUT [--files 60] [--dry-run] [--corpus]

The real kernels are those `benchmarks/lint_cpu_ab.py` times (the same seed), each checked with its own
reference (`--reference`; one `check` per reference, its solutions together), the result cache off, the dry
run off unless `--dry-run`; `--corpus` adds the corpus folder (no reference). Each checkout runs with its
own virtualenv (`CHECKOUT/.venv/bin/python -m cudalint`) from a neutral folder. Prints the files whose
findings differ, with the findings only one side has, and exits 1 when any do.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lint_cpu_ab import REALKERNELS, pick  # noqa: E402


def findings(checkout: str, groups: dict[str | None, list[str]], dry_run: bool, work: str) -> dict[str, set]:
    python = os.path.join(checkout, ".venv", "bin", "python")
    env = dict(os.environ, CUDALINT_CACHE_DIR=os.path.join(work, os.path.basename(checkout.rstrip("/"))))
    found: dict[str, set] = {}
    for reference, paths in groups.items():
        command = [python, "-m", "cudalint", "check", "--no-cache", "--no-config", "--exit-zero", "-q", "-j", "1",
                   "--format", "json", *(["--reference", reference] if reference else []),
                   *([] if dry_run else ["--no-dry-run"]), *paths]
        out = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True).stdout
        for item in json.loads(out):
            found.setdefault(os.path.abspath(item["path"]), set()).add(
                (item["code"], item["line"], item["column"], item["end_line"], item["end_column"], item["severity"],
                 item["message"], json.dumps(item.get("related"), sort_keys=True),
                 json.dumps(item.get("fix"), sort_keys=True)))
        for path in paths:
            found.setdefault(os.path.abspath(path), set())
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs=2)
    parser.add_argument("--labels", type=Path, default=REALKERNELS)
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--corpus", action="store_true")
    args = parser.parse_args()
    groups: dict[str | None, list[str]] = {}
    for path, reference in pick(args.labels, args.files):
        groups.setdefault(reference, []).append(path)
    if args.corpus:
        groups[None] = [str(Path(args.checkouts[1]).resolve() / "corpus")]
    with tempfile.TemporaryDirectory(prefix="same-findings-") as work:
        old, new = (findings(c, groups, args.dry_run, work) for c in args.checkouts)
    differ = sorted(path for path in old.keys() | new.keys() if old.get(path, set()) != new.get(path, set()))
    for path in differ:
        print(path)
        for side, mine, theirs in (("-", old, new), ("+", new, old)):
            for finding in sorted(mine.get(path, set()) - theirs.get(path, set())):
                print(f"  {side} {finding}")
    total = sum(len(v) for v in new.values())
    print(f"{len(old.keys() | new.keys())} files, {total} findings in the second checkout; {len(differ)} files differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
