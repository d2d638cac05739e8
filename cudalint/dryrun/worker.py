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
in objects reachable only from the worker's frames; the audit hook (installed first, irremovable)
refuses `gc.get_objects`/`get_referrers`/`get_referents`, `ctypes`, `fork`/`exec`/`subprocess`, sockets
and opening the result file to the solution, and records `sys._getframe`. What remains: a solution can
still walk frames once it has one (`sys._getframe` is recorded, not refused: `warnings` needs it) and
reach the recorder's locals, or replace torch functions the recorder calls after it (recorded as
replaced objects). The parent treats every fact as the solution's claim about itself: facts only ever
lift a static claim when they prove the solution did the work the claim denies.

The worker's modules, beside it (imported as a package or, run as a script, from its folder; none imports
anything of cudalint): `cuda_on_cpu` ("cuda" on the CPU), `extension_calls` (the compiled extensions'
model: their calls checked, recorded and answered), `stand_ins` (Triton, cupy, CuTe DSL and cuda-python
at the Python layer) and `watching` (what the solution replaces of torch, the flags it changes, its
environment reads and threads). This file holds the recorder (the audit hook, the replayed harness, the
observation of the forward calls and their comparison) and the server of forked workers.
"""

from __future__ import annotations

import json
import os
import sys
import time

if __package__:
    from . import cuda_on_cpu, extension_calls, stand_ins, watching
else:  # run as a script: the modules beside it
    import cuda_on_cpu
    import extension_calls
    import stand_ins
    import watching

_REFUSED_EVENTS = ("gc.get_objects", "gc.get_referrers", "gc.get_referents", "ctypes.", "os.fork", "os.forkpty",
                   "os.posix_spawn", "os.spawn", "os.exec", "os.system", "subprocess.Popen", "socket.connect",
                   "socket.bind", "socket.sendto", "os.kill", "os.killpg", "pty.spawn")
_RECORDED_EVENTS = ("sys._getframe", "sys._current_frames", "sys.settrace", "sys.setprofile")
SCHEMA_VERSION = 1


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
    recorder = Recorder(request)
    code = recorder.execute()
    os._exit(code)


class Recorder:
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
                        _cause(error, self.watched_files))
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
        environment = cuda_on_cpu.CudaOnCpu(torch, self)
        environment.install()
        self.environment = environment
        extension = extension_calls.Extensions(torch, self, self.request.get("extension") or [])
        extension.install()
        self.extension = extension
        with open(self.solution_path, encoding="utf-8", errors="surrogateescape") as handle:
            stand_ins.Backends(torch, self, extension).install(handle.read())
        watching.record_environment_reads(self)
        watching.record_thread_starts(self)
        with torch.no_grad():
            watch = self.watch = watching.Watch(torch, self)
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
        set (`stand_ins.Matching`: each name and value it reads compares equal to what it is compared with, and
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
                if watching.reader_line(recorder) is None:  # torch's own reads see the real environment
                    return super().__getitem__(key)
                return stand_ins.Matching("1")

            def __iter__(self):
                names = list(super().__iter__())
                if watching.reader_line(recorder) is None:
                    return iter(names)
                return iter(names + [stand_ins.Matching("CUDALINT_DRY_RUN_PROBE")])

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
                                     "line": _traceback_line(error, self.watched_files),
                                     "cause": _cause(error, self.watched_files)}
                    self.extension.end(call, None)
                    outputs.append(None)
                    if call["error"]["cause"] != "solution":
                        raise _Environment(call["error"]["message"]) from error
                    continue
                call["output"] = _describe(torch, output)
                written = [position for position, (tensor, version) in enumerate(zip(inputs, versions))
                           if version is not None and tensor._version != version]
                call["inputs_written"] = sorted(set(written) | self.extension.inputs_written(inputs))
                call["output_is_input"] = extension_calls.find_alias(torch, output, list(inputs))
                found = extension_calls.find_alias(torch, output, outputs)
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


def _cause(error: BaseException, files: set[str]) -> str:
    """Whose failure an error is. `solution` only when it was raised in the solution's own code: the innermost
    frame of its traceback is in one of the solution's `files` (what C code the solution calls raises, raises
    there), the dry run's model of a compiled function counting as the C code it stands for (pybind11's
    refusal of a call is raised at the solution's line). An error raised in torch's Python, the standard
    library's, or a stand-in's (CUDA on the CPU, Triton, cupy, CuTe), whatever its message says, is the
    `environment`'s: the solution may have passed it something wrong, but the dry run cannot tell that from
    its own stand-ins and fake tensors. Of the solution's own errors, those whose message names what the CPU
    or fake tensors lack are the environment's too."""
    if isinstance(error, (_Environment, ImportError, NotImplementedError, _Refused)):
        return "environment" if not isinstance(error, _Refused) else "refused"
    text = f"{type(error).__name__}: {error}"
    if "can't allocate memory" in text:  # the dry run's address-space limit, met by torch's CPU allocator
        return "limits"
    if _raised_at(error) not in files or any(marker in text for marker in _ENVIRONMENT_MARKERS):
        return "environment"
    return "solution"


# the dry run's model of the compiled functions: what it raises, their C++ (through pybind11) would raise
_COMPILED_MODEL = frozenset(os.path.abspath(os.path.join(os.path.dirname(__file__), name))
                            for name in ("extension_calls.py", "extension.py"))


def _raised_at(error: BaseException) -> str | None:
    """The file of the innermost frame an error passed through, frames of the compiled functions' model left
    out (they stand for C code, which has no Python frame), and so are a library's `__getattr__` frames
    raising AttributeError (`nn.Module`'s: attribute lookup, raised where the solution reads the attribute;
    a stand-in's stays the environment's)."""
    raised = None
    traceback = error.__traceback__
    while traceback is not None:
        code = traceback.tb_frame.f_code
        path = os.path.abspath(code.co_filename)
        lookup = isinstance(error, AttributeError) and code.co_name == "__getattr__" \
            and os.path.dirname(path) != os.path.dirname(os.path.abspath(__file__))
        if path not in _COMPILED_MODEL and not lookup:
            raised = code.co_filename
        traceback = traceback.tb_next
    return raised


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


def _compare(torch, reference, solution, environment: cuda_on_cpu.CudaOnCpu) -> dict:
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
