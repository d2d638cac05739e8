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

    def conversion_errors(self) -> list[dict]:
        """Calls of a bound function that pybind11 would refuse: the TypeError the extension model raised."""
        found = []
        for call in self.calls:
            error = call.get("error") or {}
            if error.get("type") == "TypeError" and "incompatible function arguments" in error.get("message", ""):
                found.append(dict(error, call=call["index"]))
        return found

    @property
    def parameters(self) -> dict | None:
        """The comparison of both models' parameters and buffers; None when construction did not finish."""
        return self.data.get("parameters")

    def events(self, kind: str | None = None) -> list[dict]:
        return [e for e in self.data.get("events") or [] if kind is None or e["kind"] == kind]


__all__ = ["DryRunFacts"]
