"""Rule pages: one markdown file per rule in the top-level `rules/` folder (shipped as the package
`cudalint.rule_pages`), with fixed sections that `cudalint rule`, SARIF help and repair prompts use.

A page looks like this, sections in this order:

    # CL301 shared-memory-oversize
    ## What it finds
    ## Why it is a bug
    ## Example          a fenced code block (```cuda, or ```python for Python inputs) that raises the rule
    ## Use instead      a fenced code block that does not raise it
    ## How to repair    guidance, pasted into LLM repair prompts

Conventions the docs test relies on:

- A rule that no source can sensibly trigger (an internal error) starts its Example section with
  `No example.` (and may do so in Use instead); the docs test skips its examples then. Such a section
  must contain no fenced code block.
- Every fenced block of Example must raise the rule; every fenced block of Use instead must not raise
  it and must raise no error-level finding of any rule, unless the Use instead section has a line
  `Still raises: CL901, CL302` naming the other rules it is known to raise (with the reason nearby).
- The fence's info string picks the file kind: `cuda`, `cu`, `cpp` or `c++` lint as `example.cu`,
  `python` or `py` as `example.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from cudalint.checks.registry import Rule, all_rules, find_rule

SECTIONS = ("What it finds", "Why it is a bug", "Example", "Use instead", "How to repair")
NO_EXAMPLE = "No example."
_TITLE = re.compile(r"^# (CL\d{3}) ([a-z0-9]+(?:-[a-z0-9]+)*)\s*$")
_HEADING = re.compile(r"^## (.+?)\s*$")
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)[^`]*$")
_STILL_RAISES = re.compile(r"^Still raises:\s*(?P<codes>CL\d{3}(?:\s*,\s*CL\d{3})*)\.?\s*$", re.MULTILINE)
_FILENAMES = {"cuda": "example.cu", "cu": "example.cu", "cpp": "example.cu", "c++": "example.cu",
              "python": "example.py", "py": "example.py"}


class RulePageError(ValueError):
    """A rule page that is missing or does not follow the fixed layout."""


@dataclass(frozen=True)
class CodeBlock:
    language: str  # the fence's info string: "cuda", "python", ...
    code: str
    line: int  # 1-based line of the page where the code starts
    closed: bool = True  # False for a fence left open at the end of the text

    @property
    def filename(self) -> str:
        """The file name to lint this block as (its suffix picks CUDA or Python)."""
        return _FILENAMES.get(self.language.lower(), "example.cu")


@dataclass(frozen=True)
class RulePage:
    code: str
    name: str
    text: str  # the whole page, as written
    sections: dict[str, str] = field(default_factory=dict)  # heading -> body (markdown, stripped)

    @property
    def what_it_finds(self) -> str:
        return self.sections["What it finds"]

    @property
    def why(self) -> str:
        return self.sections["Why it is a bug"]

    @property
    def how_to_repair(self) -> str:
        return self.sections["How to repair"]

    @property
    def has_example(self) -> bool:
        return not _says_no_example(self.sections["Example"])

    @property
    def examples(self) -> list[CodeBlock]:
        """Code that raises the rule (empty when the page says `No example.`)."""
        return self._blocks("Example")

    @property
    def use_instead(self) -> list[CodeBlock]:
        """Code that does not raise the rule."""
        return self._blocks("Use instead")

    @property
    def still_raises(self) -> frozenset[str]:
        """Codes of other rules that the Use instead code is documented to still raise."""
        found = set()
        for match in _STILL_RAISES.finditer(self.sections["Use instead"]):
            found.update(c.strip() for c in match.group("codes").split(","))
        return frozenset(found)

    def _blocks(self, section: str) -> list[CodeBlock]:
        if _says_no_example(self.sections[section]):
            return []
        lines = self.text.splitlines()
        start = next(i for i, line in enumerate(lines) if (m := _HEADING.match(line)) and m.group(1) == section)
        end = next((i for i in range(start + 1, len(lines)) if _HEADING.match(lines[i])
                    and _HEADING.match(lines[i]).group(1) in SECTIONS), len(lines))
        raw = "\n".join(lines[start + 1:end])
        return [CodeBlock(b.language, b.code, b.line + start + 1) for b in code_blocks(raw)]


def _says_no_example(body: str) -> bool:
    return body.strip().startswith(NO_EXAMPLE)


def code_blocks(markdown: str) -> list[CodeBlock]:
    """The fenced code blocks of `markdown`; a fence closes on the same character, at least as long (an
    open one runs to the end). Rule pages and model answers (`cudalint.repairing.extract`) both use it."""
    blocks: list[CodeBlock] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        fence, info = match.group("fence"), match.group("info")
        start = i + 1
        j = start
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence) and \
                    len(lines[j]) - len(lines[j].lstrip(" ")) <= 3:
                break
            j += 1
        blocks.append(CodeBlock(info, "\n".join(lines[start:j]) + "\n", start + 1, closed=j < len(lines)))
        i = j + 1
    return blocks


def parse_page(text: str, source: str = "<page>") -> RulePage:
    """Parse a rule page; raise RulePageError when the title or the sections are not as required."""
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    title = _TITLE.match(first)
    if title is None:
        raise RulePageError(f"{source}: the first line must be `# CLnnn rule-name`, not {first!r}")
    sections: dict[str, list[str]] = {}
    order: list[str] = []
    current: str | None = None
    in_fence: str | None = None
    for line in lines[lines.index(first) + 1:]:
        fence = _FENCE.match(line)
        if in_fence is None and fence:
            in_fence = fence.group("fence")
        elif in_fence is not None and line.strip() and set(line.strip()) == {in_fence[0]} \
                and len(line.strip()) >= len(in_fence):
            in_fence = None
        elif in_fence is None:
            heading = _HEADING.match(line)
            if heading:
                current = heading.group(1)
                if current in sections:
                    raise RulePageError(f"{source}: section `## {current}` appears twice")
                sections[current] = []
                order.append(current)
                continue
        if current is not None:
            sections[current].append(line)
        elif line.strip():
            raise RulePageError(f"{source}: text before the first section: {line!r}")
    missing = [s for s in SECTIONS if s not in sections]
    if missing:
        raise RulePageError(f"{source}: missing section(s): {', '.join('## ' + s for s in missing)}")
    known_order = [s for s in order if s in SECTIONS]
    if known_order != list(SECTIONS):
        raise RulePageError(f"{source}: sections must come in this order: {', '.join(SECTIONS)}")
    bodies = {name: "\n".join(body).strip() for name, body in sections.items()}
    for name in SECTIONS:
        if not bodies[name]:
            raise RulePageError(f"{source}: section `## {name}` is empty")
    return RulePage(title.group(1), title.group(2), text, bodies)


def page_text(code: str) -> str | None:
    """The raw markdown of the page for rule `code` (e.g. "CL301"), or None when there is none."""
    resource = resources.files("cudalint.rule_pages") / f"{code}.md"
    if not resource.is_file():
        return None
    return resource.read_text(encoding="utf-8")


@cache
def load_page(code: str) -> RulePage:
    """The parsed page of rule `code`; RulePageError when it is missing, malformed or names another rule."""
    text = page_text(code)
    if text is None:
        raise RulePageError(f"rule {code} has no page rules/{code}.md")
    page = parse_page(text, f"rules/{code}.md")
    rule = find_rule(code)
    if page.code != code or (rule is not None and page.name != rule.name):
        expected = f"{code} {rule.name}" if rule else code
        raise RulePageError(f"rules/{code}.md: title says `{page.code} {page.name}`, expected `{expected}`")
    return page


def page_for(rule: Rule) -> RulePage | None:
    """The rule's page, or None when it has none or it is malformed (for renderers that fall back)."""
    try:
        return load_page(rule.code)
    except RulePageError:
        return None


def fallback_page(rule: Rule) -> str:
    """A minimal page built from the rule's metadata, for a rule whose page is missing."""
    return f"# {rule.code} {rule.name}\n\n## What it finds\n\n{rule.summary[:1].upper()}{rule.summary[1:]}.\n"


def all_pages() -> dict[str, RulePage | None]:
    return {rule.code: page_for(rule) for rule in all_rules()}


__all__ = ["NO_EXAMPLE", "SECTIONS", "CodeBlock", "RulePage", "RulePageError", "all_pages", "code_blocks",
           "fallback_page", "load_page", "page_for", "page_text", "parse_page"]
