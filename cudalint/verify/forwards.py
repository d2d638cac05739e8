"""The verify worker's forward inputs and outputs: the inputs of a trial seed (`fresh_inputs`), moved and
cast to the device (`to_device`, `precision`), the tensors of a forward's result (`flatten`), and a
device-wide synchronize (`synchronize`, `synchronizer`).

Part of the worker (`worker.py`, run as a script): standard library only at the top, torch passed in.
"""

from __future__ import annotations

if __package__:
    from . import channel
else:  # run as a script (worker.py): the modules beside it
    import channel


def flatten(value, torch) -> list | None:
    """The tensors of a forward result: one tensor, or a tuple/list of them; None for anything else."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        tensors = []
        for item in value:
            inner = flatten(item, torch)
            if inner is None:
                return None
            tensors += inner
        return tensors
    return None


def to_device(values, device, torch, dtype=None):
    """Tensors moved to `device`; with a `dtype` (KernelBench's `precision`) cast to it too, integer tensors
    included, as KernelBench's `_process_input_tensor` does."""
    if dtype is not None:
        return [v.to(device=device, dtype=dtype) if isinstance(v, torch.Tensor) else v for v in values]
    return [v.to(device) if isinstance(v, torch.Tensor) else v for v in values]


def fresh_inputs(reference, seed: int, device, torch, progress: channel.Progress | None, keep_zeros: bool = False,
                  dtype=None) -> list:
    """get_inputs() under `seed`; a floating-point input that comes back all zeros is replaced by random
    values of the same shape (zeros hide unwritten outputs and wrong indexing) unless `keep_zeros`; cast to
    `dtype` when given (`precision`)."""
    torch.manual_seed(seed)
    inputs = list(reference.get_inputs())
    for index, value in enumerate(inputs if not keep_zeros else ()):
        if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel() and not bool(value.any()):
            generator = torch.Generator(device="cpu").manual_seed(seed * 1000 + index)
            inputs[index] = torch.randn(value.shape, generator=generator, dtype=value.dtype).to(value.device)
            if progress is not None and f"input {index} was all zeros" not in " ".join(progress.state["notes"]):
                progress.note(f"input {index} was all zeros; replaced by seeded random values")
    return to_device(inputs, device, torch, dtype)


def synchronize(torch, device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def synchronizer(torch, device):
    """A device-wide synchronize through the function torch has now (the solution, imported later, may
    replace torch.cuda.synchronize in its process)."""
    if device.type != "cuda":
        return lambda: None
    synchronize = torch.cuda.synchronize
    return lambda: synchronize(device)


def precision(request: dict, torch):
    """The dtype KernelBench's current eval casts every input tensor and both models to (its `precision`
    argument: fp32, fp16, bf16); None for the other harnesses, which cast nothing."""
    if request.get("parity") != "kernelbench":
        return None
    return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[request.get("precision") or "fp32"]
