"""CL106 global-rmw-race: many threads read-modify-write one global element (`out[0] += v`,
`out[blockIdx.x] += v` in every thread, `out[i / C] += x[i]`, `curand_uniform(state)` on one state)
without an atomic, so updates are lost.

The analysis is `cudalint.analysis.global_rmw`; this module words its findings. Plain stores of
different values to one address (the last one wins) are CL105's."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.global_rmw import rmw_races
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.model import ir


@rule("CL106", "global-rmw-race", "error",
      "many threads read-modify-write one global element (`out[0] += v`, `out[i / C] += v`) without an atomic, "
      "so updates are lost")
def check(ctx: RuleContext) -> Iterator[Finding]:
    for race in rmw_races(ctx.program):
        target = short_text(race.target.text, 50)
        if race.quotient is not None:
            quotient = short_text(race.quotient.text, 40)
            who = f"neighbouring threads (all those with the same `{quotient}`)"
        elif race.within_block and race.across_blocks:
            who = "threads of every block"
        else:
            who = "threads of one block" if race.within_block else "threads of different blocks"
        if isinstance(race.store, ir.Call):
            yield ctx.finding(race.store.span, shared_generator_message(race.store, who))
            continue
        yield ctx.finding(race.store.span, (
            f"`{short_text(race.store.text)}`: {who} read-modify-write the same global element `{target}` "
            f"without an atomic: their loads and stores interleave and updates are lost; use atomicAdd "
            f"(atomicMax, ...), or reduce within the block first and let one thread per block update it"))


def shared_generator_message(call: ir.Call, who: str) -> str:
    """The message for a cuRAND call that many threads make on one generator state."""
    if any("Mtgp32" in arg.type for arg in call.args):
        remedy = ("an MTGP32 state serves at most 256 threads of one block: give each block its own state "
                  "(`&states[blockIdx.x]`) and launch at most 256 threads per block")
    else:
        remedy = "give each thread its own state (`curand_init(seed, i, 0, &states[i])`, then `&states[i]`)"
    return (f"`{short_text(call.text)}`: {who} advance the same cuRAND state: each call reads and writes the "
            f"state, so the calls interleave, threads draw the same numbers and the state is corrupted; {remedy}")
