"""CL105 global-write-race: many threads store to one global address with a plain store or `+=`, or store
different values to one shared-memory element.

Read-modify-write races that are certain (several threads of a block, or blocks of a grid the unit
launches with more than one block) are CL106's errors and not repeated here; CL101 reports the other
shared-memory races (those a barrier fixes)."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.accesses import WRITE
from cudalint.analysis.barriers import sync_analysis
from cudalint.analysis.intervals import value_dependent_expr
from cudalint.analysis.global_rmw import rmw_races
from cudalint.checks.cl106_global_rmw_race import shared_generator_message
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.model import ir


@rule("CL105", "global-write-race", "warning",
      "many threads store different values to one global address (or shared element) with plain stores (the "
      "last one wins), or blocks of a kernel launched elsewhere update it with +=")
def check(ctx: RuleContext) -> Iterator[Finding]:
    analysis = sync_analysis(ctx.program)
    reported: set[tuple[int, int]] = {race.store.span[:2] for race in rmw_races(ctx.program)}  # CL106's
    for function in analysis.roots:
        for race in analysis.global_store_races(function):
            span = race.store.span
            if (span.line, span.column) in reported:
                continue
            reported.add((span.line, span.column))
            who = "threads of one block" if race.within_block else "threads of different blocks"
            if race.within_block and race.across_blocks:
                who = "threads of every block"
            target = short_text(race.target.text, 50)
            if isinstance(race.store, ir.Call):
                message = shared_generator_message(race.store, who)
            elif race.read_modify_write:
                message = (f"`{short_text(race.store.text)}`: {who} read-modify-write the same global address "
                           f"`{target}` without an atomic, so updates are lost; use atomicAdd (atomicMax, ...) or "
                           f"reduce within the block first and let one thread per block add atomically")
            else:
                message = (f"`{short_text(race.store.text)}`: {who} store different values to the same global "
                           f"address `{target}` and the last one wins; reduce the values (shared memory, warp "
                           f"shuffles, atomics) or give each writer its own slot")
            yield ctx.finding(span, message)
        # a shared store that several threads of a block run with different values: a barrier cannot help.
        # A value copied straight from memory is left out: two writers may copy the same source element
        # (a tile loaded by more rows of threads than it has)
        for race in analysis.races(function):
            access = race.second
            if race.first is not access or access.mode != WRITE or access.value is None \
                    or not value_dependent_expr(analysis, access.value, access.node.scope) \
                    or any(isinstance(n, ir.Index) or isinstance(n, ir.Unary) and n.op == "*"
                           for n in access.value.walk()):
                continue
            statement = access.node.expr if access.node.expr is not None else access.expr
            yield ctx.finding(access.expr.span, (
                f"`{short_text(statement.text)}`: threads of one block store different values to the same "
                f"shared element `{short_text(access.expr.text, 50)}` and the last one wins; reduce the values "
                f"(warp shuffles, a tree in shared memory, atomics) or give each thread its own slot"))
