"""`verify --ray`: the batch's jobs as tasks of a Ray cluster (the optional `ray` extra).

The batch is the same as on one machine (`cudalint.verify.runner`: phases, records, results table); only
where its jobs run changes. Builds are CPU tasks (`BUILD_CPUS` logical CPUs each, no GPU); correctness and
timing runs and sanitizer runs are GPU tasks holding one whole GPU (`num_gpus=1`: Ray gives that device to
no other task while one runs, so a timing never shares its GPU), and all builds finish before the first
run starts. Each task runs its job through `cudalint.verify.jobs.execute` on its node: the candidate still
runs in a worker process of its own, scrubbed, without network where the node allows, and killed at its
time limit.

Nodes need not share a file system: the solution and reference travel with each task, and a build's
extension directories come back as an archive that the candidate's GPU tasks unpack into their node's
build cache (`--cache DIR`, else each node's default) unless they are there already. A task that ends
without a result (its node lost, its Ray worker killed, by the candidate or otherwise) is that job's
`worker_error`, never retried (the candidate may be what killed it); the sweep goes on.
"""

from __future__ import annotations

import dataclasses
import io
import logging
import os
import shutil
import tarfile
import tempfile

from cudalint.verify.gpus import Gpu, detect_gpus
from cudalint.verify.isolation import WorkerOutcome
from cudalint.verify.jobs import JobDone, JobResult, WorkerJob, cache_namespace, execute

BUILD_CPUS = 2  # a load_inline build compiles two units (main.cpp, cuda.cu) at most at once
PROBE_TIMEOUT = 120.0


class ClusterUnavailable(ValueError):
    """Ray could not be started or reached."""


def run_on_node(job: WorkerJob, archive: bytes | None) -> tuple[JobResult, bytes | None]:
    """The Ray task: `job` on this node (its files written here, the build's archive unpacked into the
    cache); a build also returns its extension directories as an archive."""
    import ray

    from cudalint.verify.build_cache import default_cache_dir

    cache_dir = job.request.get("cache_dir") or default_cache_dir()
    os.makedirs(cache_dir, exist_ok=True)
    # the candidate's own part of the cache (`jobs.cache_namespace`), where its build wrote
    solution = (job.files or {}).get("solution")
    space = cache_namespace(cache_dir, solution[1]) if solution else cache_dir
    if archive:
        unpack_extensions(archive, space)
    # Ray names the GPU it gave this task in CUDA_VISIBLE_DEVICES
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "") if job.gpu and job.device == "cuda" else None
    with tempfile.TemporaryDirectory(prefix="cudalint-ray-") as staging:
        request = dict(job.request, cache_dir=cache_dir)
        for key, (name, data) in (job.files or {}).items():
            os.makedirs(os.path.join(staging, key))
            request[key] = os.path.join(staging, key, name)
            with open(request[key], "wb") as handle:
                handle.write(data)
        result = execute(dataclasses.replace(job, request=request, visible=visible, files=None))
    if job.gpu:
        context = ray.get_runtime_context()
        result.gpu = {"id": visible, "name": "", "node": context.get_node_id(),
                      "host": ray.util.get_node_ip_address()}
    return result, pack_extensions(result.outcome.result, space) if job.mode == "build" else None


def node_gpus() -> list[Gpu]:
    """The GPUs of this node, as nvidia-smi lists them (whatever CUDA_VISIBLE_DEVICES Ray set)."""
    return detect_gpus(None, environ={})


def pack_extensions(result: dict, cache_dir: str) -> bytes | None:
    """The build cache's directories of the extensions in a worker's `result`, as a tar.gz (plain files
    only: no links, no build lock); None when it built nothing into the cache."""
    root = os.path.realpath(os.path.join(cache_dir, "ext"))
    directories = sorted({os.path.realpath(e["directory"]) for e in result.get("extensions") or []
                          if e.get("directory")})
    inside = [d for d in directories if os.path.dirname(d) == root and os.path.isdir(d)]
    if not inside:
        return None

    def plain(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
        kept = (member.isfile() or member.isdir()) and os.path.basename(member.name) != "lock"
        return member if kept else None

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as archive:
        for directory in inside:
            archive.add(directory, arcname=os.path.basename(directory), filter=plain)
    return buffer.getvalue()


def unpack_extensions(archive: bytes, cache_dir: str) -> list[str]:
    """Put the extension directories of `archive` into `cache_dir/ext`, each one that is not there yet
    (a shared cache, or another task of this node, has it), atomically; the names put there."""
    root = os.path.join(cache_dir, "ext")
    os.makedirs(root, exist_ok=True)
    placed = []
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        members = tar.getmembers()
        missing = {m.name.split("/", 1)[0] for m in members} - set(os.listdir(root))
        if not missing:
            return placed
        staging = tempfile.mkdtemp(prefix=".unpack-", dir=root)
        try:
            extract = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(staging, members=[m for m in members if m.name.split("/", 1)[0] in missing], **extract)
            for name in sorted(missing):
                try:
                    os.rename(os.path.join(staging, name), os.path.join(root, name))
                    placed.append(name)
                except OSError:
                    pass  # another task of this node put it there meanwhile
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return placed


class RayExecutor:
    """Jobs as tasks of a Ray cluster: `address` (None: `ray.init()`'s, a running local cluster or a new one)."""

    local = False

    def __init__(self, address: str | None) -> None:
        import ray

        self.ray = ray
        self.owned = not ray.is_initialized()  # a caller's own ray.init() is left to the caller
        if self.owned:
            try:
                ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as error:
                raise ClusterUnavailable(f"cannot reach the Ray cluster{f' at {address}' if address else ''}: "
                                         f"{error}") from None
        self.task = ray.remote(max_retries=0)(run_on_node)
        self.probe = ray.remote(max_retries=0)(node_gpus)
        self.archives: dict[int, object] = {}  # candidate index -> the object ref of its build's archive

    def _alive(self) -> list[dict]:
        return [node for node in self.ray.nodes() if node.get("Alive")]

    def gpus(self, explicit: list[str] | None) -> list[Gpu]:
        """One entry per GPU of the cluster, with the name and capability its node's nvidia-smi gives."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        nodes = [node for node in self._alive() if node["Resources"].get("GPU")]
        probes = [self.probe.options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(
            node["NodeID"], soft=False)).remote() for node in nodes]
        found = []
        for node, probe in zip(nodes, probes):
            try:
                known = [gpu for gpu in self.ray.get(probe, timeout=PROBE_TIMEOUT) if gpu.id.isdigit()]
            except self.ray.exceptions.RayError:
                known = []
            for index in range(int(node["Resources"]["GPU"])):
                gpu = known[index] if index < len(known) else Gpu(str(index))
                found.append(Gpu(f"{node['NodeID'][:12]}:{index}", gpu.name, gpu.capability))
        return found

    def run_builds(self, jobs: list[WorkerJob], done: JobDone) -> None:
        largest = max((node["Resources"].get("CPU", 0) for node in self._alive()), default=1)
        cpus = max(1, min(BUILD_CPUS, int(largest)))  # a build must fit on some node
        submitted = {}
        for job in jobs:
            placed = dataclasses.replace(job, extra_env=dict(job.extra_env, MAX_JOBS=str(cpus)))
            result, archive = self.task.options(num_cpus=cpus, num_gpus=0, num_returns=2).remote(placed, None)
            self.archives[job.group] = archive
            submitted[result] = job
        self._collect(submitted, done)

    def run_on_gpus(self, jobs: list[WorkerJob], gpus: list[Gpu], done: JobDone, overlap: int = 1) -> None:
        """Each job a task holding a whole GPU (`overlap` is for local runs: a task's workers start one after
        the other)."""
        submitted = {}
        for job in jobs:
            slot = {"num_gpus": 1} if job.device == "cuda" else {"num_gpus": 0}
            # spread over the nodes' GPUs: the default strategy prefers the node that holds the build archive
            result, _ = self.task.options(num_cpus=1, num_returns=2, scheduling_strategy="SPREAD",
                                          **slot).remote(job, self.archives.get(job.group))
            submitted[result] = job
        self._collect(submitted, done)

    def _collect(self, submitted: dict, done: JobDone) -> None:
        """`done(job, result)` for each task as it finishes; a task that died gives a worker_error."""
        while submitted:
            ready, _ = self.ray.wait(list(submitted), num_returns=1)
            for reference in ready:
                job = submitted.pop(reference)
                try:
                    result = self.ray.get(reference)
                except self.ray.exceptions.RayError as error:
                    cause = str(error).strip().splitlines()
                    result = JobResult(WorkerOutcome("worker_error", f"the Ray task of this {job.mode} ended without "
                                                     f"a result: {type(error).__name__}"
                                                     + (f": {cause[0][:300]}" if cause else "")))
                done(job, result)

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()


__all__ = ["BUILD_CPUS", "ClusterUnavailable", "RayExecutor", "node_gpus", "pack_extensions", "run_on_node",
           "unpack_extensions"]
