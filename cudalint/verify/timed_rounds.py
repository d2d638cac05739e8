"""The verify worker's timed rounds: its side of the timing protocol (`clock`), the same code for the
candidate (in the `run` worker) and the reference (in the `judge`): `TimedRounds`; and the judge's check of
the candidate's rounds against the reference's (`check_rounds`).

Part of the worker (`worker.py`, run as a script): standard library only at the top, torch passed in.
"""

from __future__ import annotations

import json
import os

if __package__:
    from . import channel, clock, comparison, forwards
else:  # run as a script (worker.py): the modules beside it
    import channel
    import clock
    import comparison
    import forwards


class TimedRounds:
    """The worker's side of the timing protocol (`clock`): the same code times the candidate in the run worker
    and the reference in the judge. For each round: the inputs of its seed, `ready`, the parent's nonce,
    then `iterations` forwards, each on the inputs scaled element by element by factors drawn from the nonce, ended by a device-wide
    synchronize (`synchronize`: torch's, captured before the solution was imported), each reduced to a
    projection of its outputs on random signs drawn from the nonce and to the sum of their squares (the
    judge's bound: `clock.projection_bound`); `done` with those; the last outputs are kept (`rounds`).
    CUDA events around each forward are reported too: the judge's are honest, the run worker's are the
    candidate's word."""

    def __init__(self, request: dict, torch, device, reference, synchronize, tolerances: dict,
                 keep_zeros: bool) -> None:
        self.torch, self.device, self.reference = torch, device, reference
        self.synchronize, self.tolerances, self.keep_zeros = synchronize, tolerances, keep_zeros
        self.control = os.fdopen(request["control_fd"], "rb")
        self.timing = int(request["timing_fd"])
        self.seeds = [int(s) for s in request["timing_seeds"]]
        self.warmup = int(request.get("warmup", 3))
        self.dtype = forwards.precision(request, torch)
        self.number = 0  # the rounds sent so far (the judge times the reference, then its torch.compile)

    def run(self, forward, progress: channel.Progress, label: str) -> list[dict]:
        torch = self.torch
        rounds = []
        for seed in self.seeds:
            self.number += 1
            progress.stage(f"timing {label}: round {len(rounds) + 1}/{len(self.seeds)}")
            base = forwards.fresh_inputs(self.reference, seed, self.device, torch, None, keep_zeros=self.keep_zeros,
                                 dtype=self.dtype)
            working = [v.clone() if _perturbed(v, torch) else v for v in base]
            for _ in range(self.warmup if not rounds else 0):  # the projection's kernels warm up too
                warm = forwards.flatten(forward(*working), torch)
                if warm:
                    self._project(warm, self._signs(0, warm))
            self.synchronize()
            self._send({"kind": "ready", "round": self.number})
            nonce, iterations = self._go()
            projections = torch.zeros((iterations, 2), dtype=torch.float64, device=self.device)
            signs, tensors, events = None, None, []
            # a factor per element and run, drawn on the device from the nonce (the same in the judge): no
            # output of an earlier run can be rescaled into this one's, as one factor per run allowed
            scaling = torch.Generator(device=self.device).manual_seed(clock.scaling_seed(nonce))
            factors = [torch.empty_like(v) if _perturbed(v, torch) else None for v in base]
            for index in range(iterations):
                for now, before, factor in zip(working, base, factors):
                    if factor is not None:
                        factor.uniform_(*clock.SCALE_RANGE, generator=scaling)
                        torch.mul(before, factor, out=now)
                marks = self._events()
                output = forward(*working)
                if marks:
                    marks[1].record()
                    events.append(marks)
                self.synchronize()
                tensors = forwards.flatten(output, torch)
                if not tensors:
                    raise RuntimeError("the forward returned no tensor")
                if signs is None:
                    signs = self._signs(nonce, tensors)
                projections[index] = self._project(tensors, signs)
            values = projections.tolist()
            done = {"kind": "done", "round": self.number, "projections": [v[0] for v in values],
                    "squares": [v[1] for v in values]}
            if events:
                done["events_ms"] = [start.elapsed_time(end) for start, end in events]
            self._send(done)
            rounds.append(dict(done, seed=seed, nonce=nonce, outputs=[t.detach().cpu() for t in tensors]))
        return rounds

    def _send(self, message: dict) -> None:
        try:
            channel.write_all(self.timing, clock.encode(message))
        except OSError as error:  # the parent rejected the timing (junk on the channel) and closed it
            raise ProtocolBroken(f"the timing channel is closed ({error})") from None

    def _go(self) -> tuple[int, int]:
        """The parent's nonce and iterations for this round."""
        try:
            go = json.loads(self.control.readline() or b"{}")
            if go.get("round") == self.number:
                return int(go["nonce"]), int(go["iterations"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
        raise ProtocolBroken(f"no start for timed round {self.number}")

    def _events(self):
        if self.device.type != "cuda":
            return None
        marks = (self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True))
        marks[0].record()
        return marks

    def _signs(self, nonce: int, tensors: list) -> list:
        torch = self.torch
        generator = torch.Generator(device=self.device).manual_seed(nonce)
        return [torch.randint(0, 2, (t.numel(),), generator=generator, device=self.device,
                              dtype=torch.float64).mul_(2).sub_(1) for t in tensors]

    def _project(self, tensors: list, signs: list):
        """(the projection on the signs, the bound's sum of squared tolerances) of one iteration's outputs."""
        torch = self.torch
        total = torch.zeros(2, dtype=torch.float64, device=self.device)
        for tensor, sign in zip(tensors, signs):
            flat = tensor.detach().reshape(-1).to(torch.float64)
            if flat.numel() != sign.numel():
                raise RuntimeError("the outputs changed shape between iterations")
            atol, rtol = comparison.tolerance_for(tensor.dtype, self.tolerances) or (0.0, 0.0)
            total[0] += torch.dot(flat, sign)
            # sum_j (atol + rtol |o_j|)^2 <= 2 n atol^2 + 2 rtol^2 sum_j o_j^2
            total[1] += 2 * flat.numel() * atol * atol + 2 * rtol * rtol * torch.dot(flat, flat)
        return total


class ProtocolBroken(Exception):
    """The timing protocol stopped (the parent rejected the timing): the run goes on untimed."""


def _perturbed(value, torch) -> bool:
    """An input the timing rounds scale: a floating-point tensor."""
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def check_rounds(candidate: list[dict], reference: list[dict], tolerances: dict, torch) -> dict:
    """The judge's check of the candidate's timed rounds against the reference's (same seeds and nonces):
    every iteration's projection within `clock.projection_bound` of the reference's, the last outputs
    as the correctness trials compare them. `candidate`: {"projections", "outputs"} per round."""
    if len(candidate) != len(reference):
        return {"ok": False, "message": f"{len(candidate)} timed rounds checked, {len(reference)} expected"}
    for number, (got, expected) in enumerate(zip(candidate, reference), 1):
        bounds = [clock.projection_bound(q, p) for q, p in zip(expected["squares"], expected["projections"])]
        why = clock.projections_agree(got.get("projections"), expected["projections"], bounds)
        if why is None:
            result = comparison.compare(got.get("outputs"), expected["outputs"], tolerances, False, torch)
            why = None if result["ok"] else "; ".join(f["message"] for f in result["failures"])[:400]
        if why is not None:
            return {"ok": False, "message": f"timed round {number}: {why}"}
    return {"ok": True, "message": f"{len(reference)} timed rounds: every iteration's outputs checked"}
