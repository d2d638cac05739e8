"""What a dry run observed, as the rules read it. The worker's JSON is kept whole in `data` (the schema is
in docs/dry-run.md); the properties answer the questions rules ask, each only from calls that
completed, so that a rule never reads an observation the run did not make."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class DryRunFacts:
    completed: bool  # the run constructed both models and called forward every time without an environment failure
    reason: str | None = None  # why it did not complete, or why it was skipped
    skipped: bool = False  # never ran: dry runs off, torch missing, nothing to run
    data: dict = field(default_factory=dict)  # the worker's facts (docs/dry-run.md)
    seconds: float = 0.0
    cached: bool = False

    @classmethod
    def skip(cls, reason: str) -> DryRunFacts:
        return cls(False, reason, skipped=True)

    def to_dict(self) -> dict:
        return {"completed": self.completed, "reason": self.reason, "skipped": self.skipped, "data": self.data,
                "seconds": self.seconds}

    @classmethod
    def from_dict(cls, data: dict) -> DryRunFacts:
        return cls(bool(data["completed"]), data.get("reason"), bool(data.get("skipped")), dict(data.get("data") or {}),
                   float(data.get("seconds") or 0.0))

    # ------------------------------------------------------------------------------- questions of rules

    @property
    def calls(self) -> list[dict]:
        return list(self.data.get("calls") or [])

    @property
    def completed_calls(self) -> list[dict]:
        return [c for c in self.calls if c.get("completed")] if self.completed else []

    def custom_calls(self) -> list[dict]:
        """The custom (extension) functions forward called, each with the line and in how many of the
        completed calls; empty when the run did not complete."""
        merged: dict[tuple, dict] = {}
        for call in self.completed_calls:
            for entry in call.get("custom") or []:
                key = (entry["function"], entry.get("line"))
                found = merged.setdefault(key, dict(entry, calls=0))
                found["calls"] += 1
        return list(merged.values())

    def kernel_ran(self) -> bool:
        """Proof that forward runs compiled code: every call completed and each called a custom function."""
        calls = self.completed_calls
        return bool(calls) and len(calls) == len(self.calls) and all(c.get("custom") for c in calls)

    def output_from_custom(self) -> bool:
        """Proof that forward's output holds custom results (a custom function's result, or a tensor a
        modelled launcher wrote) in every call."""
        calls = self.completed_calls
        return bool(calls) and len(calls) == len(self.calls) and all(c.get("output_from_custom") for c in calls)

    def observed_output_shape(self) -> tuple[list[int], list[int], dict] | None:
        """(the solution's output shape, the reference's, the call) of the first completed call whose shape
        every extension result of the call was modelled for; None when no call gives a trusted shape."""
        for call in self.completed_calls:
            mine, theirs = call.get("output") or {}, call.get("reference_output") or {}
            if call.get("unmodelled_results") or mine.get("kind") != "tensor" or theirs.get("kind") != "tensor":
                continue
            return mine["shape"], theirs["shape"], call
        return None

    def accepted_call_lines(self, function: str) -> set[int]:
        """The lines where forward called `function` and the extension model accepted the arguments."""
        return {entry["line"] for call in self.completed_calls for entry in call.get("custom") or []
                if entry["function"] == function and entry.get("modelled") and entry["count"] > entry.get("rejected", 0)}

    def compiled_calls_within(self, start: int, end: int) -> list[dict] | None:
        """The custom entries of completed calls made while a line in [start, end] of the solution was on
        the stack (the statement itself, or what it called); None when not every call completed, so that
        no entry is no proof that the statement never reaches compiled code."""
        calls = self.completed_calls
        if not calls or len(calls) != len(self.calls):
            return None
        return [entry for call in calls for entry in call.get("custom") or []
                if any(start <= line <= end for line in entry.get("stack") or [entry.get("line") or 0])]

    def replay(self) -> dict | None:
        """A call that returned an earlier call's output object without running any compiled function, in a
        run where compiled functions ran in other calls: `{"call", "earlier", "inputs", "line", "ran",
        "total"}` (`line`: where the earlier call made the tensor). None when no call did."""
        calls = self.completed_calls
        ran = sum(1 for c in calls if c.get("custom"))
        for call in calls:
            earlier = call.get("output_is_earlier_output")
            if earlier and not call.get("custom") and ran:
                made = self.calls[earlier - 1].get("output_made") or {}
                return {"call": call["index"], "earlier": earlier, "inputs": call.get("inputs"),
                        "line": made.get("line"), "ran": ran, "total": len(self.calls)}
        return None

    def conversion_errors(self) -> list[dict]:
        """Calls of a bound function that the extension model refused as pybind11 would (the TypeError it
        raised, with the solution's line and the stage), in forward's calls or while importing or building."""
        errors = [dict(call["error"], stage=f"call {call['index']}") for call in self.calls if call.get("error")]
        if self.data.get("error"):
            errors.append(self.data["error"])
        return [e for e in errors if e.get("type") == "TypeError"
                and "incompatible function arguments" in (e.get("message") or "")]

    def harness_failure(self) -> dict | None:
        """How running the solution as the harness does fails, when that is proven: `{"stage", "type",
        "message", "line", "calls"}`. Proof is an exit the solution called; a failure of the solution's own
        code while it is imported or built, before any compiled function ran; or the same failure, at the same
        line, in every forward call, where no compiled function's result shape was guessed and, on real
        tensors, none ran (their values are zeros here). A timeout, the memory limit, a refused operation,
        a failure of the reference or of the CPU stand-ins is never proof."""
        error = self.data.get("error") or {}
        if error.get("type") == "exit" and error.get("cause") == "solution":
            return dict(error, calls=0)
        if error and error.get("cause") == "solution" and error.get("stage") in ("import", "construct") \
                and error.get("line") is not None and not self.data.get("extension_calls") \
                and error not in self.conversion_errors():
            return dict(error, calls=0)
        calls = self.calls
        if not self.completed or not calls or any(c.get("completed") for c in calls):
            return None
        errors = [c.get("error") or {} for c in calls]
        first = errors[0]
        if first.get("cause") != "solution" or first.get("line") is None or "incompatible function arguments" in \
                (first.get("message") or ""):
            return None
        if any((e.get("type"), e.get("line")) != (first.get("type"), first.get("line")) for e in errors):
            return None
        if any(c.get("unmodelled_results") or (c.get("mode") == "real" and c.get("custom")) for c in calls):
            return None
        return dict(first, stage="forward", calls=len(calls))

    @property
    def parameters(self) -> dict | None:
        """The comparison of both models' parameters and buffers; None when construction did not finish."""
        return self.data.get("parameters")

    def weights_observed(self) -> bool:
        """Whether both models were built and their draws recorded, none on a cuda device (whose generator
        the CPU cannot replay)."""
        parameters = self.parameters
        return bool(parameters) and "draws" in parameters and not parameters.get("cuda_random")

    def weights_difference(self) -> tuple[dict, dict, int, dict | None] | None:
        """(the reference's draw, the solution's, its position, the reference tensor it leaves unmatched) when
        the two constructors draw from the random stream differently before the reference's last draw, and
        some randomly initialised tensor of the reference has its values nowhere in ModelNew (None when the
        models were too large to build with values: the draws decide alone). None otherwise:
        trailing extra or missing draws, weights folded or rearranged after the same draws, and a constructor
        whose every random tensor ModelNew holds are no proof."""
        parameters = self.parameters or {}
        draws = parameters.get("draws") or {}
        theirs, mine = draws.get("reference") or [], draws.get("solution") or []
        index = next((i for i, (a, b) in enumerate(zip(theirs, mine)) if _draw(a) != _draw(b)), None)
        if index is None:
            return None
        if not parameters.get("values_compared"):
            return theirs[index], mine[index], index, None  # models too large to build for real: the draws decide
        unmatched = next((e for e in parameters.get("reference") or [] if e.get("random") and not e.get("matched_by")),
                         None)
        if unmatched is None:
            return None
        return theirs[index], mine[index], index, unmatched

    def stand_ins_called(self) -> bool:
        """Whether forward called a stand-in of a kernel backend the dry run does not model (it might have
        launched work there): no claim that nothing was launched can then be made."""
        return any(e["stage"].startswith("call") for e in self.events("stand-in"))

    def environment_dependence(self) -> dict | None:
        """Proof that the kernel path depends on the environment: forward launched compiled code in every
        call, and in the probe (the solution imported and built again where every variable it reads is set)
        it completed and launched none, with no stand-in of an unmodelled backend called. `{"read": the first
        environment event, "calls": how many calls ran the kernel}`; None otherwise."""
        probe = self.data.get("probe") or {}
        reads = [e for e in self.events("environment") if e.get("line") is not None and e["stage"] != "probe"]
        if not reads or not probe.get("completed") or probe.get("custom") or not self.kernel_ran():
            return None
        if self.stand_ins_called():
            return None
        return {"read": reads[0], "calls": len(self.calls)}

    def precision_lowered(self) -> list[dict]:
        """The precision flags the solution's code lowered (TF32 or reduced-precision reductions turned on,
        `set_float32_matmul_precision` below "highest") that change the reference's own computation: its
        forward multiplies matrices (matmul flags) or convolves (cuDNN flags), on an fp32 output. Empty when
        the run did not complete, or when the flag was already at that value (cuDNN's TF32 is on by default)."""
        calls = self.completed_calls
        output = (calls[0].get("reference_output") or {}) if calls else {}
        if output.get("kind") != "tensor" or output.get("dtype") != "float32":
            return []
        ops = set(self.data.get("reference_ops") or [])
        found = []
        for event in self.events("flag"):
            flag, before, after = event.get("flag") or "", event.get("before"), event.get("after")
            lowered = (before is False and after is True and flag.endswith(("allow_tf32", "_reduced_precision_reduction"))) \
                or (flag == "torch.get_float32_matmul_precision()" and before == "highest" and after in ("high", "medium"))
            affected = _CONVOLUTIONS if flag.startswith("torch.backends.cudnn.") else _MATMULS
            if lowered and ops & affected:
                found.append(event)
        return found

    def events(self, kind: str | None = None) -> list[dict]:
        return [e for e in self.data.get("events") or [] if kind is None or e["kind"] == kind]


# the torch functions whose fp32 work the precision flags change (cuBLAS matmuls; cuDNN convolutions, RNNs)
_MATMULS = frozenset({"matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "linear", "einsum", "__matmul__",
                      "__rmatmul__", "tensordot", "bilinear", "chain_matmul", "multi_dot", "lstm", "gru", "rnn_tanh",
                      "rnn_relu", "multi_head_attention_forward", "scaled_dot_product_attention", "inner", "outer"})
_CONVOLUTIONS = frozenset({"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                           "convolution", "conv_tbc", "lstm", "gru", "rnn_tanh", "rnn_relu"})


def _draw(draw: dict) -> tuple:
    """A draw as far as the weights it makes: `randn(C)` and `randn(C, 1, 1)` lay the same numbers out alike,
    `[in, out]` and `[out, in]` do not."""
    squeezed = tuple(size for size in draw.get("shape") or () if size != 1)
    return draw.get("op"), squeezed, draw.get("dtype"), tuple(draw.get("numbers") or ())


__all__ = ["DryRunFacts"]
