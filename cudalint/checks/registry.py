"""Rule metadata and the registry that maps codes and names to rules."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from cudalint.findings import Severity

CATEGORIES = {
    "1": "synchronization", "2": "memory-safety", "3": "resources-and-launch", "4": "harness-integrity",
    "5": "performance", "9": "tool",
}


@dataclass(frozen=True)
class Rule:
    code: str  # "CL301": never reused
    name: str  # kebab-case, describes the bad pattern
    severity: Severity
    summary: str  # one line: what it finds
    # "unit": runs on each parsed CUDA unit; "document": once per input file; "engine": the engine itself
    # reports these findings (internal errors, unused suppressions) and `check` is None
    scope: str
    check: Callable[..., Iterable] | None
    # opt-in rules (the performance advisories) run only when a selector names them more narrowly than
    # ALL or CL: advice is not a defect, and a default run must keep its findings and its speed
    opt_in: bool = False

    @property
    def category(self) -> str:
        return CATEGORIES[self.code[2]]


_registered: dict[str, Rule] = {}


def rule(code: str, name: str, severity: str, summary: str, scope: str = "unit", opt_in: bool = False):
    """Decorator registering a check function as a rule."""
    assert scope in ("unit", "document"), scope
    assert re.fullmatch(r"CL\d{3}", code), code
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name), name

    def register(check: Callable) -> Callable:
        if code in _registered:
            raise ValueError(f"rule code {code} registered twice")
        _registered[code] = Rule(code, name, Severity(severity), summary, scope, check, opt_in)
        return check

    return register


def engine_rule(code: str, name: str, severity: str, summary: str) -> None:
    """Register a rule whose findings the engine itself produces."""
    _registered[code] = Rule(code, name, Severity(severity), summary, "engine", None)


@cache
def all_rules() -> tuple[Rule, ...]:
    import cudalint.checks as package

    for module in pkgutil.iter_modules(package.__path__):
        if re.fullmatch(r"cl\d{3}_\w+", module.name):
            importlib.import_module(f"cudalint.checks.{module.name}")
    return tuple(sorted(_registered.values(), key=lambda r: r.code))


def find_rule(code_or_name: str) -> Rule | None:
    key = code_or_name.strip()
    for candidate in all_rules():
        if key.upper() == candidate.code or key.lower() == candidate.name:
            return candidate
    return None


def matches(selector: str, rule_: Rule) -> bool:
    """A selector is a code ("CL301"), a code prefix ("CL3", "CL"), a name, or "ALL"."""
    selector = selector.strip()
    if selector.upper() == "ALL":
        return True
    if selector.lower() == rule_.name:
        return True
    return bool(re.fullmatch(r"CL\d{0,3}", selector.upper())) and rule_.code.startswith(selector.upper())


def selects(selector: str, rule_: Rule) -> bool:
    """Whether `selector` in a selection turns `rule_` on: as `matches`, except that an opt-in rule needs a
    selector narrower than ALL and CL (its code, a prefix such as CL5, or its name)."""
    if rule_.opt_in and selector.strip().upper() in ("ALL", "CL"):
        return False
    return matches(selector, rule_)


def is_valid_selector(selector: str) -> bool:
    return any(matches(selector, r) for r in all_rules())
