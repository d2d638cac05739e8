"""Every registered rule has a page in rules/ with the fixed sections, and the page's examples behave as
documented: each Example block raises the rule, each Use instead block does not (and raises no error of
another rule unless the page says `Still raises: ...`). Rules added later are covered automatically.

Convention: a rule no input can sensibly trigger starts its Example section with `No example.`; its
examples are skipped (see cudalint/rule_docs.py)."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from cudalint import lint_source
from cudalint.checks.registry import all_rules, find_rule
from cudalint.config import LintOptions
from cudalint.findings import Severity
from cudalint.rule_docs import (
    NO_EXAMPLE, SECTIONS, RulePageError, code_blocks, fallback_page, load_page, page_text, parse_page,
)

RULES = all_rules()
CODES = [rule.code for rule in RULES]


def _describe(findings) -> str:
    return "\n".join(f"  {f.line}:{f.column}: {f.code} [{f.severity.value}] {f.message}" for f in findings) or "  none"


def _selecting(code: str) -> LintOptions:
    """Every default rule and `code`, which may be an opt-in one (CL5xx)."""
    return LintOptions(select=["ALL", code])


@pytest.mark.parametrize("code", CODES)
def test_every_rule_has_a_complete_page(code):
    rule = find_rule(code)
    assert page_text(code) is not None, f"rule {code} ({rule.name}) has no page: write rules/{code}.md"
    page = load_page(code)  # raises RulePageError with the reason when a section is missing or misplaced
    assert (page.code, page.name) == (rule.code, rule.name)
    assert page.text.splitlines()[0] == f"# {rule.code} {rule.name}"
    for section in SECTIONS:
        assert page.sections[section].strip(), f"{code}: empty section {section}"
    if page.has_example:
        assert page.examples, f"{code}: the Example section has no fenced code block (or say `{NO_EXAMPLE}`)"
        assert page.use_instead, f"{code}: the Use instead section has no fenced code block"
    else:
        assert not code_blocks(page.sections["Example"]), f"{code}: says `{NO_EXAMPLE}` but has a code block"


@pytest.mark.parametrize("code", CODES)
def test_example_raises_the_rule(code):
    page = load_page(code)
    if not page.has_example:
        pytest.skip(f"{code}: the page says {NO_EXAMPLE!r}")
    for block in page.examples:
        findings = lint_source(block.code, filename=block.filename, options=_selecting(code))
        assert code in {f.code for f in findings}, (
            f"rules/{code}.md line {block.line}: the Example does not raise {code}; findings:\n{_describe(findings)}")


@pytest.mark.parametrize("code", CODES)
def test_use_instead_does_not_raise_it(code):
    page = load_page(code)
    if not page.has_example or not page.use_instead:
        pytest.skip(f"{code}: the page says {NO_EXAMPLE!r}")
    for block in page.use_instead:
        findings = lint_source(block.code, filename=block.filename, options=_selecting(code))
        assert code not in {f.code for f in findings}, (
            f"rules/{code}.md line {block.line}: the Use instead code raises {code}:\n{_describe(findings)}")
        errors = [f for f in findings if f.severity is Severity.ERROR and f.code not in page.still_raises]
        assert not errors, (
            f"rules/{code}.md line {block.line}: the Use instead code raises errors of other rules (fix the "
            f"example, or document them with a `Still raises: CODE` line):\n{_describe(errors)}")


def test_every_page_belongs_to_a_registered_rule():
    pages = sorted(p.name[:-3] for p in resources.files("cudalint.rule_pages").iterdir()
                   if re.fullmatch(r"CL\d{3}\.md", p.name))
    assert pages, "no rule pages found in cudalint.rule_pages"
    orphans = [p for p in pages if p not in CODES]
    assert not orphans, f"pages without a registered rule (codes are never reused): {orphans}"


# ------------------------------------------------------------------------------------- the page parser


_GOOD = """# CL123 some-rule

## What it finds

Things.

## Why it is a bug

Reasons.

## Example

````cuda
// a nested fence does not close the block:
```
int x;
````

## Use instead

Still raises: CL901, CL903

```python
x = 1
```

## How to repair

Do it.
"""


def test_parse_page_sections_and_blocks():
    page = parse_page(_GOOD)
    assert (page.code, page.name) == ("CL123", "some-rule")
    assert list(page.sections) == list(SECTIONS)
    [example] = page.examples
    assert example.language == "cuda" and example.filename == "example.cu"
    assert example.code == "// a nested fence does not close the block:\n```\nint x;\n"
    assert _GOOD.splitlines()[example.line - 1] == "// a nested fence does not close the block:"
    [fixed] = page.use_instead
    assert fixed.filename == "example.py" and fixed.code == "x = 1\n"
    assert page.still_raises == {"CL901", "CL903"}
    assert page.how_to_repair == "Do it."


def test_no_example_convention():
    text = _GOOD.replace(_GOOD[_GOOD.index("````cuda"):_GOOD.index("## Use instead")], "No example. Why not.\n\n")
    page = parse_page(text)
    assert not page.has_example
    assert page.examples == []


@pytest.mark.parametrize(("broken", "reason"), [
    (_GOOD.replace("# CL123 some-rule", "# Some rule"), "first line"),
    (_GOOD.replace("## Why it is a bug", "## Why"), "missing section"),
    (_GOOD.replace("Do it.", ""), "is empty"),
    (_GOOD.replace("## What it finds\n\nThings.\n\n## Why it is a bug\n\nReasons.",
                   "## Why it is a bug\n\nReasons.\n\n## What it finds\n\nThings."), "order"),
    (_GOOD + "\n## How to repair\n\nAgain.\n", "twice"),
])
def test_parse_page_rejects_broken_pages(broken, reason):
    with pytest.raises(RulePageError, match=reason):
        parse_page(broken)


def test_fallback_page_for_a_rule_without_one():
    rule = find_rule("CL301")
    assert fallback_page(rule).startswith("# CL301 shared-memory-oversize\n\n## What it finds\n\nA kernel's")
