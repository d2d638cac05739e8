"""`cudalint verify --ray` on a local two-node Ray cluster (`ray.cluster_utils.Cluster`), each node with two
logical CPUs and one fake GPU: the batch's real scheduling code (Ray tasks, resources, build archives,
staged files, the results file) with the CPU stand-in worker (tests/fixtures/verify/standin_worker.py)
in place of the GPU worker. Skipped when ray is not installed (the `ray` extra)."""

from __future__ import annotations

import io
import json
import sys
import tarfile
import time
from pathlib import Path

import pytest

# a Ray cluster started (`pytest -m slow`, with the test-full extra); one xdist worker runs all that start one
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]
pytest.importorskip("ray")

from ray.cluster_utils import Cluster  # noqa: E402

from cudalint.verify.ray_cluster import pack_extensions, unpack_extensions  # noqa: E402
from cudalint.verify.runner import Candidate, VerifyOptions, verify_batch  # noqa: E402

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures" / "verify"
STANDIN = [sys.executable, str(FIXTURES / "standin_worker.py")]
RELU_REF = FIXTURES / "problems" / "level1" / "19_ReLU.py"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The cluster, and the stand-in's log: the nodes' workers have the environment the nodes started with."""
    log = tmp_path_factory.mktemp("standin") / "log.jsonl"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STANDIN_LOG", str(log))
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2, "num_gpus": 1})
        cluster.add_node(num_cpus=2, num_gpus=1)
        cluster.wait_for_nodes()
    yield cluster, log
    cluster.shutdown()


@pytest.fixture()
def address(cluster) -> str:
    cluster, log = cluster
    log.unlink(missing_ok=True)
    return cluster.address


@pytest.fixture()
def log(cluster) -> Path:
    return cluster[1]


def _options(tmp_path: Path, **changes) -> VerifyOptions:
    base = dict(worker=STANDIN, cache_dir=str(tmp_path / "cache"), lint=False, run_timeout=4.0, build_timeout=20.0,
                sanitize_timeout=20.0, pass_env=("STANDIN_LOG",))
    base.update(changes)
    return VerifyOptions(**base)


def _candidate(tmp_path: Path, name: str, behaviour: str) -> Candidate:
    statement = "y[0] = BROKEN;" if behaviour == "compile" else "y[0] = 1.0f;"
    path = tmp_path / f"{name}.py"
    path.write_text(f'# standin: {behaviour}\nfrom torch.utils.cpp_extension import load_inline\n\nsource = """\n'
                    f'__global__ void k(float* y) {{\n  {statement}\n}}\n"""\n'
                    f'mod = load_inline(name="m", cpp_sources="", cuda_sources=source, functions=[])\n')
    return Candidate(str(path), str(RELU_REF))


def _log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _verdicts(records: list[dict]) -> list[tuple]:
    """What a record says about its candidate (not where its files were, nor the times measured)."""
    return [(r["name"], r["status"], r["message"], [(e["py_line"], e["message"]) for e in r["compile_errors"]],
             r["correctness"], (r["timing"] or {}).get("status")) for r in records]


def test_builds_on_cpu_slots_runs_on_one_gpu_each_and_verdicts_as_a_local_run(address: str, log: Path,
                                                                               tmp_path: Path, monkeypatch) -> None:
    behaviours = ["ok", "incorrect", "crash", "hang", "compile", "illegal", "ok", "ok"]
    candidates = [_candidate(tmp_path, f"s{i}_{b}", b) for i, b in enumerate(behaviours)]
    events = []
    records = verify_batch(candidates, _options(tmp_path, ray=address),
                           lambda phase, record: events.append((phase, record.get("name"), record.get("total"))))
    statuses = {r["name"]: r["status"] for r in records}
    assert statuses == {"s0_ok": "correct", "s1_incorrect": "incorrect", "s2_crash": "crash", "s3_hang": "timeout",
                        "s4_compile": "compile_error", "s5_illegal": "illegal_address", "s6_ok": "correct",
                        "s7_ok": "correct"}
    # progress: each phase announced with its size, then one event per finished candidate
    assert events[0] == ("build", None, 8) and events.index(("run", None, 7)) == 9
    assert sorted(name for phase, name, _ in events if phase == "run" and name) == sorted(
        r["name"] for r in records if r["name"] != "s4_compile")
    entries = _log(log)
    builds = [e for e in entries if e["mode"] == "build"]
    runs = [e for e in entries if e["mode"] == "run"]
    assert len(builds) == 8 and all(e["visible"] == "" for e in builds)  # builds see no GPU
    assert all(e["max_jobs"] == "2" for e in builds)
    assert max(e["end"] for e in builds) <= min(e["start"] for e in runs)  # no build while anything is timed
    # each run on a node's one GPU, one run at a time on each (which node takes which run is Ray's choice:
    # the SPREAD strategy spreads them, as best it can)
    where = {r["name"]: (r["gpu"]["node"], r["gpu"]["id"]) for r in records if r.get("gpu")}
    assert len(where) == 7 and {gpu for _, gpu in where.values()} == {"0"} and len(set(where.values())) <= 2
    for slot in set(where.values()):
        spans = sorted((e["start"], e["end"]) for e in runs if where[Path(e["solution"]).stem] == slot)
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
    # the compile error mapped to the line of the .py file, from the file staged on the node
    assert records[4]["compile_errors"][0]["py_line"] == 6
    # the same verdicts as on this machine
    monkeypatch.setenv("STANDIN_LOG", str(tmp_path / "local.jsonl"))
    local = verify_batch(candidates, _options(tmp_path, gpus=["0", "1"]))
    assert _verdicts(records) == _verdicts(local)


def test_a_dead_worker_is_that_candidates_failure_and_a_restart_resumes(address: str, log: Path,
                                                                        tmp_path: Path) -> None:
    results = tmp_path / "sweep.jsonl"
    candidates = [_candidate(tmp_path, "a", "ok"), _candidate(tmp_path, "b", "killparent"),
                  _candidate(tmp_path, "c", "incorrect")]
    options = _options(tmp_path, ray=address, results_file=str(results))
    first = verify_batch(candidates, options)
    assert [r["status"] for r in first] == ["correct", "worker_error", "incorrect"]
    assert "the Ray task of this run ended without a result" in first[1]["message"]
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(r["name"] for r in lines) == ["a", "b", "c"] and all(len(r["key"]) == 64 for r in lines)

    # a kill cut the last line short; the restart keeps the finished ones and redoes the dead worker's
    with results.open("a") as handle:
        handle.write('{"key": "')
    log.unlink()
    resumed = []
    second = verify_batch(candidates, options, lambda phase, record: resumed.append(record["name"])
                          if phase == "resumed" else None)
    assert sorted(resumed) == ["a", "c"]
    assert [(e["mode"], e["solution"]) for e in _log(log)] == [("build", "b.py"), ("run", "b.py")]
    assert [r["status"] for r in second] == ["correct", "worker_error", "incorrect"]
    assert second[0] == first[0] and second[2] == first[2]
    assert len(results.read_text().splitlines()) == 5  # 3, the cut line, b again


def test_an_edited_solution_is_verified_again(address: str, log: Path, tmp_path: Path) -> None:
    started = time.time()  # a worker the previous test's dead Ray task left behind may still log
    candidate = _candidate(tmp_path, "a", "ok")
    options = _options(tmp_path, ray=address, results_file=str(tmp_path / "sweep.jsonl"),
                       sanitize=("memcheck",), sanitizer=str(tmp_path / "no-compute-sanitizer"))
    [record] = verify_batch([candidate], options)
    # the sanitizer run was placed on a GPU node, which has no compute-sanitizer: never `correct`
    assert record["status"] == "unchecked" and not record["sanitizer"]["memcheck"]["ran"]
    Path(candidate.path).write_text(Path(candidate.path).read_text().replace("# standin: ok", "# standin: incorrect"))
    [record] = verify_batch([candidate], options)
    assert record["status"] == "incorrect"
    assert [e["mode"] for e in _log(log) if e["start"] >= started] == ["build", "run", "judge", "build", "run"]


def test_build_archives_carry_the_cache_directories_to_another_node(tmp_path: Path) -> None:
    built = tmp_path / "built"
    extension = built / "ext" / "m-0123456789abcdef0123"
    extension.mkdir(parents=True)
    (extension / "m.so").write_bytes(b"\x7fELF")
    (extension / "lock").write_text("")
    (extension / "escape").symlink_to("/etc/passwd")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    result = {"extensions": [{"directory": str(extension)}, {"directory": str(outside)}]}
    archive = pack_extensions(result, str(built))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        assert sorted(tar.getnames()) == ["m-0123456789abcdef0123", "m-0123456789abcdef0123/m.so"]
    other = tmp_path / "other"
    assert unpack_extensions(archive, str(other)) == ["m-0123456789abcdef0123"]
    assert (other / "ext" / "m-0123456789abcdef0123" / "m.so").read_bytes() == b"\x7fELF"
    assert unpack_extensions(archive, str(other)) == []  # there already (a shared cache): left as it is
    assert pack_extensions({"extensions": [{"directory": str(outside)}]}, str(built)) is None
