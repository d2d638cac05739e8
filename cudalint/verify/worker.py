"""The worker of `cudalint verify`: builds, checks, sanitizes and times ONE candidate, in its own process.

Run as a script, never imported by the parent at run time: `python worker.py REQUEST` (the request's
JSON, from a pipe: /dev/fd/N). The parent (`cudalint.verify.isolation`) starts one per candidate in a
sandbox (`cudalint.sandbox`) with a time limit, `CUDA_VISIBLE_DEVICES` naming one GPU, and kills
everything it started when the limit passes. This file
imports only the standard library at the top; torch is imported inside the modes, so the pure helpers
(the build-cache key, error classification) can be tested without torch.

The request (JSON) names the mode and the channels, pipes inherited from the parent: `channel`, the
file descriptor the progress goes to, and in `run` mode `outputs`, where the candidate's output tensors
go. The solution's code runs in this process and can write to both, so nothing it says here passes it:
the parent's `judge` decides.

- `build`: executes the solution module with `load_inline` routed into the build cache, on no GPU
  (the parent hides them), so that the slow compilations of a batch run in parallel before any timing.
- `run`: builds (a cache hit after `build`) and runs the correctness trials, sending each trial's
  candidate outputs to the `outputs` channel; when its own comparison passes, runs the candidate's timed
  rounds, clocked by the parent (`TimedRounds`, `clock`), and sends each round's last outputs.
- `judge`: never loads the solution. Computes the reference's outputs for the same trial seeds and
  compares the candidate's, as the `run` worker sent them (file descriptor `outputs`), with them: the
  correctness verdict; then runs the reference's timed rounds (the same seeds and nonces, the same
  parent's clock) and checks the candidate's rounds against them (`check_rounds`).
- With overlap (`cudalint.verify.turns`), `run` and `judge` start before their turn on the GPU: each imports
  torch (and `run` routes the build cache), then waits for the parent's grant (`channel.wait_for_gpu`)
  before its first CUDA call and, in `run`, before the solution is loaded; the judge's grant brings the
  run's timing rounds.
- `pch`: never loads a solution. Precompiles the binding header the builds share (`BindingHeader`).
- `sanitize`: one candidate forward pass and nothing else; the parent runs this mode under
  compute-sanitizer with the caching allocator off (`PYTORCH_NO_CUDA_MEMORY_CACHING=1`), so every
  tensor is its own allocation and an access past its end is out of bounds for memcheck.
- `probe`: reports torch's view of the GPUs.

The worker's modules, beside it (imported as a package or, run as a script, from its folder; each imports
only the standard library at the top, and sibling modules):
- `builds`: the build cache every `load_inline` call is routed to, the lighter CUDA builds (split host code,
  minimal headers) and the precompiled binding header; loading the solution and reference files.
- `channel`: the progress sent to the parent (one JSON line per snapshot at each stage, so that when the
  process dies or hangs the parent still knows how far it got: `stage`, the extensions built, the trials done).
- `forwards`: a trial's inputs, the tensors of a forward's result, synchronizing the device.
- `poisoning`: the output poisoning before each candidate forward (an element never written reads back as NaN).
- `comparison`: the correctness comparison of outputs, within the tolerances of each dtype.
- `timed_rounds`: the timed rounds of the timing protocol (`clock`) and the judge's check of them.
- `host_split` (the split of a CUDA unit's host code), `clock` (the parent's clock of the rounds) and
  `launch_counter` (launches counted under compute-sanitizer).
This file holds the modes above and `main`.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import time
import traceback

if __package__:
    from . import builds, channel, clock, comparison, forwards, launch_counter, poisoning, timed_rounds
else:  # run as a script: the modules beside it
    import builds
    import channel
    import clock
    import comparison
    import forwards
    import launch_counter
    import poisoning
    import timed_rounds

STARTED = time.time()  # the worker's start, for its deadline


# -------------------------------------------------------------------------------------- pure helpers


_CUDA_ERRORS = (  # CUDA runtime error strings (as torch reports them) -> status; the specific before the generic
    ("an illegal memory access was encountered", "illegal_address"),
    ("illegal memory access", "illegal_address"),
    ("operation not supported on global/shared address space", "illegal_address"),  # cudaErrorInvalidAddressSpace
    ("illegal address", "illegal_address"),
    ("misaligned address", "misaligned_address"),
    ("out of memory", "oom"),
    ("device-side assert triggered", "device_assert"),
    ("unspecified launch failure", "launch_failure"),
    ("the launch timed out", "launch_failure"),
    ("invalid program counter", "launch_failure"),
    ("illegal instruction", "illegal_instruction"),
    ("cuda error", "cuda_error"),
    ("cudaerror", "cuda_error"),
    ("cuda driver error", "cuda_error"),
)


def classify_error(text: str) -> str | None:
    """The status a CUDA/torch error message stands for, or None for an ordinary exception. (torch appends
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions." to every CUDA error: only the
    error's own words count.)"""
    lowered = text.lower()
    for words, status in _CUDA_ERRORS:
        if words in lowered:
            return status
    return None


# ------------------------------------------------------------------------------------------------ modes


def _deadline(request: dict) -> float | None:
    """When the parent kills this worker, less a margin to write the result (None: no limit)."""
    timeout = request.get("timeout")
    return STARTED + float(timeout) - 5.0 if timeout else None


def kernelbench_trial_seeds(torch, seed: int, trials: int) -> list[int]:
    """The per-trial seeds KernelBench's `run_and_check_correctness` draws from `seed`."""
    torch.manual_seed(seed)
    return [int(torch.randint(0, 2 ** 32 - 1, (1,)).item()) for _ in range(trials)]


KERNELBENCH_PARITIES = ("kernelbench", "kernelbench-v0.1")  # runner.KERNELBENCH_PARITIES


def _kernelbench(request: dict) -> bool:
    """Whether the request mirrors a KernelBench eval (its trial seeds, the same tensors for both models, its
    TF32 defaults, all-zero inputs kept)."""
    return request.get("parity") in KERNELBENCH_PARITIES


def _set_precision(torch, allow_tf32: bool | None) -> None:
    """The reference in IEEE fp32 by default: TF32 matmul/convolution would put the reference itself
    further from the truth than the fp32 tolerance (1e-4). None leaves PyTorch's defaults (TF32 off for
    matmul, on for cuDNN convolutions), as KernelBench does."""
    if allow_tf32 is None:
        return
    try:
        torch.backends.cuda.matmul.allow_tf32 = allow_tf32
        torch.backends.cudnn.allow_tf32 = allow_tf32
    except AttributeError:
        pass


def run(request: dict, progress: channel.Progress) -> None:
    """The `run` and `sanitize` modes."""
    import torch

    sanitize = request["mode"] == "sanitize"
    device = torch.device(request.get("device", "cuda"))
    builds.install_build_cache(progress, request["cache_dir"], light=bool(request.get("light_build", False)),
                        precompiled=bool(request.get("precompiled_header", False)), pch_dir=request.get("pch_dir"))
    # no CUDA call and no candidate code before the GPU is this worker's (with overlap: `turns`)
    if not channel.wait_for_gpu(request, progress):
        progress.finish("not_granted", "the parent withdrew this worker's turn on the GPU")
        return
    if device.type == "cuda" and not torch.cuda.is_available():
        progress.finish("no_gpu", "torch sees no CUDA device in the worker")
        return
    kernelbench = _kernelbench(request)
    precision = forwards.precision(request, torch)
    _set_precision(torch, None if kernelbench else bool(request.get("allow_tf32", False)))
    if device.type == "cuda":
        progress.state["device_name"] = torch.cuda.get_device_name(device)
    seed = int(request.get("seed", 42))
    tolerances = {k: tuple(v) for k, v in (request.get("tolerances") or {}).items()}
    synchronize = forwards.synchronizer(torch, device)  # captured before the solution can patch it

    progress.stage("load reference")
    try:
        reference = builds.load_module(request["reference"], "cudalint_reference")
    except Exception as error:  # noqa: BLE001 - reported, not raised
        progress.finish("reference_error", f"the reference failed to load: {type(error).__name__}: {error}",
                        traceback=traceback.format_exc(limit=8))
        return
    sizes = {}
    if sanitize and request.get("sanitize_shapes"):  # before the solution loads: it shares the reference's globals
        with open(request["solution"], encoding="utf-8", errors="replace") as handle:
            sizes = reduced_sizes(reference, handle.read(), torch)
        _apply_sizes(reference, sizes, 1)
    progress.stage("load solution")
    try:
        solution = builds.load_module(request["solution"], "cudalint_solution", shared_globals=reference)
    except builds.BuildFailure as error:
        progress.finish("compile_error", str(error)[:400])
        return
    model_new = getattr(solution, "ModelNew", None)
    if model_new is None:
        progress.finish("invalid_solution", "the solution defines no ModelNew")
        return

    progress.stage("construct models")
    torch.manual_seed(seed)
    init_inputs = forwards.to_device(list(reference.get_init_inputs()), device, torch, precision)
    with torch.no_grad():
        reference_model = None
        if not sanitize:
            torch.manual_seed(seed)
            reference_model = reference.Model(*init_inputs).to(device=device, dtype=precision)
        torch.manual_seed(seed)
        candidate_model = model_new(*init_inputs).to(device=device, dtype=precision)
        forwards.synchronize(torch, device)

        if sanitize:
            shapes = None
            if sizes:
                progress.stage("sanitize: the reference at reduced sizes")
                shapes = {"reduced": sizes}
                try:
                    torch.manual_seed(seed)
                    reference.Model(*init_inputs).to(device=device, dtype=precision)(
                        *forwards.fresh_inputs(reference, seed, device, torch, None, keep_zeros=kernelbench,
                                               dtype=precision))
                    forwards.synchronize(torch, device)
                except Exception as error:  # noqa: BLE001 - the problem does not allow them: full sizes
                    _apply_sizes(reference, sizes, 0)
                    shapes = {"full": True, "why": f"the reference refused the reduced sizes: {type(error).__name__}: "
                                                   f"{error}"[:300]}
            progress.stage("sanitize: candidate forward")
            inputs = forwards.fresh_inputs(reference, seed, device, torch, progress, keep_zeros=kernelbench,
                                           dtype=precision)
            try:
                counts = counted_launches(torch, device, lambda: candidate_model(*inputs))
            except Exception as error:  # noqa: BLE001 - a CUDA error is the sanitizer's finding; a refusal is not
                text = f"{type(error).__name__}: {error}"
                if not (shapes and "reduced" in shapes) or classify_error(text):
                    raise
                _apply_sizes(reference, sizes, 0)
                shapes = {"full": True, "why": f"the candidate refused the reduced sizes: {text}"[:300]}
                inputs = forwards.fresh_inputs(reference, seed, device, torch, progress, keep_zeros=kernelbench,
                                       dtype=precision)
                counts = counted_launches(torch, device, lambda: candidate_model(*inputs))
            progress.finish("ran", "one candidate forward pass ran", launches=attributed_launches(counts),
                            libraries=_extension_libraries(progress.state["extensions"]), sizes=shapes)
            return

        correctness = _correctness(request, progress, torch, device, reference, reference_model, candidate_model,
                                   tolerances, seed)
        progress.state["correctness"] = correctness
        if not correctness["ok"]:
            progress.finish("incorrect", correctness["message"])
            return
        if request.get("timing", True) and request.get("control_fd") is not None:
            timer = timed_rounds.TimedRounds(request, torch, device, reference, synchronize, tolerances, kernelbench)
            try:
                rounds = timer.run(candidate_model, progress, "candidate")
            except timed_rounds.ProtocolBroken as error:  # the parent says why; the verdict is the judge's still
                progress.note(f"timing: {error}")
                rounds = []
            for timed in rounds:  # untimed: the judge compares them with the reference's last outputs
                send_outputs(request["outputs"], torch, None, timed["seed"], timed["outputs"], [],
                             timed_round=timed["round"])
            events = [ms for timed in rounds for ms in timed.get("events_ms") or []]
            if events:
                progress.state["timing_self_reported"] = {"cuda_events": clock.summarize(events)}
        progress.finish("correct", f"{correctness['trials']} trials passed")


SANITIZE_ELEMENTS = 1 << 20  # a reduced sanitizer run's inputs: about a million elements in all
SIZE_ALIGNMENT = 32  # a reduced size keeps its original's power-of-two factor up to this (warps, tiles, vectors)


def reduced_sizes(reference, solution_text: str, torch, target: int = SANITIZE_ELEMENTS) -> dict[str, list[int]]:
    """Smaller values of the reference's module-level sizes, for sanitizer runs (`--sanitize-shapes`):
    {name: [original, reduced]}. A size is reduced only when `get_inputs` reads it, `get_init_inputs` does
    not (the weights keep their shapes) and the solution never names it (it may rely on its value); it is
    halved, the largest first, while the inputs (made on the meta device) hold more than `target` elements,
    keeping its original's power-of-two factor up to SIZE_ALIGNMENT, so that a kernel whose launch shape
    assumes a multiple of a warp or a tile still gets one. {} where nothing can be reduced."""
    get_inputs, get_init_inputs = getattr(reference, "get_inputs", None), getattr(reference, "get_init_inputs", None)
    code = getattr(get_inputs, "__code__", None)
    if code is None:
        return {}
    fixed = set(getattr(getattr(get_init_inputs, "__code__", None), "co_names", ()))
    original = {name: getattr(reference, name) for name in code.co_names
                if name not in fixed and type(getattr(reference, name, None)) is int and getattr(reference, name) > 1
                and not re.search(rf"\b{re.escape(name)}\b", solution_text)}
    floors = {name: value >> max((value & -value).bit_length() - 1 - (SIZE_ALIGNMENT.bit_length() - 1), 0)
              for name, value in original.items()}
    current = dict(original)

    def elements() -> int:
        _apply_sizes(reference, {name: [original[name], value] for name, value in current.items()}, 1)
        with torch.device("meta"):
            return sum(v.numel() for v in reference.get_inputs() if isinstance(v, torch.Tensor))

    try:
        while elements() > target:
            shrinkable = [name for name in current if current[name] > floors[name]]
            if not shrinkable:
                break
            largest = max(shrinkable, key=lambda name: current[name])
            current[largest] //= 2
    except Exception:  # noqa: BLE001 - inputs the meta device cannot make (a .cuda() call): no reduction
        current = dict(original)
    finally:
        _apply_sizes(reference, {name: [value, value] for name, value in original.items()}, 0)
    return {name: [original[name], current[name]] for name in original if current[name] != original[name]}


def _apply_sizes(module, sizes: dict[str, list[int]], which: int) -> None:
    """Set each size of `sizes` ({name: [original, reduced]}) in `module`: the original (0) or the reduced (1)."""
    for name, values in sizes.items():
        setattr(module, name, values[which])


def counted_launches(torch, device, forward) -> dict | None:
    """Run `forward` once (and synchronize): the GPU kernels it launched, by name, with their counts. Counted by
    the preloaded launch counter where the worker has one (under compute-sanitizer, which holds CUPTI), else by
    torch's profiler; None where the count saw nothing, not even a launch of its own made after the forward:
    then no count is claimed."""
    if device.type != "cuda":
        forward()
        return None
    counter = launch_counter.Counter.loaded()
    counts = _counted_by_the_counter(counter, torch, device, forward) if counter is not None else \
        _counted_by_the_profiler(torch, device, forward)
    return counts if counts is not None and any("mul" in name.lower() for name in counts) else None


def _counted_by_the_counter(counter, torch, device, forward) -> dict[str, int]:
    counter.reset()
    forward()
    forwards.synchronize(torch, device)
    _launch_probe(torch, device)
    return counter.counts()


def _counted_by_the_profiler(torch, device, forward) -> dict[str, int] | None:
    try:
        from torch.profiler import ProfilerActivity, profile

        profiler = profile(activities=[ProfilerActivity.CUDA])
        profiler.__enter__()
    except Exception:  # noqa: BLE001 - no profiler: the forward runs, uncounted
        forward()
        forwards.synchronize(torch, device)
        return None
    try:
        forward()
        forwards.synchronize(torch, device)
        _launch_probe(torch, device)
    finally:
        profiler.__exit__(None, None, None)
    counts: dict[str, int] = {}
    try:
        for event in profiler.events():
            if str(getattr(event, "device_type", "")).endswith("CUDA") and event.name:
                counts[event.name] = counts.get(event.name, 0) + 1
    except Exception:  # noqa: BLE001 - a profiler that cannot report counted nothing
        return None
    return counts


def _launch_probe(torch, device) -> None:
    """A launch of torch's multiply kernel that a working count must see (`counted_launches`), or it saw nothing."""
    torch.full((1,), 7, device=device).mul_(3)
    forwards.synchronize(torch, device)


def kernel_base_name(name: str) -> str:
    """`relu_kernel` of a profiler's kernel name: `void ns::relu_kernel<float>(float const*, float*, int)`."""
    head = name.split("(")[0].split("<")[0].strip()
    return head.split()[-1].split("::")[-1] if head else name


def attributed_launches(counts: dict | None) -> list[dict] | None:
    """Each launched kernel (`counted_launches`) with the extension libraries loaded in this process whose
    bytes hold its name (`defined_in`): libraries outside the Python installation and the system's, which
    are torch's and CUDA's, so a same-named kernel of another extension shows as a second library."""
    if counts is None:
        return None
    libraries = _loaded_extension_libraries()
    contents = {}
    for path in libraries:
        try:
            with open(path, "rb") as handle:
                contents[path] = handle.read()
        except OSError:
            continue
    launches = []
    for name, count in sorted(counts.items()):
        base = kernel_base_name(name)
        defined_in = sorted(p for p, data in contents.items() if base and base.encode() in data)
        launches.append({"name": name, "kernel": base, "count": count, "defined_in": defined_in})
    return launches


def _loaded_extension_libraries() -> list[str]:
    """The shared libraries mapped into this process that are neither the Python installation's (torch's)
    nor the system's (CUDA's)."""
    system = tuple(os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix, "/usr", "/lib", "/lib64",
                                                          "/opt", "/usr/local/cuda"})
    found = set()
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                path = line.split(maxsplit=5)[-1].strip() if line.count(" ") >= 5 else ""
                if path.endswith(".so") and not os.path.realpath(path).startswith(system):
                    found.add(path)
    except OSError:
        return []
    return sorted(found)


def _extension_libraries(extensions: list[dict]) -> list[str]:
    """The shared libraries of the extensions this worker built or loaded for the candidate."""
    return [os.path.join(e["directory"], f"{e['name']}.so") for e in extensions
            if e.get("ok") and e.get("directory") and not e.get("superseded")]


def _trial_seeds(request, torch, seed: int) -> list[int]:
    trials = int(request.get("trials", 5))
    if _kernelbench(request):
        return kernelbench_trial_seeds(torch, seed, trials)
    return [seed + t for t in range(trials)]


class Trials:
    """The correctness summary, trial by trial: the same in the run worker's own check and in the judge's."""

    def __init__(self, trials: int, poisoned: bool) -> None:
        self.summary = {"ok": True, "trials": trials, "passed": 0, "max_abs_error": 0.0, "mean_abs_error": 0.0,
                        "poisoned": poisoned, "trial_results": [], "message": ""}
        self.mean_errors: list[float] = []

    def add(self, result: dict, trial: int, seed: int) -> bool:
        """One trial's comparison (`compare`, plus failures found around it); False once one failed."""
        summary = self.summary
        result["ok"] = not result["failures"]
        result.update(trial=trial + 1, seed=seed)
        summary["trial_results"].append(result)
        summary["max_abs_error"] = max(summary["max_abs_error"], result["max_abs_error"])
        self.mean_errors.append(result["mean_abs_error"])
        for name in ("atol", "rtol"):
            if name in result:
                summary[name] = result[name]
        if result["ok"]:
            summary["passed"] += 1
            return True
        summary["ok"] = False
        summary["message"] = f"trial {trial + 1} (seed {seed}): " + "; ".join(f["message"] for f in result["failures"])
        return False

    def finish(self) -> dict:
        summary = self.summary
        summary["mean_abs_error"] = sum(self.mean_errors) / len(self.mean_errors) if self.mean_errors else 0.0
        if summary["ok"]:
            summary["message"] = (f"{summary['trials']} trials passed: max abs error {summary['max_abs_error']:.3g}, "
                                  f"mean {summary['mean_abs_error']:.3g}")
        return summary


# what the run worker found around the comparison and sends with the outputs (it can only fail a trial)
SELF_REPORTED = ("device_mismatch", "inputs_modified")


def _correctness(request, progress, torch, device, reference, reference_model, candidate_model, tolerances,
                 seed) -> dict:
    """The trials in the run worker: each candidate output is compared here (to decide whether timing is
    worth it) and sent to the `outputs` channel, for the judge's verdict."""
    seeds = _trial_seeds(request, torch, seed)
    poison = bool(request.get("poison", True)) and device.type == "cuda"
    poisoner = poisoning.Poisoner(torch, device) if poison else None
    trials = Trials(len(seeds), poison)
    kernelbench = _kernelbench(request)
    for trial, trial_seed in enumerate(seeds):
        progress.stage(f"correctness trial {trial + 1}/{len(seeds)}: inputs")
        inputs = forwards.fresh_inputs(reference, trial_seed, device, torch, progress, keep_zeros=kernelbench,
                               dtype=forwards.precision(request, torch))
        progress.stage(f"correctness trial {trial + 1}/{len(seeds)}: reference")
        pristine = _pristine_copies(inputs, torch)
        torch.manual_seed(trial_seed)
        # KernelBench hands both models the same tensors; by default the reference gets copies, so that a
        # reference that works in place cannot change what the candidate sees
        reference_out = reference_model(*(inputs if kernelbench else _clones(inputs, torch)))
        reference_tensors = forwards.flatten(reference_out, torch)
        if reference_tensors is None:
            raise RuntimeError("the reference's forward returned no tensor")
        # on the CPU: a candidate writing out of bounds cannot corrupt what it is compared with
        reference_cpu = [t.detach().cpu() for t in reference_tensors]
        del reference_out, reference_tensors
        if poisoner is not None:
            poisoner([t.numel() * t.element_size() for t in reference_cpu])
            trials.summary["poisoned_bytes"] = poisoner.covered_bytes
        progress.stage(f"correctness trial {trial + 1}/{len(seeds)}: candidate")
        torch.manual_seed(trial_seed)
        candidate_out = candidate_model(*inputs)
        forwards.synchronize(torch, device)
        candidate_tensors = forwards.flatten(candidate_out, torch)
        # compared on the device (the candidate has finished: nothing can corrupt the copies any more)
        outputs = None if candidate_tensors is None else [t.detach() for t in candidate_tensors]
        expected = [t.to(outputs[i].device if outputs and i < len(outputs) else device)
                    for i, t in enumerate(reference_cpu)]
        result = comparison.compare(outputs, expected, tolerances, poison, torch)
        elsewhere = [i for i, t in enumerate(outputs or []) if t.device.type != device.type]
        if elsewhere:
            result["failures"].append({"kind": "device_mismatch", "outputs": elsewhere, "message":
                                       f"output(s) {elsewhere} are not on {device.type}"})
        changed = [i for i, (now, before) in enumerate(zip(inputs, pristine)) if isinstance(now, torch.Tensor)
                   and not torch.equal(now.detach(), before.to(now.device))]
        if changed:
            result["failures"].append({"kind": "inputs_modified", "inputs": changed, "message":
                                       f"the candidate modified its input(s) {changed} in place"})
        if request.get("outputs") is not None:
            send_outputs(request["outputs"], torch, trial + 1, trial_seed, outputs,
                         [f for f in result["failures"] if f["kind"] in SELF_REPORTED])
        del outputs, expected, candidate_out, candidate_tensors
        if not trials.add(result, trial, trial_seed):
            break
        progress.state["correctness"] = trials.summary
        progress.write()
    return trials.finish()


def send_outputs(fd: int, torch, trial: int | None, seed: int, outputs, failures: list[dict],
                 timed_round: int | None = None) -> None:
    """One trial's candidate outputs (on the CPU) to the `outputs` channel: a length, then torch.save's bytes;
    with `timed_round`, the last outputs of that timed round (`TimedRounds`)."""
    buffer = io.BytesIO()
    sent = {"trial": trial, "seed": seed, "failures": failures,
            "outputs": None if outputs is None else [t.detach().cpu() for t in outputs]}
    if timed_round is not None:
        sent["round"] = timed_round
    torch.save(sent, buffer)
    data = buffer.getvalue()
    channel.write_all(fd, len(data).to_bytes(8, "big") + data)


def received_outputs(stream, torch):
    """The trials the run worker sent (`send_outputs`), read back with torch's safe loader (tensors and plain
    containers only: nothing the candidate wrote is executed); None where the stream is cut or garbled."""
    while True:
        header = stream.read(8)
        if len(header) < 8:
            return
        size = int.from_bytes(header, "big")
        if size > os.fstat(stream.fileno()).st_size - stream.tell():  # a length past the end: garbled
            yield None
            return
        data = stream.read(size)
        try:
            sent = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
        except Exception:  # noqa: BLE001 - whatever the candidate wrote, it is no trial
            sent = None
        if not isinstance(sent, dict) or not isinstance(sent.get("outputs"), (list, type(None))) \
                or not all(isinstance(t, torch.Tensor) for t in sent.get("outputs") or []):
            yield None
            return
        yield sent


def judge(request: dict, progress: channel.Progress) -> None:
    """The `judge` mode: the correctness verdict, in a process that never loads the solution. For each trial
    seed, the reference's outputs are computed here, as the run worker computed them, and compared with the
    candidate outputs it sent (`outputs`: the parent's copy of that channel)."""
    import torch

    # with overlap (`turns`) this worker starts beside its run: its outputs, and its timing rounds' nonces and
    # projections, come with the grant, once the run has ended
    if not channel.wait_for_gpu(request, progress):
        progress.finish("not_granted", "the parent withdrew this worker's turn on the GPU")
        return
    device = torch.device(request.get("device", "cuda"))
    kernelbench = _kernelbench(request)
    precision = forwards.precision(request, torch)
    _set_precision(torch, None if kernelbench else bool(request.get("allow_tf32", False)))
    seed = int(request.get("seed", 42))
    tolerances = {k: tuple(v) for k, v in (request.get("tolerances") or {}).items()}
    poison = bool(request.get("poison", True)) and device.type == "cuda"
    progress.stage("judge: load reference")
    reference = builds.load_module(request["reference"], "cudalint_reference")
    torch.manual_seed(seed)
    init_inputs = forwards.to_device(list(reference.get_init_inputs()), device, torch, precision)
    seeds = _trial_seeds(request, torch, seed)
    trials = Trials(len(seeds), poison)
    with torch.no_grad(), os.fdopen(request["outputs"], "rb") as stream:
        torch.manual_seed(seed)
        reference_model = reference.Model(*init_inputs).to(device=device, dtype=precision)
        sent_trials = received_outputs(stream, torch)
        for trial, trial_seed in enumerate(seeds):
            progress.stage(f"judge: trial {trial + 1}/{len(seeds)}")
            sent = next(sent_trials, None)
            if sent is None or sent.get("trial") != trial + 1 or sent.get("seed") != trial_seed:
                trials.add({"max_abs_error": 0.0, "mean_abs_error": 0.0, "failures": [{
                    "kind": "no_outputs", "message": "the run worker sent no outputs for this trial"}]},
                    trial, trial_seed)
                break
            inputs = forwards.fresh_inputs(reference, trial_seed, device, torch, None, keep_zeros=kernelbench,
                                           dtype=precision)
            torch.manual_seed(trial_seed)
            expected = forwards.flatten(reference_model(*(inputs if kernelbench else _clones(inputs, torch))), torch)
            if expected is None:
                raise RuntimeError("the reference's forward returned no tensor")
            outputs = None if sent["outputs"] is None else [t.to(device) for t in sent["outputs"]]
            result = comparison.compare(outputs, expected, tolerances, poison, torch)
            result["failures"] += [f for f in sent.get("failures") or []
                                   if isinstance(f, dict) and f.get("kind") in SELF_REPORTED]
            if not trials.add(result, trial, trial_seed):
                break
        summary = trials.finish()
        progress.state["correctness"] = summary
        progress.write()  # the verdict, sent before the timing: it stands if the timing fails
        if summary["ok"] and request.get("timing", True) and request.get("control_fd") is not None:
            _judge_timing(request, progress, torch, device, reference, reference_model, tolerances, kernelbench,
                          sent_trials)
    progress.finish("correct" if summary["ok"] else "incorrect", summary["message"])


def _judge_timing(request, progress, torch, device, reference, reference_model, tolerances, kernelbench,
                  sent) -> None:
    """The judge's part of the timing (`clock`): the reference timed by the same protocol as the candidate
    (then its torch.compile, when asked), and the candidate's timed rounds checked against it: the
    projections the parent received from the run worker (`timing_rounds`), the last outputs it sent."""
    synchronize = forwards.synchronizer(torch, device)
    timer = timed_rounds.TimedRounds(request, torch, device, reference, synchronize, tolerances, kernelbench)
    try:
        rounds = timer.run(reference_model, progress, "reference")
    except Exception as error:  # noqa: BLE001 - no timing then; the correctness verdict stands
        progress.state["timing_check"] = {"ok": False, "message": f"the reference's timed rounds failed: "
                                                                  f"{type(error).__name__}: {error}"[:400]}
        return
    candidate = []
    for timed, given in zip(rounds, request.get("timing_rounds") or []):
        frame = next(sent, None)
        if frame is None or frame.get("round") != timed["round"]:
            break
        candidate.append({"projections": given.get("projections"), "outputs": frame["outputs"]})
    progress.state["timing_check"] = timed_rounds.check_rounds(candidate, rounds, tolerances, torch)
    events = [ms for timed in rounds for ms in timed.get("events_ms") or []]
    if events:
        progress.state["timing_reference_events"] = clock.summarize(events)
    if request.get("compile"):
        progress.stage("timing: torch.compile of the reference")
        try:
            compiled = torch.compile(reference_model)
            compiled(*forwards.fresh_inputs(reference, timer.seeds[0], device, torch, None, keep_zeros=kernelbench,
                                    dtype=timer.dtype))
            timer.run(compiled, progress, "reference (torch.compile)")
        except Exception as error:  # noqa: BLE001 - the baseline is optional; say why it is missing
            progress.state["compiled_error"] = f"{type(error).__name__}: {error}"[:400]


def _clones(values: list, torch) -> list:
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


def _pristine_copies(inputs: list, torch) -> list:
    """Copies of the inputs to tell later whether the candidate wrote into them: on the device (a copy there
    takes milliseconds where a host copy of a multi-GB input takes many seconds), on the host when the
    device has no room for them."""
    try:
        return [v.detach().clone() if isinstance(v, torch.Tensor) else v for v in inputs]
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        return [v.detach().cpu() if isinstance(v, torch.Tensor) else v for v in inputs]


def build(request: dict, progress: channel.Progress) -> None:
    """The `build` mode: execute the solution module so that its load_inline calls build into the cache."""
    import torch  # noqa: F401 - imported before the solution so that a missing torch is reported plainly

    builds.install_build_cache(progress, request["cache_dir"], light=bool(request.get("light_build", False)),
                        precompiled=bool(request.get("precompiled_header", False)), pch_dir=request.get("pch_dir"))
    reference = None
    if request.get("reference"):
        progress.stage("load reference")
        try:
            reference = builds.load_module(request["reference"], "cudalint_reference")
        except Exception:  # noqa: BLE001 - the run reports a reference that fails; building needs none
            reference = None
    progress.stage("load solution")
    try:
        builds.load_module(request["solution"], "cudalint_solution", shared_globals=reference)
    except builds.BuildFailure as error:
        progress.finish("compile_error", str(error)[:400])
        return
    except Exception as error:  # noqa: BLE001 - import-time code that needs a GPU fails here; run it later
        progress.finish("built", f"the module's other import-time code failed without a GPU: "
                                 f"{type(error).__name__}: {error}"[:400])
        return
    progress.finish("built", "")


# the C++ flags `pch` precompiles the binding header for: none, and the -O3 most generated solutions give
PCH_FLAG_SETS = ([], ["-O3"])


def pch(request: dict, progress: channel.Progress) -> None:
    """The `pch` mode: the shared precompiled headers (`BindingHeader`) for `PCH_FLAG_SETS`, made in a worker
    that never loads a solution, the only one that writes `pch_dir`."""
    import torch
    import torch.utils.cpp_extension as cpp_extension

    binding = builds.BindingHeader(request["pch_dir"], cpp_extension, builds.toolchain_id(torch), precompile=True,
                            deadline=_deadline(request))
    made = []
    for flags in PCH_FLAG_SETS:
        progress.stage(f"precompile <torch/extension.h> for C++ flags {flags}")
        made.append(binding.include_line({"extra_cflags": flags}))
        binding.finish()
    progress.finish("built", "; ".join(made))


def probe(request: dict, progress: channel.Progress) -> None:
    import torch

    devices = []
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            major, minor = torch.cuda.get_device_capability(index)
            devices.append({"index": index, "name": torch.cuda.get_device_name(index), "capability": f"{major}.{minor}"})
    progress.finish("ok", "", torch=torch.__version__, cuda=str(torch.version.cuda), devices=devices)


MODES = {"run": run, "sanitize": run, "judge": judge, "build": build, "pch": pch, "probe": probe}


def main(argv: list[str]) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path.pop(0)  # this package's modules must not shadow others'
    with open(argv[1], encoding="utf-8") as handle:
        request = json.load(handle)
    progress = channel.Progress(request["channel"], request["mode"])
    import faulthandler

    faulthandler.enable(file=sys.stderr, all_threads=True)
    if request.get("timeout"):
        # a hang leaves the Python stack in the log before the parent's kill
        faulthandler.dump_traceback_later(max(float(request["timeout"]) - 2.0, 1.0), exit=False)
    try:
        MODES[request["mode"]](request, progress)
    except BaseException as error:  # noqa: BLE001 - every failure becomes a status
        text = f"{type(error).__name__}: {error}"
        status = ("compile_error" if isinstance(error, builds.BuildFailure)
                  else classify_error(text) or "runtime_error")
        progress.finish(status, text[:2000], traceback=traceback.format_exc(limit=12))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
