"""The dry-run worker: runs a KernelBench solution's Python layer on the CPU, with every compiled extension
replaced by cudalint's model of it, and records what happened as plain data.

Run by the parent as its own process (`python worker.py REQUEST.json`, or forked from `serve()`, a process
that imported torch once). It imports nothing of cudalint: the solution's code runs here, never in the
cudalint process. Request keys: `solution`, `reference` (None: the solution file's own `Model`),
`extension` (see extension.py), `seed`, `cpu_seconds`, `memory_bytes`, `real_limit` (inputs of more
elements than this run on fake tensors), `result` (where the facts go).

What the harness does, replayed: seed, `Model(*get_init_inputs())`, seed again, `ModelNew(...)`, both on
the CPU in training mode under `torch.no_grad()`; parameters and buffers compared; then forward called
four times: fresh inputs, fresh inputs of the next trial seed, the same input objects again, inputs of
another seed. "cuda" reads as the CPU: tensors report `is_cuda` and a cuda device (a mode rewrites the
device of every factory and move), and `torch.cuda`'s streams, events and synchronisation are stubs.

Facts the solution could forge: the recorder runs in the same process. Its state lives in closures and
in objects reachable only from this module's frames; the audit hook (installed first, irremovable)
refuses `gc.get_objects`/`get_referrers`/`get_referents`, `ctypes`, `fork`/`exec`/`subprocess`, sockets
and opening the result file to the solution, and records `sys._getframe`. What remains: a solution can
still walk frames once it has one (`sys._getframe` is recorded, not refused: `warnings` needs it) and
reach the recorder's locals, or replace torch functions the recorder calls after it (recorded as
replaced objects). The parent treats every fact as the solution's claim about itself: facts only ever
lift a static claim when they prove the solution did the work the claim denies.
"""

from __future__ import annotations

import json
import os
import sys
import time

_REFUSED_EVENTS = ("gc.get_objects", "gc.get_referrers", "gc.get_referents", "ctypes.", "os.fork", "os.forkpty",
                   "os.posix_spawn", "os.spawn", "os.exec", "os.system", "subprocess.Popen", "socket.connect",
                   "socket.bind", "socket.sendto", "os.kill", "os.killpg", "pty.spawn")
_RECORDED_EVENTS = ("sys._getframe", "sys._current_frames", "sys.settrace", "sys.setprofile")
_WATCHED_MODULES = ("torch", "torch.cuda", "torch.testing", "torch.nn.functional", "time", "torch.backends.cudnn",
                    "torch.backends.cuda")
_WATCHED_CLASSES = ("torch.Tensor", "torch.nn.Module", "torch.cuda.Event")
_FLAGS = {
    "torch.backends.cudnn.allow_tf32": lambda torch: torch.backends.cudnn.allow_tf32,
    "torch.backends.cudnn.benchmark": lambda torch: torch.backends.cudnn.benchmark,
    "torch.backends.cudnn.deterministic": lambda torch: torch.backends.cudnn.deterministic,
    "torch.backends.cudnn.enabled": lambda torch: torch.backends.cudnn.enabled,
    "torch.backends.cuda.matmul.allow_tf32": lambda torch: torch.backends.cuda.matmul.allow_tf32,
    "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction":
        lambda torch: torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
    "torch.get_float32_matmul_precision()": lambda torch: torch.get_float32_matmul_precision(),
    "torch.is_grad_enabled()": lambda torch: torch.is_grad_enabled(),
}
SCHEMA_VERSION = 1
# the aten ops that draw from torch's random stream (nn.init's functions and layers' inits end in these)
_RANDOM_OPS = frozenset({"uniform_", "normal_", "bernoulli_", "exponential_", "random_", "geometric_", "cauchy_",
                         "log_normal_", "rand", "randn", "randint", "randperm", "bernoulli", "normal", "multinomial",
                         "rand_like", "randn_like", "randint_like", "poisson", "uniform"})
_NOT_NUMBERS = frozenset({"generator", "dtype", "device", "layout", "out", "requires_grad", "size", "pin_memory",
                          "memory_format"})


class _Refused(RuntimeError):
    pass


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as handle:
        request = json.load(handle)
    os.unlink(argv[1])
    del argv[1:]
    import torch  # noqa: F401 - imported before the limits, as the forked path has it

    return run(request)


def run(request: dict) -> int:
    """Run one dry run in this process and write its facts to `request["result"]`; never returns normally
    when the solution exits (the facts say so)."""
    recorder = _Recorder(request)
    code = recorder.execute()
    os._exit(code)


class _Recorder:
    def __init__(self, request: dict) -> None:
        self.request = request
        self.solution_path = os.path.abspath(request["solution"])
        self.reference_path = os.path.abspath(request["reference"] or request["solution"])
        self.watched_files = {self.solution_path}
        self.facts: dict = {"version": SCHEMA_VERSION, "completed": False, "stage": "start", "error": None,
                            "mode": None, "parameters": None, "calls": [], "events": [], "extension_calls": 0}
        self.stage = "start"
        self.busy = [False]
        # "torch.allclose" -> the solution's line that set it (watched modules and the stand-in CUDA classes)
        self.attribute_lines: dict[str, int] = {}
        self.result_handle = open(request["result"], "w", encoding="utf-8")
        self.result_path = os.path.realpath(request["result"])
        self.dumps = json.dumps
        self.started = time.monotonic()
        self._elements = 0
        self.in_reference = False  # the worker itself runs the reference's forward
        self.reference_ops: set[str] = set()  # the torch functions the reference's forward called

    # ---------------------------------------------------------------------------- recording helpers

    def event(self, kind: str, what: str, line: int | None = None, **details) -> None:
        events = self.facts["events"]
        if len(events) < 200 and not any(e["kind"] == kind and e["what"] == what and e["line"] == line
                                         for e in events):
            events.append({"kind": kind, "what": what, "line": line, "stage": self.stage, **details})

    def solution_line(self, frame=None, path: str | None = None) -> int | None:
        """The line of the innermost frame of the solution's file (or of `path`), from `frame` (default: the
        caller) out."""
        busy = self.busy[0]
        self.busy[0] = True
        path = path or self.solution_path
        try:
            frame = frame or sys._getframe(1)
            while frame is not None:
                if frame.f_code.co_filename == path:
                    return frame.f_lineno
                frame = frame.f_back
            return None
        finally:
            self.busy[0] = busy

    def solution_stack(self) -> list[int]:
        """The lines of every frame of the solution's file on the stack, innermost first."""
        busy = self.busy[0]
        self.busy[0] = True
        try:
            frame, lines = sys._getframe(1), []
            while frame is not None:
                if frame.f_code.co_filename == self.solution_path:
                    lines.append(frame.f_lineno)
                frame = frame.f_back
            return lines
        finally:
            self.busy[0] = busy

    def audit(self, name: str, args: tuple) -> None:
        if self.busy[0] or self.stage in ("start", "done"):
            return
        if name == "open" and args and isinstance(args[0], (str, bytes)) and os.path.realpath(
                os.fsdecode(args[0])) == self.result_path:
            raise _Refused("the dry run's result file is not the solution's to open")
        refused = name.startswith(_REFUSED_EVENTS)
        if not refused and not name.startswith(_RECORDED_EVENTS):
            return
        self.busy[0] = True
        try:
            line = self.solution_line(sys._getframe(1))
        finally:
            self.busy[0] = False
        if line is None and not refused:
            return  # torch's or the standard library's own use (warnings reads frames)
        self.event("refused" if refused else "frame", name, line)
        if refused:
            raise _Refused(f"the dry run refuses {name}")

    # ---------------------------------------------------------------------------- the run

    def execute(self) -> int:
        sys.addaudithook(self.audit)
        self._limits()
        code = 0
        try:
            self._run()
            self.facts["completed"] = True
        except SystemExit as stop:
            self._error("exit", f"the solution called exit({stop.code!r})", _traceback_line(stop, self.watched_files),
                        "solution")
        except _Environment as error:
            self._error(type(error).__name__, str(error), None, "environment")
        except MemoryError:
            self._error("MemoryError", "ran out of the dry run's memory limit", None, "limits")
        except BaseException as error:  # noqa: BLE001 - every failure of the solution is a fact
            self._error(type(error).__name__, str(error)[:500], _traceback_line(error, self.watched_files),
                        _cause(error))
        self.facts["stage"] = self.stage
        self.facts["reference_ops"] = sorted(self.reference_ops)[:300]
        self.stage = "done"
        self.facts["seconds"] = round(time.monotonic() - self.started, 3)
        self._write()
        return code

    def _error(self, kind: str, message: str, line, cause: str) -> None:
        self.facts["error"] = {"stage": self.stage, "type": kind, "message": message, "line": line,
                               "cause": cause}

    def _write(self) -> None:
        handle = self.result_handle
        handle.seek(0)
        handle.truncate()
        handle.write(self.dumps(self.facts, default=str))
        handle.flush()
        handle.close()

    def _limits(self) -> None:
        import resource

        cpu = int(self.request.get("cpu_seconds") or 0)
        if cpu:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        memory = int(self.request.get("memory_bytes") or 0)
        if memory:
            with open("/proc/self/statm", encoding="ascii") as handle:  # what torch maps already, plus the budget
                memory += int(handle.read().split()[0]) * resource.getpagesize()
            try:
                resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            except (ValueError, OSError):
                pass

    def _run(self) -> None:
        import threading

        import torch

        _warm(torch)
        torch.set_num_threads(1)
        self.torch = torch
        self.threads_before = set(threading.enumerate())
        environment = _CudaOnCpu(torch, self)
        environment.install()
        self.environment = environment
        extension = _Extensions(torch, self, self.request.get("extension") or [])
        extension.install()
        self.extension = extension
        with open(self.solution_path, encoding="utf-8", errors="surrogateescape") as handle:
            _Backends(torch, self, extension).install(handle.read())
        _record_environment_reads(self)
        _record_thread_starts(self)
        with torch.no_grad():
            watch = self.watch = _Watch(torch, self)
            self.stage = "import"
            # KernelBench execs the reference, then the solution, into one dictionary: the solution sees the
            # reference's names (its imports, `Model`), and the harness keeps the reference's own objects
            context: dict = {"__builtins__": __builtins__}
            reference = {}
            if self.reference_path != self.solution_path:
                try:
                    self._exec(self.reference_path, context)
                except Exception as error:  # noqa: BLE001
                    raise _Environment(f"the reference failed: {type(error).__name__}: {error}") from error
                reference = {name: context.get(name) for name in ("Model", "get_inputs", "get_init_inputs")}
                watch.flags = watch._flags()  # flags the reference sets are the problem's, not the solution's
            before_solution = dict(context)
            self._exec(self.solution_path, context)
            solution = context
            reference = {name: value for name, value in reference.items() if value is not None} or {
                name: context[name] for name in ("Model", "get_inputs", "get_init_inputs") if name in context}
            watch.check("import")
            for name in ("Model", "get_inputs", "get_init_inputs"):
                if name not in reference:
                    raise _Environment(f"the reference defines no {name}")
            self._record_reference_calls(reference["Model"])
            if "ModelNew" not in solution:
                raise _Solution("the solution defines no ModelNew")
            seed = int(self.request.get("seed", 42))
            self.stage = "construct"
            real_weights = self._reference_size(torch, reference) <= int(self.request.get("weights_limit", 1 << 24))
            reference_model, model = self._construct(torch, reference, solution, seed, watch, fake=not real_weights)
            compared = _compare(torch, reference_model, model, environment) if real_weights else \
                {"values_compared": False, "reason": "the reference's weights are too large to build on the CPU"}
            self.facts["parameters"] = dict(compared, draws=self.draws, cuda_random=environment.cuda_random)
            try:
                self._calls(torch, reference, reference_model, model, seed, watch, "fake")
            except _Environment as error:
                # fake tensors cannot follow data-dependent code (`.item()`, `.numpy()`): small problems are run
                # again on real tensors, from freshly built models
                if self._elements > int(self.request.get("real_limit", 1 << 20)) or not real_weights:
                    raise
                self.facts["fake_failure"] = str(error)[:300]
                self.facts["calls"] = []
                reference_model, model = self._construct(torch, reference, solution, seed, watch, fake=False)
                self._calls(torch, reference, reference_model, model, seed, watch, "real")
            if self.events_of("environment"):
                self._probe_environment(torch, reference, before_solution, seed)
        self._threads(threading)

    def events_of(self, kind: str) -> list[dict]:
        return [e for e in self.facts["events"] if e["kind"] == kind]

    def _probe_environment(self, torch, reference: dict, context: dict, seed: int) -> None:
        """The solution read the environment: import and build it again where every variable it looks for is
        set (`_Matching`: each name and value it reads compares equal to what it is compared with, and
        iterating the environment yields such a name), and call forward once more with fresh inputs. Which
        compiled functions that call ran is `probe`; any failure leaves `probe.completed` false."""
        stage, self.stage = self.stage, "probe"
        probe = {"completed": False, "custom": [], "error": None}
        self.facts["probe"] = probe
        budget = float(self.request.get("cpu_seconds") or 0)
        if budget and time.process_time() > budget / 3:  # a second build and call must not cost the whole run
            probe["error"] = f"skipped: {time.process_time():.1f} s of CPU used of {budget:g}"
            self.stage = stage
            return
        environ_class = type(os.environ)

        recorder = self

        class Matching(environ_class):
            def __getitem__(self, key):
                if _reader_line(recorder) is None:  # torch's own reads see the real environment
                    return super().__getitem__(key)
                return _Matching("1")

            def __iter__(self):
                names = list(super().__iter__())
                return iter(names + [_Matching("CUDALINT_DRY_RUN_PROBE")] if _reader_line(recorder) is not None
                            else names)

        environment = self.environment
        fake = environment.fake_mode(self.facts.get("mode") == "fake")
        os.environ.__class__ = Matching
        try:
            solution = dict(context)
            self._exec(self.solution_path, solution)
            init_inputs = self._reference_step(reference["get_init_inputs"])
            torch.manual_seed(seed)
            with environment.active(), fake:
                model = solution["ModelNew"](*init_inputs)
                torch.manual_seed(seed + 2)
                inputs = self._reference_step(reference["get_inputs"])
                call = {"index": 0, "custom": []}
                self.extension.begin(call)
                try:
                    model(*inputs)
                finally:
                    self.extension.end(call, None)
            probe.update(completed=True, custom=call["custom"])
        except _Refused:
            raise
        except BaseException as error:  # noqa: BLE001 - a probe that fails proves nothing
            probe["error"] = f"{type(error).__name__}: {str(error)[:200]}"
        finally:
            os.environ.__class__ = environ_class
            self.stage = stage

    def _construct(self, torch, reference: dict, solution: dict, seed: int, watch, fake: bool):
        """Both models, built as the harness builds them: the same seed before each, on the CPU; on fake
        tensors when `fake` (the draws are recorded all the same, the values are not there to compare)."""
        self.stage = "construct"
        self._progress()
        init_inputs = self._reference_step(reference["get_init_inputs"])
        environment = self.environment
        mode = environment.fake_mode(fake)
        torch.manual_seed(seed)
        environment.draws, environment.drawing_from = [], self.reference_path
        with environment.active(), mode, environment.recording_draws():
            reference_model = self._reference_step(reference["Model"], *init_inputs)
        reference_draws = environment.draws
        torch.manual_seed(seed)
        environment.draws, environment.drawing_from = [], self.solution_path
        with environment.active(), mode, environment.recording_draws():
            model = solution["ModelNew"](*init_inputs)
        self.draws = {"reference": reference_draws[:512], "solution": environment.draws[:512]}
        watch.check("construct")
        return reference_model, model

    def _reference_size(self, torch, reference: dict) -> int:
        """How many elements the reference model's parameters and buffers hold, from a build on fake tensors."""
        environment = self.environment
        with environment.active(), environment.fake_mode():
            model = self._reference_step(reference["Model"], *self._reference_step(reference["get_init_inputs"]))
        return sum(t.numel() for t in list(model.parameters()) + list(model.buffers()))

    def _reference_step(self, function, *args):
        """Run the reference's code: its failures are the environment's, never the solution's."""
        try:
            return function(*args)
        except Exception as error:  # noqa: BLE001
            raise _Environment(f"the reference failed: {type(error).__name__}: {str(error)[:200]}") from error

    def _progress(self) -> None:
        """Leave the stage in the result file, for a run killed before it writes its facts."""
        handle = self.result_handle
        handle.seek(0)
        handle.truncate()
        handle.write(self.dumps({"stage": self.stage}))
        handle.flush()

    def _record_reference_calls(self, model_class) -> None:
        """Record the solution's calls of the reference's forward (delegation found at run time)."""
        original = model_class.__dict__.get("forward")
        if not callable(original):
            return
        recorder = self

        def forward(module, *args, **kwargs):
            if not recorder.in_reference:
                recorder.event("reference-call", f"{model_class.__name__}.forward", recorder.solution_line())
            return original(module, *args, **kwargs)

        model_class.forward = forward

    def _exec(self, path: str, context: dict) -> None:
        with open(path, encoding="utf-8") as handle:
            code = compile(handle.read(), path, "exec")
        with self.environment.active():
            exec(code, context)  # noqa: S102 - the point of the dry run, in its own process

    def _calls(self, torch, reference: dict, reference_model, model, seed: int, watch, mode: str) -> None:
        environment = self.environment
        generator = torch.Generator().manual_seed(seed)
        trial_seeds = [int(torch.randint(0, 2 ** 31 - 1, (1,), generator=generator).item()) for _ in range(2)]
        plan = [("fresh", trial_seeds[0]), ("fresh", trial_seeds[1]), ("same", trial_seeds[1]), ("other seed", seed + 1)]
        self.facts["mode"] = mode
        fake = environment.fake_mode(mode == "fake")  # one mode for every call: call 3 reuses call 2's inputs
        if mode == "fake":
            _fake_weights(torch, (reference_model, model), fake)
        inputs = None
        outputs: list = []
        expected_outputs: dict[str, tuple] = {}
        self._elements = 0
        for index, (how, trial_seed) in enumerate(plan, 1):
            self.stage = f"call {index}"
            self._progress()
            if how != "same":
                torch.manual_seed(trial_seed)
                with environment.active(), fake:
                    inputs = self._reference_step(reference["get_inputs"])
                self._elements = max(self._elements, _elements(torch, inputs))
            call = {"index": index, "inputs": how, "seed": trial_seed, "mode": mode, "completed": False,
                    "custom": [], "output": None, "reference_output": None, "error": None}
            self.facts["calls"].append(call)
            with environment.active(), fake:
                signature = repr([(tuple(t.shape), t.dtype) if isinstance(t, torch.Tensor) else t for t in inputs])
                if signature not in expected_outputs:  # the reference's output depends on the inputs' shapes only
                    self.in_reference = True
                    try:
                        expected = self._reference_step(reference_model, *inputs)
                    finally:
                        self.in_reference = False
                    expected_outputs[signature] = (_describe(torch, expected), _elements(torch, [expected]))
                call["reference_output"], expected_elements = expected_outputs[signature]
                self._elements = max(self._elements, _elements(torch, inputs) + expected_elements)
                versions = [t._version if isinstance(t, torch.Tensor) else None for t in inputs]
                self.extension.begin(call)
                try:
                    output = model(*inputs)
                except (_Refused, _Environment):
                    raise
                except Exception as error:  # noqa: BLE001 - a call that raises is a fact; later calls still run
                    call["error"] = {"type": type(error).__name__, "message": str(error)[:500],
                                     "line": _traceback_line(error, self.watched_files), "cause": _cause(error)}
                    self.extension.end(call, None)
                    outputs.append(None)
                    if call["error"]["cause"] != "solution":
                        raise _Environment(call["error"]["message"]) from error
                    continue
                call["output"] = _describe(torch, output)
                written = [position for position, (tensor, version) in enumerate(zip(inputs, versions))
                           if version is not None and tensor._version != version]
                call["inputs_written"] = sorted(set(written) | self.extension.inputs_written(inputs))
                call["output_is_input"] = _find_alias(torch, output, list(inputs))
                found = _find_alias(torch, output, outputs)
                call["output_is_earlier_output"] = found + 1 if found is not None else None
                call["output_made"] = self.extension.made(output)
                self.extension.end(call, output)
                outputs.append(output)
                call["completed"] = True
        watch.check("calls")

    def _threads(self, threading) -> None:
        for thread in threading.enumerate():
            if thread not in self.threads_before and thread.is_alive():
                self.event("thread-alive", thread.name, getattr(thread, "_cudalint_line", None))


def _fake_weights(torch, models, fake) -> None:
    """Give the models fake copies of their parameters and buffers of more than one element, made once
    (the same tensor stays the same tensor): fake-tensor ops on real weights convert them on every call,
    several times slower (training-mode batch norm ninefold). Scalars stay real, so that `.item()` of one
    still has a value; the weights were compared before, and the run on real tensors rebuilds the models."""
    memo: dict[int, tuple] = {}  # id -> (the real tensor, kept alive so that its id is not reused; its copy)
    for model in models:
        for module in model.modules():
            for store, parameter in ((module._parameters, True), (module._buffers, False)):
                for name, tensor in list(store.items()):
                    if not isinstance(tensor, torch.Tensor) or tensor.numel() <= 1:
                        continue
                    if id(tensor) not in memo:
                        copy = fake.from_tensor(tensor)
                        memo[id(tensor)] = (tensor, torch.nn.Parameter(copy, requires_grad=tensor.requires_grad)
                                            if parameter else copy)
                    store[name] = memo[id(tensor)][1]


def _warm(torch) -> None:
    """Use fake tensors once: their first use imports modules that replace `torch.manual_seed` and others,
    which must happen before the snapshot of torch's objects (and, in `serve`, before the fork); import
    cpp_extension (a second of setuptools) before the fork too."""
    import torch.utils.cpp_extension  # noqa: F401
    from torch._subclasses.fake_tensor import FakeTensorMode

    functional = torch.nn.functional
    with FakeTensorMode():  # the common layers once, so that every forked child finds their code paths warm
        images, rows = torch.randn(2, 4, 8, 8), torch.randn(4, 8)
        functional.relu(functional.conv2d(images, torch.randn(4, 4, 3, 3), padding=1))
        functional.batch_norm(images, torch.zeros(4), torch.ones(4), training=True)
        functional.max_pool2d(images, 2), functional.avg_pool2d(images, 2), functional.adaptive_avg_pool2d(images, 1)
        functional.linear(rows, torch.randn(8, 8), torch.randn(8)), torch.addmm(torch.randn(8), rows, torch.randn(8, 8))
        functional.softmax(rows, -1), functional.gelu(rows), torch.tanh(rows), torch.sigmoid(rows), rows * 2 + 1
        functional.layer_norm(rows, (8,)), torch.matmul(rows, rows.t()).sum(dim=1), torch.zeros_like(rows), rows.view(-1)


class _Solution(Exception):
    """The solution is not a KernelBench solution (no ModelNew)."""


class _Environment(Exception):
    """The dry run cannot follow this solution on the CPU (a CUDA-only call, an op fake tensors lack)."""


# what torch says when the CPU, the cuda stubs or fake tensors, not the solution, stop the run
_ENVIRONMENT_MARKERS = ("not linked with support", "not compiled with CUDA", "CUDA error", "CUDA driver",
                        "DataDependent", "data-dependent", "data dependent", "FakeTensor", "fake tensor", "meta tensor",
                        "Cannot access data pointer", "Cannot access storage", "DynamicOutputShape", "cupy", "triton",
                        "numpy()", "Unsupported", "not implemented for 'Half'", "not implemented for 'BFloat16'",
                        "CUDAGraph", "cuda graph", "CUDA graph", "torch._C._cuda", "_cuda_", "DryRunStandIn",
                        "dry-run stand-in", "cutlass")


def _cause(error: BaseException) -> str:
    """`environment` when the failure may come from running on the CPU or on fake tensors, not from the
    solution; `solution` otherwise."""
    if isinstance(error, (_Environment, ImportError, NotImplementedError, _Refused)):
        return "environment" if not isinstance(error, _Refused) else "refused"
    text = f"{type(error).__name__}: {error}"
    if "can't allocate memory" in text:  # the dry run's address-space limit, met by torch's CPU allocator
        return "limits"
    if any(marker in text for marker in _ENVIRONMENT_MARKERS):
        return "environment"
    return "solution"


def _traceback_line(error: BaseException, files: set[str]) -> int | None:
    line = None
    traceback = error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename in files:
            line = traceback.tb_lineno
        traceback = traceback.tb_next
    return line


def _elements(torch, values) -> int:
    return sum(v.numel() for v in values if isinstance(v, torch.Tensor))


def _describe(torch, value) -> dict:
    if isinstance(value, torch.Tensor):
        return {"kind": "tensor", "shape": list(value.shape), "dtype": str(value.dtype).replace("torch.", "")}
    if isinstance(value, (tuple, list)):
        return {"kind": type(value).__name__, "items": [_describe(torch, v) for v in value][:16]}
    return {"kind": type(value).__name__}


def _find_alias(torch, output, candidates: list) -> int | None:
    """The position in `candidates` of the tensor `output` is, or shares storage with."""
    if not isinstance(output, torch.Tensor):
        return None
    for position, candidate in enumerate(candidates):
        if not isinstance(candidate, torch.Tensor):
            continue
        if candidate is output or _same_storage(candidate, output):
            return position
    return None


def _same_storage(a, b) -> bool:
    from torch._subclasses.fake_tensor import FakeTensor

    if isinstance(a, FakeTensor) or isinstance(b, FakeTensor):
        return False  # no storage to compare: identity alone
    try:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() and a.untyped_storage().nbytes() > 0
    except Exception:  # noqa: BLE001 - fake tensors have no data pointer
        return False


def _compare(torch, reference, solution, environment: _CudaOnCpu) -> dict:
    """Parameters and buffers of both models (names, shapes, dtypes, exact values)."""
    mine = _tensors(torch, solution)
    theirs = _tensors(torch, reference)
    entries = []
    for name, tensor in theirs:
        match = [other for other, candidate in mine if candidate.shape == tensor.shape
                 and candidate.dtype == tensor.dtype and torch.equal(candidate, tensor)]
        same_shape = [other for other, candidate in mine if candidate.shape == tensor.shape
                      and candidate.dtype == tensor.dtype]
        entries.append({"name": name, "shape": list(tensor.shape), "dtype": str(tensor.dtype).replace("torch.", ""),
                        "random": _varies(torch, tensor), "matched_by": match[:4], "same_shape": same_shape[:8]})
    matched = {other for entry in entries for other in entry["matched_by"]}
    unmatched = [{"name": name, "shape": list(tensor.shape), "dtype": str(tensor.dtype).replace("torch.", ""),
                  "random": _varies(torch, tensor), "line": environment.line_of(tensor)}
                 for name, tensor in mine if name not in matched]
    # random draws on a cuda device come from the GPU's generator, which the CPU cannot replay
    return {"values_compared": not environment.cuda_random, "reference": entries, "solution_unmatched": unmatched[:64]}


def _tensors(torch, module) -> list:
    """Registered parameters and buffers, then tensors held as plain attributes of the modules."""
    found, seen = [], set()
    for name, tensor in list(module.named_parameters(remove_duplicate=False)) + list(module.named_buffers()):
        if id(tensor) not in seen:
            seen.add(id(tensor))
            found.append((name, tensor))
    for prefix, sub in module.named_modules():
        for name, value in vars(sub).items():
            if isinstance(value, torch.Tensor) and id(value) not in seen:
                seen.add(id(value))
                found.append((f"{prefix}.{name}" if prefix else name, value))
    return found


def _varies(torch, tensor) -> bool:
    try:
        return tensor.numel() > 1 and not bool((tensor == tensor.flatten()[0]).all())
    except Exception:  # noqa: BLE001
        return False


# ------------------------------------------------------------------------------- cuda on the CPU


class _CudaOnCpu:
    """Tensors live on the CPU but say they are on cuda:0; `torch.cuda`'s runtime calls are stubs."""

    def __init__(self, torch, recorder: _Recorder) -> None:
        self.torch = torch
        self.recorder = recorder
        self.cuda_random = False
        self.created_at: dict[int, int] = {}  # storage address -> the solution's line that made it
        self.draws: list[dict] = []  # the random draws of the model being built
        self.drawing_from: str | None = None  # the file whose lines name them

    def install(self) -> None:
        torch = self.torch
        cuda = torch.cuda
        recorder = self.recorder

        class Recorded(type):
            """The stand-in classes remember the solution's line that replaces one of their methods."""

            def __setattr__(cls, name, value):
                line = recorder.solution_line()
                if line is not None:
                    recorder.attribute_lines[f"torch.cuda.{cls.__name__}.{name}"] = line
                super().__setattr__(name, value)

        class Event(metaclass=Recorded):
            def __init__(self, enable_timing=False, blocking=False, interprocess=False):
                self.recorded = None

            def record(self, stream=None):
                self.recorded = time.perf_counter()

            def synchronize(self):
                return None

            def wait(self, stream=None):
                return None

            def query(self):
                return True

            def elapsed_time(self, end):
                return 1.0

        class Stream(metaclass=Recorded):
            cuda_stream = 0
            device = torch.device("cuda", 0)

            def __init__(self, *args, **kwargs):
                pass

            def synchronize(self):
                return None

            def wait_stream(self, other):
                return None

            def wait_event(self, event):
                return None

            def record_event(self, event=None):
                return event or Event()

            def query(self):
                return True

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

        class StreamContext:
            def __init__(self, stream=None):
                self.stream = stream

            def __enter__(self):
                return self.stream

            def __exit__(self, *exc):
                return False

        class Properties:
            name = "cudalint dry run"
            major, minor = 9, 0
            multi_processor_count = 132
            total_memory = 80 * 1024 ** 3
            max_threads_per_block = 1024
            warp_size = 32

        stream = Stream()
        stubs = {
            "is_available": lambda: True, "device_count": lambda: 1, "current_device": lambda: 0,
            "synchronize": lambda device=None: None, "current_stream": lambda device=None: stream,
            "default_stream": lambda device=None: stream, "Stream": Stream, "Event": Event,
            "stream": StreamContext, "set_device": lambda device: None, "is_initialized": lambda: True,
            "get_device_properties": lambda device=None: Properties(), "get_device_name": lambda device=None: Properties.name,
            "get_device_capability": lambda device=None: (9, 0), "empty_cache": lambda: None,
            "manual_seed": lambda seed: None, "manual_seed_all": lambda seed: None, "init": lambda: None,
            "memory_allocated": lambda device=None: 0, "max_memory_allocated": lambda device=None: 0,
        }
        for name, value in stubs.items():
            setattr(cuda, name, value)

        cpu = torch.device("cpu")
        cuda_device = torch.device("cuda", 0)
        device_type = torch.device
        random_factories = {"rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like",
                            "randint_like", "bernoulli", "multinomial", "uniform_", "normal_"}

        def on_cuda(device) -> bool:
            if isinstance(device, int):
                return True
            if isinstance(device, str):
                return device.startswith("cuda")
            return isinstance(device, device_type) and device.type == "cuda"

        owner = self
        is_cuda = torch._C.TensorBase.__dict__["is_cuda"]
        device_property = torch._C.TensorBase.__dict__["device"]

        class Mode(torch.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = dict(kwargs or {})
                name = getattr(func, "__name__", "")
                owner_object = getattr(func, "__self__", None)
                if owner_object is is_cuda:
                    return True
                if owner_object is device_property:
                    return cuda_device
                if name == "cuda":
                    return args[0]  # the harness's inputs are on the GPU already: `.cuda()` is the tensor itself
                if name == "to" and _to_cuda(args, kwargs, on_cuda):
                    args, kwargs = _without_device(args, kwargs, on_cuda)
                    if not args[1:] and not kwargs:
                        return args[0]
                if "device" in kwargs and on_cuda(kwargs["device"]):
                    kwargs["device"] = cpu
                    if name in random_factories:
                        owner.cuda_random = True
                if recorder.in_reference:
                    recorder.reference_ops.add(name)
                result = func(*args, **kwargs)
                recorder.extension.propagate(args, kwargs, result)
                if isinstance(result, torch.Tensor):
                    if recorder.stage == "construct":
                        owner.note_creation(result)
                    elif recorder.extension.call is not None:
                        recorder.extension.note_made(result, recorder.solution_line())
                return result

        self.mode_type = Mode

    def note_creation(self, tensor) -> None:
        """Remember the solution's line that made a tensor's storage while the models are built."""
        try:
            pointer = tensor.untyped_storage().data_ptr()
        except Exception:  # noqa: BLE001 - no storage (fake, meta)
            return
        if pointer and pointer not in self.created_at:
            line = self.recorder.solution_line()
            if line is not None:
                self.created_at[pointer] = line

    def recording_draws(self):
        """A dispatch mode that records each draw from the random stream (the aten ops nn.init's functions and
        the layers' inits end in): what, of which shape, with which numbers, from which line."""
        from torch.utils._python_dispatch import TorchDispatchMode

        owner, torch = self, self.torch

        class Draws(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                result = func(*args, **kwargs)
                name = func.overloadpacket.__name__
                if name in _RANDOM_OPS and isinstance(result, torch.Tensor):
                    numbers = [a for a in (list(args[1:]) if name.endswith("_") else []) + [
                        v for k, v in sorted(kwargs.items()) if k not in _NOT_NUMBERS]
                        if isinstance(a, (int, float)) and not isinstance(a, bool)]
                    owner.draws.append({"op": name.rstrip("_"), "shape": list(result.shape),
                                        "dtype": str(result.dtype).replace("torch.", ""),
                                        "numbers": [round(float(n), 6) for n in numbers],
                                        "line": owner.recorder.solution_line(path=owner.drawing_from)})
                return result

        return Draws()

    def line_of(self, tensor) -> int | None:
        try:
            return self.created_at.get(tensor.untyped_storage().data_ptr())
        except Exception:  # noqa: BLE001
            return None

    def active(self):
        return self.mode_type()

    def fake_mode(self, enabled: bool = True):
        import contextlib

        if not enabled:
            return contextlib.nullcontext()
        from torch._subclasses.fake_tensor import FakeTensorMode

        return FakeTensorMode(allow_non_fake_inputs=True)


def _to_cuda(args, kwargs, on_cuda) -> bool:
    return any(on_cuda(a) for a in args[1:2]) or on_cuda(kwargs.get("device"))


def _without_device(args, kwargs, on_cuda):
    args = [args[0]] + [a for a in args[1:] if not on_cuda(a)]
    kwargs = {k: v for k, v in kwargs.items() if not (k == "device" and on_cuda(v))}
    return args, kwargs


# ------------------------------------------------------------------------------- the extension model


class _Extensions:
    """`load_inline` and `load` replaced: each returns an object whose functions check their arguments
    by pybind11's conversion rules, record the call and return a tensor of the modelled shape."""

    def __init__(self, torch, recorder: _Recorder, model: list[dict]) -> None:
        self.torch = torch
        self.recorder = recorder
        self.model = model
        self.call: dict | None = None
        self.custom_ids: dict[int, object] = {}  # id -> weakref of tensors derived from custom results
        self.made_at: dict[int, tuple] = {}  # id -> (weakref, line, call index) of custom results
        self.written: list = []  # tensors written by a modelled launcher during this call
        self.pointers: dict[int, object] = {}  # data_ptr() -> weakref of its tensor (real tensors), for raw launches
        self.unmodelled = 0

    def install(self) -> None:
        import torch.utils.cpp_extension as cpp_extension

        owner = self

        def load_inline(name, cpp_sources=None, cuda_sources=None, functions=None, *args, **kwargs):
            line = owner.recorder.solution_line()
            return owner.build(name, functions, line)

        def load(name, sources=None, *args, **kwargs):
            return owner.build(name, None, owner.recorder.solution_line())

        cpp_extension.load_inline = load_inline
        cpp_extension.load = load

    def build(self, name, functions, line):
        if isinstance(functions, str):
            functions = [functions]
        entry = None
        for candidate in self.model:
            if line is not None and candidate["line"] <= line <= candidate.get("end_line", candidate["line"]):
                entry = candidate
        if entry is None and functions:
            entry = next((c for c in self.model if set(c["functions"]) == set(functions)), None)
        if entry is None:
            entry = next((c for c in self.model if c.get("name") == name), None)
        known = dict(entry["functions"]) if entry else {}
        for function in functions or []:
            known.setdefault(function, {"known": False})
        return _ExtensionModule(self, name, known, entry is not None)

    # bookkeeping per forward call
    def begin(self, call: dict) -> None:
        self.call = call
        self.written = []
        self.call_unmodelled = 0

    def end(self, call: dict, output) -> None:
        call["unmodelled_results"] = self.call_unmodelled
        call["output_from_custom"] = self.derives(output) if output is not None else False
        self.call = None

    def inputs_written(self, inputs) -> set[int]:
        found = set()
        for tensor in self.written:
            position = _find_alias(self.torch, tensor, list(inputs))
            if position is not None:
                found.add(position)
        return found

    def made(self, output) -> dict | None:
        if not isinstance(output, self.torch.Tensor):
            return None
        held = self.made_at.get(id(output))
        if held is None or held[0]() is not output:
            return None
        return {"line": held[1], "call": held[2], "function": held[3], "allocation": held[4]}

    def mark(self, tensor) -> None:
        import weakref

        if isinstance(tensor, self.torch.Tensor):
            try:
                self.custom_ids[id(tensor)] = weakref.ref(tensor)
            except TypeError:
                pass

    def derives(self, value) -> bool:
        """Whether `value` (a tensor, or a tuple of them) holds a result of custom work."""
        if isinstance(value, (tuple, list)):
            return any(self.derives(v) for v in value)
        if not isinstance(value, self.torch.Tensor):
            return False
        held = self.custom_ids.get(id(value))
        return held is not None and held() is value

    def propagate(self, args, kwargs, result) -> None:
        """A torch operation on custom results makes custom results (`out.copy_(y)` marks `out`)."""
        if not self.custom_ids:
            return
        flat = list(args) + list(kwargs.values())
        if any(self.derives(a) for a in flat):
            if isinstance(result, (tuple, list)):
                for value in result:
                    self.mark(value)
            else:
                self.mark(result)

    def _record(self, module: str, name: str, modelled: bool, line: int | None) -> dict | None:
        """Count a call of compiled code in this forward call's `custom` entries (one per function and line)."""
        self.recorder.facts["extension_calls"] += 1
        call = self.call
        if call is None:
            return None
        for entry in call["custom"]:
            if entry["function"] == name and entry["line"] == line:
                entry["count"] += 1
                break
        else:
            entry = {"function": name, "extension": module, "line": line, "count": 1, "rejected": 0,
                     "modelled": modelled, "stack": [], "empty": []}
            call["custom"].append(entry)
        entry["stack"] = sorted(set(entry["stack"]) | set(self.recorder.solution_stack()[:16]))
        return entry

    def unmodelled_result(self) -> None:
        """A result whose shape the dry run guessed (a cupy ElementwiseKernel without its output array)."""
        self.unmodelled += 1
        if self.call is not None:
            self.call_unmodelled += 1

    def launch(self, backend: str, name: str, grid, arguments) -> None:
        """A kernel of another backend (Triton, cupy, CuTe DSL) launched: recorded like a compiled call, with
        its grid; it writes nothing here, and every tensor among its arguments may be written by it, so each
        counts as holding custom results (never as proof that an input was written)."""
        line = self.recorder.solution_line()
        entry = self._record(backend, name, False, line)
        if entry is not None and "grid" not in entry:
            entry["grid"] = _plain_grid(grid)
        for value in arguments:
            tensor = _unwrapped(self.torch, value)
            if isinstance(tensor, int) and tensor in self.pointers:  # `x.data_ptr()` passed to a raw kernel
                tensor = self.pointers[tensor]()
            if isinstance(tensor, self.torch.Tensor):
                self.mark(tensor)
                held = self.made_at.get(id(tensor))
                if held is not None and held[0]() is tensor and self.call is not None and held[2] == self.call["index"]:
                    self.note_made(tensor, line, function=name)  # made in this call, then filled by the kernel

    def invoke(self, module: str, name: str, spec: dict, args: tuple, kwargs: dict):
        torch = self.torch
        recorder = self.recorder
        line = recorder.solution_line()
        call = self.call
        entry = self._record(module, name, bool(spec.get("known")), line)
        if spec.get("known"):
            try:
                _check_arguments(torch, name, spec, args, kwargs)
            except TypeError:
                if entry is not None:
                    entry["rejected"] += 1
                raise
            args = _bind(spec, args, kwargs)
        else:
            args = list(args) + list(kwargs.values())
        if entry is not None:
            empty = {i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.numel() == 0}
            entry["empty"] = sorted(set(entry["empty"]) | empty)
        for position in spec.get("writes", []):
            if position < len(args) and isinstance(args[position], torch.Tensor):
                self.written.append(args[position])
                self.mark(args[position])
        result, modelled = self._result(spec, args)
        if not modelled:
            self.unmodelled += 1
            if call is not None:
                self.call_unmodelled += 1
        for tensor in (result if isinstance(result, tuple) else (result,)):
            if isinstance(tensor, torch.Tensor):
                self.mark(tensor)
                self.note_made(tensor, line, function=name, origin=spec.get("result_line") if modelled else None)
        return result

    def note_made(self, tensor, line: int | None, function: str | None = None, origin: int | None = None) -> None:
        """Where the solution made a tensor during a forward call: its line, the call, the compiled function and
        the line of the C++ allocation it returned."""
        import weakref

        if line is None:
            return
        try:
            self.made_at[id(tensor)] = (weakref.ref(tensor), line, self.call["index"] if self.call else None,
                                        function, origin)
        except TypeError:
            pass

    def _result(self, spec: dict, args: list):
        torch = self.torch
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        returns = spec.get("returns", "unknown")
        if returns == "void":
            return None, True
        if returns == "scalar":
            return 0, False
        result = spec.get("result") if spec.get("known") else None
        if returns == "tensor" and result is not None:
            if "same" in result:
                return args[result["same"]], True
            try:
                shape = _shape(result, args)
                dtype = _dtype(torch, result.get("dtype"), args)
            except (IndexError, KeyError, TypeError, ValueError, ZeroDivisionError):
                shape = dtype = None
            if shape is not None and dtype is not None:
                return torch.zeros(shape, dtype=dtype), True
        if not tensors:
            return torch.zeros(()), False
        return torch.zeros_like(tensors[0]), False


class _ExtensionModule:
    def __init__(self, owner: _Extensions, name, functions: dict, modelled: bool) -> None:
        self._owner, self._name, self._functions = owner, name, functions
        self._modelled = modelled

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        spec = self._functions.get(attribute)
        if spec is None:
            if self._modelled and all(s.get("known") for s in self._functions.values()) and self._functions:
                raise AttributeError(f"module '{self._name}' has no attribute '{attribute}'")
            spec = {"known": False}
        owner, module = self._owner, self._name

        def bound(*args, **kwargs):
            return owner.invoke(module, attribute, spec, args, kwargs)

        bound.__name__ = attribute
        return bound


def _check_arguments(torch, name: str, spec: dict, args: tuple, kwargs: dict) -> None:
    params = spec["params"]
    message = _mismatch(torch, spec, args, kwargs)
    if message is not None:
        signature = ", ".join(f"arg{i}: {p['kind']}" for i, p in enumerate(params))
        raise TypeError(f"{name}(): incompatible function arguments. The following argument types are supported:\n"
                        f"    1. ({signature})\n\nInvoked with: {message}")


def _mismatch(torch, spec: dict, args: tuple, kwargs: dict) -> str | None:
    params = spec["params"]
    if kwargs and not spec.get("keywords"):
        return f"keyword argument {next(iter(kwargs))}= (the binding names no arguments)"
    names = [p["name"] for p in params]
    unknown = [k for k in kwargs if k not in names]
    if unknown:
        return f"unknown keyword argument {unknown[0]}="
    given = len(args) + len(kwargs)
    required = len(params) - int(spec.get("defaults") or 0)
    if given > len(params) or given < required:
        return f"{given} argument(s) where the function takes {len(params)}"
    values = list(args) + [kwargs[n] for n in names[len(args):] if n in kwargs]
    for position, (value, param) in enumerate(zip(values, params)):
        why = _rejects(torch, param["kind"], value)
        if why:
            return f"argument {position + 1} ({param['name']}) is {why} where C++ takes {param['kind']}"
    return None


def _rejects(torch, kind: str, value) -> str | None:
    """Why pybind11 cannot convert `value` to a parameter of conversion class `kind`; None when it can."""
    if kind == "tensor":
        return None if isinstance(value, torch.Tensor) else _what(value)
    if kind == "optional_tensor":
        return None if value is None or isinstance(value, torch.Tensor) else _what(value)
    if kind == "int":
        return _what(value) if isinstance(value, float) or value is None or isinstance(value, (str, list, tuple)) \
            else None
    if kind in ("float", "scalar"):
        return _what(value) if value is None or isinstance(value, (str, list, tuple)) else None
    if kind == "int_list":
        return _what(value) if value is None or isinstance(value, (str, float)) else None
    if kind == "string":
        return None if isinstance(value, str) else _what(value)
    return None


def _what(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, (int, float)):
        return f"a Python {type(value).__name__} ({value!r})"
    return f"a {type(value).__name__}"


def _bind(spec: dict, args: tuple, kwargs: dict) -> list:
    names = [p["name"] for p in spec["params"]]
    return list(args) + [kwargs[n] for n in names[len(args):] if n in kwargs]


def _shape(result: dict, args: list) -> list[int]:
    if "like" in result:
        return list(args[result["like"]].shape)
    return [_value(e, args) for e in result["sizes"]]


def _value(expression: dict, args: list) -> int:
    if "int" in expression:
        return int(expression["int"])
    if "arg" in expression:
        value = args[expression["arg"]]
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("not an integer argument")
        return value
    if "size" in expression:
        tensor, dim = expression["size"]
        return int(args[tensor].shape[_value(dim, args)])
    if "numel" in expression:
        return int(args[expression["numel"]].numel())
    if "dim" in expression:
        return int(args[expression["dim"]].dim())
    if "item" in expression:
        sequence, index = expression["item"]
        return int(args[sequence][_value(index, args)])
    left, right = (_value(e, args) for e in expression["args"])
    op = expression["op"]
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":
        return int(left / right) if (left < 0) != (right < 0) else left // right
    return left - right * int(left / right)


def _dtype(torch, dtype, args: list):
    if dtype is None:
        return None
    if isinstance(dtype, dict):
        return args[dtype["of"]].dtype
    return getattr(torch, dtype)


# ------------------------------------------------------------------------------- other backends


_BACKEND_ROOTS = ("triton", "cupy", "cutlass", "cuda")  # cuda: cuda-python, which CuTe DSL solutions use for streams


class _Matching(str):
    """An environment name or value that matches whatever the solution compares it with."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__

    def startswith(self, *args, **kwargs):
        return True

    def endswith(self, *args, **kwargs):
        return True

    def __contains__(self, item):
        return True

    def lower(self):
        return self

    def upper(self):
        return self

    def strip(self, *args):
        return self

    def casefold(self):
        return self


class DryRunStandIn:
    """What a backend module offers that the dry run does not model (annotations such as `tl.constexpr`,
    dtypes, constants, device queries): an attribute, a call, an index or a `with` of it is another
    stand-in. Calling one during forward is recorded (a `stand-in` event): it might have launched work."""

    def __init__(self, name: str, backends: _Backends | None = None) -> None:
        self._name, self._backends = name, backends

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return DryRunStandIn(f"{self._name}.{attribute}", self._backends)

    def __call__(self, *args, **kwargs):
        if self._backends is not None:
            self._backends.stand_in_called(self._name)
        return DryRunStandIn(f"{self._name}()", self._backends)

    def __getitem__(self, key):
        return DryRunStandIn(f"{self._name}[]", self._backends)

    def __instancecheck__(self, instance):
        # `isinstance(k, triton.compiler.CompiledKernel)`: either answer could send the solution down a path it
        # does not take on a GPU; the run stops as the environment's failure (`_ENVIRONMENT_MARKERS`)
        raise TypeError(f"isinstance() against the DryRunStandIn {self._name}")

    def __subclasscheck__(self, subclass):
        raise TypeError(f"issubclass() against the DryRunStandIn {self._name}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self) -> str:
        return f"<dry-run stand-in {self._name}>"


class _Backends:
    """Triton, cupy and CuTe DSL at the Python layer. A backend the solution imports is replaced by modules
    of stand-ins (or, for a Triton that is installed, its decorators are): `@triton.jit` kernels launched as
    `kernel[grid](...)` (also under `triton.autotune`/`heuristics`), cupy's `RawKernel`/`RawModule`/
    `ElementwiseKernel` called, CuTe DSL's `@cute.kernel(...).launch(...)`, `@cute.jit` functions and
    `cute.compile`d ones called: each launch is recorded like a compiled call (see `_Extensions.launch`);
    no device code runs."""

    def __init__(self, torch, recorder: _Recorder, extensions: _Extensions) -> None:
        self.torch, self.recorder, self.extensions = torch, recorder, extensions
        self.installed: dict[str, str] = {}  # backend -> "stand-in" or "intercepted"

    def install(self, text: str) -> None:
        import importlib.util
        import re

        imported = set(re.findall(r"^\s*(?:import|from)\s+(\w+)", text, re.MULTILINE))
        wanted = [root for root in _BACKEND_ROOTS if root in imported]
        if not wanted:
            return
        if "triton" in wanted and importlib.util.find_spec("triton") is not None:
            import triton

            self._triton_api(triton)  # installed: its kernels must not run, its language may stay
            self.installed["triton"] = "intercepted"
            wanted.remove("triton")
        builders = {"triton": self._triton, "cupy": self._cupy, "cutlass": self._cutlass, "cuda": lambda m: None}
        modules: dict[str, object] = {}
        for root in wanted:
            modules[root] = self._module(root)
            builders[root](modules[root])
            self.installed[root] = "stand-in"
        sys.meta_path.insert(0, _StandInFinder(self, modules))
        self.recorder.facts["backends"] = dict(self.installed)
        if "cupy" in modules or "cutlass" in modules:
            self._record_pointers()

    def _record_pointers(self) -> None:
        """Remember which tensor each `data_ptr()` the solution reads belongs to (raw kernels take pointers)."""
        import weakref

        original, pointers = self.torch.Tensor.data_ptr, self.extensions.pointers

        def data_ptr(tensor):
            value = original(tensor)
            if not value and tensor.numel():  # a fake tensor's is 0: one per storage and offset, as on a GPU
                value = tensor.untyped_storage()._cdata + tensor.storage_offset() * tensor.element_size()
            try:
                pointers[value] = weakref.ref(tensor)
            except TypeError:
                pass
            return value

        self.torch.Tensor.data_ptr = data_ptr

    def _module(self, name: str):
        import types

        backends = self

        class StandInModule(types.ModuleType):
            def __getattr__(self, attribute):
                if attribute.startswith("__"):
                    raise AttributeError(attribute)
                return DryRunStandIn(f"{name}.{attribute}", backends)

        module = StandInModule(name)
        module.__version__ = "0.0.0+cudalint-dry-run"
        module.__path__ = []  # a package: its submodules come from the finder
        sys.modules[name] = module
        return module

    def stand_in_called(self, name: str) -> None:
        if self.extensions.call is not None:
            self.recorder.event("stand-in", name, self.recorder.solution_line())

    # Triton

    def _triton_api(self, module) -> type:
        """Triton's decorators on `module`; the stand-in kernel class they make."""
        backends = self

        class Kernel:
            def __init__(self, fn, configs=()):
                self.fn, self.configs = fn, list(configs)
                self.__name__ = getattr(fn, "__name__", "kernel")

            def __getitem__(self, grid):
                return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

            def run(self, *args, grid=None, warmup=False, **kwargs):
                meta = dict(getattr(self.configs[0], "kwargs", {}) if self.configs else {}, **kwargs)
                backends.extensions.launch("triton", self.__name__, _evaluated_grid(grid, meta),
                                           list(args) + list(kwargs.values()))

            def __call__(self, *args, **kwargs):
                raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel")

        def jit(fn=None, **options):
            return Kernel(fn) if fn is not None else (lambda f: Kernel(f))

        def autotune(configs, key=None, **options):
            return lambda kernel: Kernel(getattr(kernel, "fn", kernel), configs)

        def heuristics(values):
            return lambda kernel: kernel if isinstance(kernel, Kernel) else Kernel(kernel)

        module.jit, module.autotune, module.heuristics = jit, autotune, heuristics
        self._wrap_triton(Kernel)
        return Kernel

    def _wrap_triton(self, kernel_class) -> None:
        """`torch.library.wrap_triton(kernel)` (how a `torch.library.triton_op` launches) returns a stand-in
        kernel as it is: torch's own checks the kernel against Triton's classes, which a stand-in is not an
        instance of, and raised a TypeError (or RuntimeError) the solution never causes on a GPU."""
        import importlib

        try:
            library = importlib.import_module("torch._library.triton")
        except ImportError:
            return
        original = getattr(library, "wrap_triton", None)
        if original is None:
            return

        def wrap_triton(kernel):
            return kernel if isinstance(kernel, kernel_class) else original(kernel)

        library.wrap_triton = wrap_triton
        if getattr(self.torch.library, "wrap_triton", None) is original:
            self.torch.library.wrap_triton = wrap_triton

    def _triton(self, module) -> None:
        class Config:
            def __init__(self, kwargs=None, num_warps=4, num_stages=2, **options):
                self.kwargs, self.num_warps, self.num_stages = dict(kwargs or {}), num_warps, num_stages

        class constexpr:  # noqa: N801 - triton.language's name
            def __init__(self, value=None):
                self.value = value

        kernel = self._triton_api(module)
        # the classes torch's `triton_op` and `wrap_triton` test kernels against (`isinstance`)
        runtime = self._module("triton.runtime")
        runtime.jit, runtime.autotuner = self._module("triton.runtime.jit"), self._module("triton.runtime.autotuner")
        runtime.jit.JITFunction = runtime.autotuner.Autotuner = runtime.JITFunction = runtime.Autotuner = kernel
        module.runtime = runtime
        module.Config = Config
        module.cdiv = lambda a, b: -(-a // b)
        module.next_power_of_2 = lambda n: 1 << max(int(n) - 1, 0).bit_length()
        language = self._module("triton.language")
        language.constexpr = constexpr
        module.language = language

    # cupy

    def _cupy(self, module) -> None:
        backends, torch = self, self.torch

        class Array:
            """A cupy array over a torch tensor (`cp.asarray(t)`, `cp.from_dlpack(t)`)."""

            def __init__(self, tensor):
                self.tensor = tensor
                self.shape, self.size, self.ndim = tuple(tensor.shape), tensor.numel(), tensor.dim()

            def __dlpack__(self, *args, **kwargs):
                return self

            def toDlpack(self):  # noqa: N802 - cupy's name
                return self

            def __getattr__(self, attribute):
                if attribute.startswith("__"):
                    raise AttributeError(attribute)
                return DryRunStandIn(f"cupy.ndarray.{attribute}", backends)

        def array(value, *args, **kwargs):
            value = _unwrapped(torch, value)
            if isinstance(value, torch.Tensor):
                return Array(value)
            return DryRunStandIn("cupy.asarray()", backends)

        class RawKernel:
            def __init__(self, code=None, name="kernel", *args, **kwargs):
                self.name = name

            def __call__(self, grid, block, args=(), *rest, **kwargs):
                backends.extensions.launch("cupy", self.name, grid, list(args))

            def __getattr__(self, attribute):
                if attribute.startswith("__"):
                    raise AttributeError(attribute)
                return DryRunStandIn(f"cupy.RawKernel.{attribute}", backends)

        class RawModule:
            def __init__(self, *args, **kwargs):
                pass

            def get_function(self, name):
                return RawKernel(None, name)

        class ElementwiseKernel:
            def __init__(self, in_params="", out_params="", operation="", name="kernel", *args, **kwargs):
                self.name, self.inputs = name, len([p for p in in_params.split(",") if p.strip()])

            def __call__(self, *args, **kwargs):
                backends.extensions.launch("cupy", self.name, None, list(args) + list(kwargs.values()))
                if len(args) > self.inputs:
                    return args[-1]  # the output array given
                first = next((_unwrapped(torch, a) for a in args if isinstance(_unwrapped(torch, a), torch.Tensor)),
                             None)
                result = torch.empty_like(first) if first is not None else torch.zeros(())
                backends.extensions.unmodelled_result()
                backends.extensions.mark(result)
                return Array(result)

        module.ndarray = Array
        module.asarray = module.array = module.from_dlpack = module.fromDlpack = module.ascontiguousarray = array
        module.RawKernel, module.RawModule = RawKernel, RawModule
        module.ElementwiseKernel = module.ReductionKernel = ElementwiseKernel
        for name in ("int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "intp"):
            setattr(module, name, int)
        for name in ("float16", "float32", "float64", "double", "single"):
            setattr(module, name, float)
        cuda = self._module("cupy.cuda")
        cuda.ExternalStream = cuda.Stream = cuda.Device = lambda *args, **kwargs: DryRunStandIn("cupy.cuda.Stream")
        cuda.get_current_stream = lambda *args, **kwargs: DryRunStandIn("cupy.cuda.Stream")
        module.cuda = cuda

    # CuTe DSL

    def _cutlass(self, module) -> None:
        backends, torch = self, self.torch

        class Launch:
            def __init__(self, name, args):
                self.name, self.args = name, args

            def launch(self, grid=None, block=None, **kwargs):
                backends.extensions.launch("cute", self.name, grid, self.args)

        class Kernel:
            def __init__(self, fn):
                self.fn, self.__name__ = fn, getattr(fn, "__name__", "kernel")

            def __call__(self, *args, **kwargs):
                return Launch(self.__name__, list(args) + list(kwargs.values()))

        class Jit:
            """A `@cute.jit` host function or a `cute.compile`d one: calling it from the solution launches."""

            def __init__(self, fn):
                self.fn, self.__name__ = fn, getattr(fn, "__name__", "jit")

            def __call__(self, *args, **kwargs):
                backends.extensions.launch("cute", self.__name__, None, list(args) + list(kwargs.values()))

            def __get__(self, instance, owner=None):
                if instance is None:
                    return self
                return lambda *args, **kwargs: self(instance, *args, **kwargs)

        class Wrapped:
            """`from_dlpack(tensor)`: the tensor inside; its layout methods return it again."""

            def __init__(self, tensor):
                self.tensor = tensor

            def __getattr__(self, attribute):
                if attribute.startswith("__"):
                    raise AttributeError(attribute)
                return lambda *args, **kwargs: self

        def decorator(kind):
            def apply(fn=None, **options):
                return kind(fn) if fn is not None else (lambda f: kind(f))
            return apply

        def from_dlpack(value, *args, **kwargs):
            value = _unwrapped(torch, value)
            return Wrapped(value) if isinstance(value, torch.Tensor) else DryRunStandIn("from_dlpack()", backends)

        cute = self._module("cutlass.cute")
        cute.kernel, cute.jit = decorator(Kernel), decorator(Jit)
        cute.compile = lambda fn, *args, **kwargs: Jit(getattr(fn, "fn", fn))
        runtime = self._module("cutlass.cute.runtime")
        runtime.from_dlpack = from_dlpack
        cute.runtime = runtime
        module.cute = cute


class _StandInFinder:
    """Serves the stand-in modules and, on demand, stand-in submodules of them (`triton.language.extra`)."""

    def __init__(self, backends: _Backends, modules: dict) -> None:
        self.backends, self.roots = backends, set(modules)

    def find_spec(self, name, path=None, target=None):
        import importlib.machinery

        if name.split(".", 1)[0] not in self.roots:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        return sys.modules.get(spec.name) or self.backends._module(spec.name)

    def exec_module(self, module) -> None:
        parent, _, child = module.__name__.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], child, module)


def _unwrapped(torch, value):
    """The torch tensor a backend's wrapper holds (a cupy array, a CuTe tensor), or the value itself."""
    return getattr(value, "tensor", value) if not isinstance(value, torch.Tensor) else value


def _evaluated_grid(grid, meta: dict):
    if callable(grid):
        try:
            return grid(meta)
        except Exception:  # noqa: BLE001 - a grid of meta-parameters the stand-in does not know
            return None
    return grid


def _plain_grid(grid) -> list[int] | None:
    if isinstance(grid, int) and not isinstance(grid, bool):
        return [grid]
    if isinstance(grid, (tuple, list)) and all(isinstance(g, int) and not isinstance(g, bool) for g in grid):
        return [int(g) for g in grid]
    return None


# ------------------------------------------------------------------------------- watching torch


class _Watch:
    """What the solution replaces of torch and the harness, and the flags it changes: compared after each
    stage with a snapshot taken before the solution ran."""

    def __init__(self, torch, recorder: _Recorder) -> None:
        self.torch = torch
        self.recorder = recorder
        self.lines = recorder.attribute_lines
        self._flag_lines()
        self.snapshot = self._take()
        self.flags = self._flags()
        self.attribute_lines()

    def _objects(self) -> dict:
        import importlib

        found = {}
        for name in _WATCHED_MODULES + _WATCHED_CLASSES:
            module_name, _, attribute = name.rpartition(".")
            try:
                target = importlib.import_module(name) if name in _WATCHED_MODULES else \
                    getattr(importlib.import_module(module_name), attribute)
            except (ImportError, AttributeError):
                continue
            found[name] = target
        return found

    def _take(self) -> dict:
        snapshot = {}
        for name, target in self._objects().items():
            for attribute, value in list(vars(target).items()):
                if not attribute.startswith("__"):
                    snapshot[f"{name}.{attribute}"] = id(value)
        return snapshot

    def _flags(self) -> dict:
        values = {}
        for name, read in _FLAGS.items():
            try:
                values[name] = read(self.torch)
            except Exception:  # noqa: BLE001 - a flag this torch lacks
                continue
        return values

    def _flag_lines(self) -> None:
        """Remember the solution's line that last set a precision flag (`torch.backends.cuda.matmul.*`,
        `torch.backends.cudnn.*`, `torch.set_float32_matmul_precision`), however it reached the setter."""
        torch, recorder, lines = self.torch, self.recorder, self.lines

        def remember() -> None:
            line = recorder.solution_line()
            if line is not None:
                lines["flags"] = line

        for target in (torch.backends.cuda.matmul, torch.backends.cudnn):
            kind = type(target)
            original = kind.__setattr__

            def __setattr__(self, name, value, _original=original):  # noqa: N807
                remember()
                _original(self, name, value)

            kind.__setattr__ = __setattr__
        setter = torch.set_float32_matmul_precision

        def set_float32_matmul_precision(precision):
            remember()
            return setter(precision)

        torch.set_float32_matmul_precision = set_float32_matmul_precision

    def attribute_lines(self) -> None:
        """Give the watched plain modules a class whose `__setattr__` remembers the solution's line, so that a
        replaced object is named with the line that replaced it."""
        import types

        recorder, lines = self.recorder, self.lines

        class Watched(types.ModuleType):
            def __setattr__(self, name, value):
                line = recorder.solution_line()
                if line is not None:
                    lines[f"{self.__name__}.{name}"] = line
                super().__setattr__(name, value)

        for name, target in self._objects().items():
            if type(target) is types.ModuleType:
                target.__class__ = Watched

    def check(self, stage: str) -> None:
        now = self._take()
        for name, identity in now.items():
            if self.snapshot.get(name, identity) != identity:
                self.recorder.event("replaced", name, self.lines.get(name))
        for name, value in self._flags().items():
            if name in self.flags and self.flags[name] != value:
                self.recorder.event("flag", f"{name}: {self.flags[name]!r} -> {value!r}", self.lines.get("flags"),
                                    flag=name, before=self.flags[name], after=value)
        self.snapshot.update(now)
        self.flags.update(self._flags())


def _reader_line(recorder: _Recorder) -> int | None:
    """The solution's line when its own code reads the environment (through `os.getenv`, `.get`, `in`,
    `keys()`, ...); None when torch or another library does, even if the solution called that library."""
    import _collections_abc

    skipped = {os.__file__, _collections_abc.__file__, __file__, "<frozen os>", "<frozen _collections_abc>"}
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename in skipped:
        frame = frame.f_back
    if frame is not None and frame.f_code.co_filename == recorder.solution_path:
        return frame.f_lineno
    return None


def _record_environment_reads(recorder: _Recorder) -> None:
    environ_type = type(os.environ)

    class RecordingEnviron(environ_type):
        def __getitem__(self, key):
            line = _reader_line(recorder)
            if line is not None:
                recorder.event("environment", str(key), line)
            return super().__getitem__(key)

        def __iter__(self):
            line = _reader_line(recorder)
            if line is not None:
                recorder.event("environment", "*", line)  # every name: `for k in os.environ`, keys(), items()
            return super().__iter__()

    os.environ.__class__ = RecordingEnviron


def _record_thread_starts(recorder: _Recorder) -> None:
    import threading

    start = threading.Thread.start

    def recorded_start(self, *args, **kwargs):
        line = recorder.solution_line()
        if line is not None:
            self._cudalint_line = line
            recorder.event("thread", self.name, line)
        return start(self, *args, **kwargs)

    threading.Thread.start = recorded_start


# ------------------------------------------------------------------------------- forked workers


def serve() -> None:
    """Read requests (one JSON object a line) on stdin; fork a child for each, which runs it in a session of
    its own; answer with the child's exit status (or `timeout`) on stdout. torch is imported once, here."""
    import signal

    import torch

    _warm(torch)  # what the children inherit

    parent = os.getppid()
    for line in sys.stdin:
        request = json.loads(line)
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                quiet = os.open(os.devnull, os.O_RDWR)
                for stream in (0, 1, 2):  # the solution's prints must not reach the server's replies
                    os.dup2(quiet, stream)
                run(request)
            finally:
                os._exit(70)
        deadline = started + float(request.get("timeout", 10))
        status = None
        while status is None:
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = raw
                break
            orphaned = os.getppid() != parent  # cudalint died: stop its child and ourselves
            if time.monotonic() > deadline or orphaned:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
                if orphaned:
                    return
                status = "timeout"
                break
            time.sleep(0.005)
        if status != "timeout":
            status = {"exit": os.waitstatus_to_exitcode(status)}
        sys.stdout.write(json.dumps({"id": request.get("id"), "status": status,
                                     "seconds": round(time.monotonic() - started, 3)}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        sys.exit(main(sys.argv))
