"""The timing protocol of `cudalint verify`: a speedup the solution cannot forge.

The solution's code runs in the run worker, so nothing measured there is trusted: it can patch
`torch.cuda.Event.elapsed_time`, `time.perf_counter` or `torch.cuda.synchronize`, slow the reference down
(the reference ran in its process) and write anything to any pipe it holds, from any thread. Here the
clock is the parent's, and it is stopped only by work the judge checks afterwards.

Both models are timed by the same protocol and the same code (`timed_rounds.TimedRounds`): the candidate in
the run worker, the reference (and its `torch.compile`) in the judge, which never loads the solution.
A `Timekeeper` (this process, a thread) talks to the worker through two pipes: `control` (parent to
worker, one JSON line per message) and `timing` (worker to parent, framed: `encode`), the request's
`control_fd` and `timing_fd`. For each round k (its inputs' seed was in the request):

1. the worker generates the inputs of the round's seed (untimed) and sends `{"kind": "ready", "round": k}`;
2. the parent sends `{"round": k, "nonce": N, "iterations": n}`, N drawn here at that moment
   (`secrets`), and starts its clock (`time.perf_counter`, in this process);
3. the worker runs n iterations, each on the inputs scaled element by element by factors drawn from N
   (`scaling_seed`),
   followed by a device-wide synchronize (the original function, captured before the solution was
   imported), and reduces each iteration's outputs to a projection on a random +1/-1 vector drawn from N;
   it sends `{"kind": "done", "round": k, "projections": [n numbers]}`;
4. the parent stops its clock when that frame has arrived whole: the round's time per iteration is the
   clock's time divided by n. The worker then sends the last iteration's outputs (untimed, through the
   outputs channel).

The judge then compares, for every round, the candidate's n projections with the reference's, on the
same inputs and factors, within a bound a correct candidate's errors never exceed (`projection_bound`),
and the last outputs in full (the correctness comparison). A frame that comes out of turn, that does
not parse, or any byte after the last round is junk: the timing is rejected, never used. What the
solution can do from its process: send `done` early, which needs every projection, so every iteration's
outputs on inputs it could not know before the nonce (n forwards of its own); send `ready` early, which
starts the clock early (its loss); read the nonce itself, which gains nothing. A solution that caches
outputs by input pointer returns stale outputs and fails the projections.

This module imports only the standard library: worker.py runs as a script and imports it beside it.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import threading
import time
from dataclasses import dataclass, field

MAGIC = b"CLK1"
MAX_FRAME = 1 << 20  # a frame holds a few thousand numbers at most
ROUNDS = 5  # rounds of timing, each with fresh factors; the timed runs are shared among them
# factors, not offsets: scaling keeps the zeros, signs and order of generated inputs (a triangular or sparse
# matrix), which a correct solution may rely on (an offset made a correct upper-triangular matmul "wrong" on
# the H200); a factor per element, not per run, so that no earlier run's outputs can be rescaled into this
# run's (a linear model's could be). Symmetry and rows summing to one are not kept.
SCALE_RANGE = (0.5, 1.0)
BOUND_SIGMAS = 8.0  # a correct candidate's projection exceeds the bound with probability below 2e-14


class FrameError(Exception):
    """Bytes on the timing channel that are not the frame the protocol expects there."""


def encode(message: dict) -> bytes:
    """One frame: MAGIC, the body's length (4 bytes, big-endian), the body (JSON)."""
    body = json.dumps(message, allow_nan=True).encode("utf-8")
    return MAGIC + len(body).to_bytes(4, "big") + body


def read_frame(read) -> dict | None:
    """The next frame from `read(n)` (a raw stream's read), None at a clean end of the stream; FrameError for
    anything else: a bad magic, a length past MAX_FRAME, a cut frame, a body that is no JSON object."""
    header = _exactly(read, 8)
    if not header:
        return None
    if len(header) < 8 or header[:4] != MAGIC:
        raise FrameError("not a timing frame")
    size = int.from_bytes(header[4:], "big")
    if size > MAX_FRAME:
        raise FrameError(f"a frame of {size} bytes (at most {MAX_FRAME})")
    body = _exactly(read, size)
    if len(body) < size:
        raise FrameError("a frame cut short")
    try:
        message = json.loads(body)
    except ValueError as error:
        raise FrameError(f"a frame that is no JSON ({error})") from None
    if not isinstance(message, dict):
        raise FrameError("a frame that is no JSON object")
    return message


def _exactly(read, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = read(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def summarize(times: list[float]) -> dict:
    """Median, quartiles, mean and spread of a list of milliseconds."""
    ordered = sorted(times)
    count = len(ordered)

    def quantile(q: float) -> float:
        if count == 1:
            return ordered[0]
        position = q * (count - 1)
        low = int(math.floor(position))
        high = min(low + 1, count - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (position - low)

    mean = sum(ordered) / count
    variance = sum((t - mean) ** 2 for t in ordered) / (count - 1) if count > 1 else 0.0
    return {"median_ms": quantile(0.5), "mean_ms": mean, "std_ms": math.sqrt(variance), "min_ms": ordered[0],
            "max_ms": ordered[-1], "p25_ms": quantile(0.25), "p75_ms": quantile(0.75), "trials": count}


def schedule(iterations_total: int, rounds: int = ROUNDS) -> tuple[int, int]:
    """(rounds, iterations per round) for `iterations_total` timed runs."""
    rounds = max(1, min(rounds, iterations_total))
    return rounds, max(1, math.ceil(iterations_total / rounds))


def round_seeds(count: int) -> list[int]:
    """The inputs' seeds of the rounds (known to the worker from its request: the freshness is the nonce's)."""
    return [secrets.randbits(31) for _ in range(count)]


def scaling_seed(nonce: int) -> int:
    """The seed of the device generator that draws, from the nonce, a factor in `SCALE_RANGE` for every element
    of every floating-point input at every run of a round: the same in the run worker and the judge, unknown
    to either before the parent sends the nonce. (The signs of the projections are drawn from the nonce
    itself.)"""
    return (2 * nonce + 1) % (1 << 63)


def projection_bound(tolerance_square_sum: float, reference_projection: float) -> float:
    """How far a correct candidate's projection may be from the reference's. With every output element within
    its tolerance t_j (|e_j| <= atol + rtol*|ref_j|), the projection's error sum(r_j e_j) over random signs
    r_j (drawn after the candidate computed, independent of its errors) is a Rademacher sum: above
    BOUND_SIGMAS * sqrt(sum t_j^2) with probability at most 2 exp(-BOUND_SIGMAS^2 / 2). A relative margin
    covers the float32 dot product's own rounding."""
    return BOUND_SIGMAS * math.sqrt(max(tolerance_square_sum, 0.0)) + 1e-5 * abs(reference_projection) + 1e-9


def projections_agree(candidate: list, reference: list, bounds: list) -> str | None:
    """None when every candidate projection is within its bound of the reference's (both non-finite where the
    reference's is), else the first disagreement in words."""
    if not isinstance(candidate, list) or len(candidate) != len(reference):
        return f"{len(candidate) if isinstance(candidate, list) else 'no'} projections, {len(reference)} expected"
    for index, (got, expected, bound) in enumerate(zip(candidate, reference, bounds)):
        if not isinstance(got, (int, float)) or isinstance(got, bool):
            return f"iteration {index + 1}: a projection that is no number"
        if not math.isfinite(expected):
            if math.isfinite(got):
                return f"iteration {index + 1}: the reference's projection is not finite, the candidate's is"
            continue
        if not math.isfinite(got) or abs(got - expected) > bound:
            return f"iteration {index + 1}: projection {got:.6g}, the reference's {expected:.6g} (bound {bound:.3g})"
    return None


@dataclass
class Round:
    seed: int
    nonce: int | None = None  # drawn when the round starts (or given: the judge repeats the candidate's)
    seconds: float | None = None  # the parent's clock, from the nonce sent to the projections received
    projections: list | None = None
    events_ms: list | None = None  # what the worker measured with CUDA events (its own word)


@dataclass
class Timekeeper:
    """The parent's side of the protocol for one worker: give the worker `control_fd` (to read) and
    `timing_fd` (to write) with `pass_fds`, call `started()` once it runs and `finish()` once it ended.
    `rejected` says why nothing it measured can be used; `ended`, before which round the worker stopped
    (the judge's torch.compile rounds may be missing)."""

    seeds: list[int]
    iterations: int
    nonces: list[int] | None = None
    rounds: list[Round] = field(init=False)
    rejected: str | None = field(init=False, default=None)  # junk or a broken channel: nothing is used
    ended: str | None = field(init=False, default=None)  # the worker stopped before its last round

    def __post_init__(self) -> None:
        nonces = self.nonces or [None] * len(self.seeds)
        self.rounds = [Round(seed, nonce) for seed, nonce in zip(self.seeds, nonces)]
        self.control_fd, self._control_write = os.pipe()
        self._timing_read, self.timing_fd = os.pipe()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def use_nonces(self, nonces: list[int]) -> None:
        """The rounds' nonces, given before the worker's first `ready` (a judge started before its run ended
        repeats the run's nonces, known only then)."""
        for current, nonce in zip(self.rounds, nonces):
            current.nonce = nonce

    def request(self) -> dict:
        """What the worker's request carries: the pipes and the inputs' seeds (the iterations come with the nonce)."""
        return {"control_fd": self.control_fd, "timing_fd": self.timing_fd, "timing_seeds": list(self.seeds)}

    def pass_fds(self) -> tuple[int, int]:
        return self.control_fd, self.timing_fd

    def started(self) -> None:
        """The worker holds its ends now (or will never): close ours, so that its exit ends the stream."""
        for name in ("control_fd", "timing_fd"):
            fd = getattr(self, name)
            if fd >= 0:
                os.close(fd)
                setattr(self, name, -1)

    def finish(self, timeout: float = 10.0) -> None:
        self.started()
        self._thread.join(timeout)
        if self._thread.is_alive() and self.rejected is None:
            self.rejected = "the timing stream did not end"

    def complete(self, count: int | None = None) -> bool:
        """The first `count` rounds (default: all) have their time, and nothing was junk."""
        return self.rejected is None and all(r.seconds is not None for r in self.rounds[:count])

    def why_not(self, count: int | None = None) -> str:
        """Why the first `count` rounds cannot be used, in words ("" when they can)."""
        if self.complete(count):
            return ""
        return self.rejected or self.ended or "the timing rounds did not finish"

    def ms_per_iteration(self, start: int = 0, stop: int | None = None) -> list[float]:
        return [r.seconds * 1000.0 / self.iterations for r in self.rounds[start:stop]]

    def _serve(self) -> None:
        try:
            with open(self._timing_read, "rb", buffering=0) as stream:
                with open(self._control_write, "wb", buffering=0) as control:
                    self._rounds(stream.read, control)
                # the control pipe is closed: a worker still waiting for a start sees its end
                frame = read_frame(stream.read)  # nothing may follow the last round
                if frame is not None:
                    raise FrameError(f"a frame after the last round ({str(frame.get('kind'))[:40]})")
        except FrameError as error:
            self.rejected = f"junk on the timing channel: {error}"
        except OSError as error:  # the worker died with the control pipe open
            self.rejected = self.rejected or f"the timing channel broke: {error}"

    def _rounds(self, read, control) -> None:
        for number, current in enumerate(self.rounds, 1):
            ready = read_frame(read)
            if ready is None:
                self.ended = f"the worker ended before timed round {number} of {len(self.rounds)}"
                return
            _expect(ready, "ready", number)
            if current.nonce is None:
                current.nonce = secrets.randbits(63)
            go = json.dumps({"round": number, "nonce": current.nonce, "iterations": self.iterations}) + "\n"
            started = time.perf_counter()
            control.write(go.encode("ascii"))
            done = read_frame(read)
            stopped = time.perf_counter()
            if done is None:
                self.ended = f"the worker ended during timed round {number}"
                return
            _expect(done, "done", number)
            current.seconds = stopped - started
            current.projections = done.get("projections")
            events = done.get("events_ms")
            current.events_ms = events if isinstance(events, list) else None


def timing_record(candidate: Timekeeper, judge: Timekeeper | None, check: dict | None, compiled: bool,
                  self_reported: dict | None = None, reference_events: dict | None = None) -> dict:
    """A run's `timing`: from the parent's clocks only, and only when the judge found every timed iteration
    of the candidate's right (`check`); else `status` "rejected" and why, with no speedup."""
    count = len(candidate.rounds)
    why = candidate.why_not() or (judge.why_not(count) if judge is not None else "the judge did not time "
                                  "the reference")
    if not why and not (check or {}).get("ok"):
        why = f"the candidate's timed outputs were not the reference's: {(check or {}).get('message') or 'unchecked'}"
    iterations = candidate.iterations
    claimed = self_reported.get("cuda_events") if isinstance(self_reported, dict) else None
    record = {"method": f"the parent's clock: {count} rounds of {iterations} runs on freshly scaled inputs, the candidate in "
                        f"its worker, the reference in the judge, every run's outputs checked",
              "rounds": count, "iterations": iterations, "status": "rejected" if why else "trusted",
              "message": why or (check or {}).get("message", ""), "speedup": None, "candidate": None,
              "reference": None, "cuda_events": {"reference": reference_events,
                                                 "candidate (self-reported)": claimed}}
    if why:
        return record
    for name, keeper, start in (("candidate", candidate, 0), ("reference", judge, 0)):
        record[name] = dict(summarize(keeper.ms_per_iteration(start, start + count)), trials=count * iterations)
    record["speedup"] = record["reference"]["median_ms"] / max(record["candidate"]["median_ms"], 1e-9)
    if compiled and judge.complete(2 * count) and len(judge.rounds) >= 2 * count:
        record["compiled"] = dict(summarize(judge.ms_per_iteration(count, 2 * count)), trials=count * iterations)
        record["speedup_compile"] = record["compiled"]["median_ms"] / max(record["candidate"]["median_ms"], 1e-9)
    return record


def _expect(frame: dict, kind: str, number: int) -> None:
    if frame.get("kind") != kind or frame.get("round") != number:
        raise FrameError(f"expected {kind} of round {number}, got {str(frame.get('kind'))[:40]} of round "
                         f"{str(frame.get('round'))[:20]}")


__all__ = ["FrameError", "MAGIC", "ROUNDS", "Round", "Timekeeper", "encode", "scaling_seed", "projection_bound",
           "projections_agree", "read_frame", "round_seeds", "schedule", "summarize", "timing_record"]
