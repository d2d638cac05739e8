"""The verify worker's correctness comparison: a candidate's outputs against the reference's, within the
tolerances of each dtype (`tolerance_for`, `compare`); an element that reads back with the poison's bit
pattern (`poisoning`) is reported as unwritten.

Part of the worker (`worker.py`, run as a script): standard library only at the top, torch passed in.
"""

from __future__ import annotations

if __package__:
    from . import poisoning
else:  # run as a script (worker.py): the modules beside it
    import poisoning


def tolerance_for(dtype, tolerances: dict) -> tuple[float, float] | None:
    """(atol, rtol) for an output dtype; None means exact comparison (integers, bool)."""
    name = str(dtype).replace("torch.", "")
    if name in tolerances:
        atol, rtol = tolerances[name]
        return float(atol), float(rtol)
    if name in ("float32", "float", "float64", "double", "float16", "half", "bfloat16", "complex64"):
        return tuple(tolerances.get("float32", (1e-4, 1e-4)))
    return None


def compare(outputs, references, tolerances: dict, poisoned: bool, torch) -> dict:
    """Compare a candidate's output tensors with the reference's (both on one device)."""
    report = {"ok": True, "max_abs_error": 0.0, "mean_abs_error": 0.0, "failures": []}
    if outputs is None:
        report.update(ok=False, failures=[{"kind": "output_structure", "message": "forward did not return a tensor "
                                           "or a tuple of tensors"}])
        return report
    if len(outputs) != len(references):
        report.update(ok=False, failures=[{"kind": "output_structure", "message": f"forward returned {len(outputs)} "
                                           f"tensors, the reference {len(references)}"}])
        return report
    total_error, total_count = 0.0, 0
    for index, (out, ref) in enumerate(zip(outputs, references)):
        where = f"output {index}" if len(references) > 1 else "output"
        if tuple(out.shape) != tuple(ref.shape):
            report["failures"].append({"kind": "shape_mismatch", "output": index, "message":
                                       f"{where} has shape {tuple(out.shape)}, the reference {tuple(ref.shape)}"})
            continue
        if out.dtype != ref.dtype:
            report["failures"].append({"kind": "dtype_mismatch", "output": index, "message":
                                       f"{where} has dtype {out.dtype}, the reference {ref.dtype}"})
            continue
        tolerance = tolerance_for(ref.dtype, tolerances)
        if tolerance is None:
            mismatched = int((out != ref).sum())
            if mismatched:
                report["failures"].append({"kind": "mismatch", "output": index, "mismatched": mismatched,
                                           "numel": out.numel(), "message":
                                           f"{where}: {mismatched} of {out.numel()} elements differ (exact compare)"})
            continue
        atol, rtol = tolerance
        report.update(atol=atol, rtol=rtol)
        out64, ref64 = out.double(), ref.double()
        ref_finite = torch.isfinite(ref64)
        out_finite = torch.isfinite(out64)
        bad_nonfinite = ref_finite & ~out_finite
        both = ref_finite & out_finite
        difference = (out64 - ref64).abs()
        difference = torch.where(both, difference, torch.zeros_like(difference))
        if out.numel():
            report["max_abs_error"] = max(report["max_abs_error"], float(difference.max()))
            total_error += float(difference.sum())
            total_count += int(both.sum())
        nonfinite = int(bad_nonfinite.sum())
        if nonfinite:
            unwritten = _poison_count(out, bad_nonfinite, torch) if poisoned else 0
            if unwritten:
                message = (f"{where}: {unwritten} of {out.numel()} elements were never written (they still hold the "
                           f"NaN poison the output memory was filled with)")
                kind = "unwritten_output"
            else:
                message = f"{where}: {nonfinite} of {out.numel()} elements are NaN or Inf where the reference is finite"
                kind = "nonfinite"
            first = int(bad_nonfinite.flatten().nonzero()[0])
            report["failures"].append({"kind": kind, "output": index, "count": nonfinite, "unwritten": unwritten,
                                       "numel": out.numel(), "first_index": _unravel(first, out.shape),
                                       "message": message})
        # NaN in both at the same place is agreement (equal_nan); elsewhere the usual allclose bound
        same_nan = torch.isnan(out64) & torch.isnan(ref64)
        same_inf = (out64 == ref64) & ~ref_finite
        within = (difference <= atol + rtol * ref64.abs()) | same_nan | same_inf | bad_nonfinite
        mismatched = int((~within).sum())
        if mismatched:
            flat = int((~within).flatten().nonzero()[0])
            worst = int(difference.flatten().argmax())
            report["failures"].append({
                "kind": "mismatch", "output": index, "mismatched": mismatched, "numel": out.numel(),
                "first_index": _unravel(flat, out.shape), "worst_index": _unravel(worst, out.shape),
                "worst_value": float(out64.flatten()[worst]), "worst_expected": float(ref64.flatten()[worst]),
                "message": f"{where}: {mismatched} of {out.numel()} elements differ beyond atol={atol:g}, "
                           f"rtol={rtol:g} (max abs error {float(difference.max()):.3g} at "
                           f"{_unravel(worst, out.shape)}: got {float(out64.flatten()[worst]):.6g}, "
                           f"expected {float(ref64.flatten()[worst]):.6g})"})
    report["mean_abs_error"] = total_error / total_count if total_count else 0.0
    report["ok"] = not report["failures"]
    return report


def _poison_count(out, mask, torch) -> int:
    """How many of the masked elements still hold the all-ones poison bit pattern."""
    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}.get(out.element_size())
    if bits is None or not out.is_contiguous():
        out = out.contiguous()
    try:
        pattern = out.view(bits) == (poisoning.POISON_BYTE if bits == torch.uint8 else -1)
    except (RuntimeError, TypeError):
        return 0
    return int((pattern & mask).sum())


def _unravel(index: int, shape) -> list[int]:
    position = []
    for size in reversed(list(shape)):
        position.append(index % size if size else 0)
        index = index // size if size else 0
    return list(reversed(position))
