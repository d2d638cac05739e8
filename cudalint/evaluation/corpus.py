"""The labelled corpus: files whose `expect:` markers say what cudalint must report, plus manifests."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from cudalint.expectations import expected_findings
from cudalint.sources import SUFFIXES


@dataclass
class CorpusCase:
    path: str  # relative to the corpus root
    text: str
    expected: set[tuple[int | None, str]]  # (line, code); line None: anywhere in the file
    category: str = ""
    bug_class: str = ""
    origin: str = "corpus"  # "corpus" or the mutation operator that made it
    meta: dict = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not self.expected


def load_corpus(root: str) -> list[CorpusCase]:
    manifest: dict[str, dict] = {}
    for directory, _, files in os.walk(root):
        if "manifest.jsonl" in files:
            with open(os.path.join(directory, "manifest.jsonl"), encoding="utf-8") as handle:
                for line in handle:
                    if line.strip():
                        entry = json.loads(line)
                        manifest[entry["path"]] = entry
    cases = []
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(SUFFIXES):
                continue
            full = os.path.join(directory, name)
            relative = os.path.relpath(full, root).replace(os.sep, "/")
            with open(full, encoding="utf-8") as handle:
                text = handle.read()
            entry = manifest.get(relative, {})
            cases.append(CorpusCase(relative, text, set(expected_findings(text)),
                                    entry.get("category", relative.split("/")[1] if relative.count("/") > 1 else ""),
                                    entry.get("bug_class", ""), "corpus", entry))
    return cases
