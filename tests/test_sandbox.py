"""The sandbox (`cudalint.sandbox`): private directories, the scrubbed environment, resource limits, the kill
that leaves nothing alive, no Unix sockets, no parent environment, and the channel back to the parent.

Tests that need unprivileged namespaces skip where `unshare` cannot make them."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from cudalint.sandbox import Channel, Limits, isolation, private_directory, run_sandboxed, scrubbed_environment

NO_LIMITS = Limits(cpu_seconds=None, address_space=None, processes=None, file_size=None, open_files=None)


def _namespaces():
    isolated = isolation()
    if not isolated.namespaces:
        pytest.skip(f"no namespaces on this machine: {isolated.processes}")
    return isolated


def _run(tmp_path: Path, code: str, limits: Limits = NO_LIMITS, isolated=None, timeout: float = 20.0, **options):
    script = tmp_path / "worker.py"
    script.write_text(textwrap.dedent(code))
    directory = private_directory(str(tmp_path))
    env = scrubbed_environment(dict(os.environ), directory, keep=("PIDS",))
    with open(tmp_path / "out", "wb") as out, open(tmp_path / "err", "wb") as err:
        finished = run_sandboxed([sys.executable, str(script)], directory, env, timeout, limits, isolated,
                                 stdout=out, stderr=err, **options)
    return finished, (tmp_path / "out").read_text(), (tmp_path / "err").read_text()


def test_each_command_gets_a_fresh_private_directory(tmp_path: Path) -> None:
    first, second = private_directory(str(tmp_path)), private_directory(str(tmp_path))
    assert first != second and Path(first).parent == tmp_path
    for directory in (first, second):
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700 and not os.listdir(directory)


def test_environment_is_scrubbed_with_a_private_home(tmp_path: Path) -> None:
    parent = {"PATH": "/usr/bin", "CUDA_HOME": "/usr/local/cuda", "TORCH_CUDA_ARCH_LIST": "9.0",
              "OPENAI_API_KEY": "sk-secret", "HF_TOKEN": "hf_x", "AWS_SECRET_ACCESS_KEY": "a", "HOME": "/home/me",
              "TORCH_HUB_TOKEN": "t", "SSH_AUTH_SOCK": "/tmp/agent", "STANDIN_LOG": "/tmp/l", "LC_ALL": "C"}
    env = scrubbed_environment(parent, str(tmp_path), keep=("STANDIN_LOG",))
    assert {k: env[k] for k in ("PATH", "CUDA_HOME", "TORCH_CUDA_ARCH_LIST", "STANDIN_LOG", "LC_ALL")} == {
        k: parent[k] for k in ("PATH", "CUDA_HOME", "TORCH_CUDA_ARCH_LIST", "STANDIN_LOG", "LC_ALL")}
    assert not {"OPENAI_API_KEY", "HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "TORCH_HUB_TOKEN", "SSH_AUTH_SOCK"} & set(env)
    assert env["HOME"] == str(tmp_path / "home") and env["TMPDIR"] == str(tmp_path / "tmp")
    assert os.path.isdir(env["HOME"]) and oct(os.stat(env["HOME"]).st_mode & 0o777) == "0o700"


# a worker that starts a sleeper in a session of its own through a double fork, then exits or hangs; the
# sleeper carries a marker in its command line, to be found from outside (a PID namespace has its own pids)
_ESCAPER = """\
    import os, sys, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(600)', '{marker}'])
        os._exit(0)
    time.sleep(0.5)
    print('started', flush=True)
    {end}
"""


def _survivors(marker: str) -> list[str]:
    time.sleep(0.2)
    return subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()


@pytest.mark.parametrize("end", ["sys.exit(0)", "time.sleep(600)"])
def test_setsid_double_fork_leaves_nothing_alive(tmp_path: Path, end: str) -> None:
    """Without namespaces: the launcher is the subreaper of everything the worker starts and kills it all,
    when the worker exits and when its time is up."""
    marker = f"sandbox-sleeper-{os.getpid()}-{time.monotonic_ns()}"
    finished, out, err = _run(tmp_path, _ESCAPER.format(end=end, marker=marker), timeout=3.0)
    assert out.strip() == "started" and finished.timed_out == (end != "sys.exit(0)"), err
    assert _survivors(marker) == []


def test_setsid_double_fork_dies_with_its_pid_namespace(tmp_path: Path) -> None:
    isolated = _namespaces()
    marker = f"sandbox-sleeper-{os.getpid()}-{time.monotonic_ns()}"
    finished, out, err = _run(tmp_path, _ESCAPER.format(end="time.sleep(600)", marker=marker), isolated=isolated,
                              timeout=3.0)
    assert out.strip() == "started" and finished.timed_out, err
    assert _survivors(marker) == []


def test_limits_file_size_address_space_and_cpu(tmp_path: Path) -> None:
    big_file = "open('big', 'wb').write(b'x' * (4 << 20))\nprint('wrote')"
    finished, out, err = _run(tmp_path, big_file, Limits(file_size=1 << 20, address_space=None, cpu_seconds=None))
    # Python ignores SIGXFSZ: the write fails with EFBIG
    assert finished.returncode == 1 and "File too large" in err and "wrote" not in out
    finished, out, _ = _run(tmp_path, big_file, NO_LIMITS)
    assert finished.returncode == 0 and "wrote" in out
    memory = "try:\n    block = bytearray(1 << 30)\n    print('allocated')\nexcept MemoryError:\n    print('refused')"
    assert _run(tmp_path, memory, Limits(address_space=512 << 20))[1].strip() == "refused"
    assert _run(tmp_path, memory, NO_LIMITS)[1].strip() == "allocated"
    started = time.monotonic()
    finished, _, _ = _run(tmp_path, "while True:\n    pass", Limits(cpu_seconds=1), timeout=30.0)
    assert finished.signal in ("SIGXCPU", "SIGKILL") and not finished.timed_out
    assert time.monotonic() - started < 15
    finished, out, _ = _run(tmp_path, "import resource\nprint(resource.getrlimit(resource.RLIMIT_CORE))", NO_LIMITS)
    assert out.strip() == "(0, 0)"  # core dumps are always off


def test_process_limit_inside_the_user_namespace(tmp_path: Path) -> None:
    isolated = _namespaces()
    code = "import resource\nprint(resource.getrlimit(resource.RLIMIT_NPROC)[0])"
    assert _run(tmp_path, code, Limits(processes=64), isolated=isolated)[1].strip() == "64"
    # outside a user namespace RLIMIT_NPROC would count every process of the user: not applied
    assert _run(tmp_path, code, Limits(processes=64))[1].strip() != "64"


def test_unix_sockets_are_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "agent.sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(4)
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(b"\0cudalint-test-" + str(os.getpid()).encode())
    abstract.listen(4)
    code = f"""\
        import socket
        for address in ({path!r}, {abstract.getsockname()!r}):
            try:
                socket.socket(socket.AF_UNIX).connect(address)
                print('reached')
            except OSError as error:
                print(type(error).__name__)
        left, right = socket.socketpair()
        left.send(b'x')
        print(right.recv(1).decode())
        """
    try:
        refused = _run(tmp_path, code)[1].split()
        allowed = _run(tmp_path, code, unix_sockets=True)[1].split()
    finally:
        server.close()
        abstract.close()
    assert refused == ["PermissionError", "PermissionError", "x"]  # a socket pair still works
    assert allowed == ["reached", "reached", "x"]


def test_parent_environment_is_out_of_reach_in_a_pid_namespace(tmp_path: Path) -> None:
    """The parent scrubs the worker's environment, but /proc/PID/environ shows what each process was
    started with: the worker looks for the key in every environ it can read. Measured both ways."""
    namespaces = isolation().namespaces
    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent("""\
        import os
        found = []
        for name in os.listdir('/proc'):
            try:
                if name.isdigit() and b'sk-must-not-leak' in open(f'/proc/{name}/environ', 'rb').read():
                    found.append(name)
            except OSError:
                pass
        print(len(found))
        """))
    parent = textwrap.dedent(f"""\
        import os, sys
        from cudalint.sandbox import Limits, isolation, private_directory, run_sandboxed, scrubbed_environment
        for isolated in ([None, isolation()] if {namespaces} else [None]):
            directory = private_directory({str(tmp_path)!r})
            env = scrubbed_environment(dict(os.environ), directory)
            assert 'OPENAI_API_KEY' not in env
            with open(os.path.join(directory, 'out'), 'wb') as out:
                run_sandboxed([sys.executable, {str(probe)!r}], directory, env, 20, Limits(address_space=None),
                              isolated, stdout=out)
            print(open(os.path.join(directory, 'out')).read().strip())
        """)
    done = subprocess.run([sys.executable, "-c", parent], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, OPENAI_API_KEY="sk-must-not-leak"))
    counts = [int(line) for line in done.stdout.split()]
    assert done.returncode == 0, done.stderr
    assert counts[0] >= 1  # without a PID namespace: the parent's environ gives the key away (same user)
    if namespaces:
        assert counts[1] == 0  # in one: no process outside it is visible at all


def test_channel_carries_what_the_command_writes(tmp_path: Path) -> None:
    channel, small = Channel(), Channel(limit=10)
    code = f"""\
        import os
        os.write({channel.fd}, b'{{"status": "ok"}}\\n')
        os.write({small.fd}, b'x' * 100)
        """
    script = tmp_path / "w.py"
    script.write_text(textwrap.dedent(code))
    directory = private_directory(str(tmp_path))
    finished = run_sandboxed([sys.executable, str(script)], directory, scrubbed_environment({}, directory), 20,
                             NO_LIMITS, pass_fds=(channel.fd, small.fd))
    assert finished.returncode == 0
    assert json.loads(channel.read()) == {"status": "ok"}
    assert small.read() == b"x" * 10 and small.overflowed


def test_files_are_read_only_but_for_the_commands_own_and_it_cannot_undo_that(tmp_path: Path) -> None:
    isolated = _namespaces()
    if isolated.files != "read-only":
        pytest.skip(f"no read-only file system on this machine: {isolated.files}")
    extra, sibling = tmp_path / "cache", tmp_path / "sibling"
    extra.mkdir()
    sibling.mkdir()
    package = Path(__file__).resolve().parent.parent / "cudalint"
    code = f"""\
        import ctypes, errno, json, os
        libc = ctypes.CDLL(None, use_errno=True)
        results = {{}}

        def attempt(name, action):
            try:
                action()
                results[name] = "done"
            except OSError as error:
                results[name] = errno.errorcode.get(error.errno, str(error.errno))

        def call(result):
            if result != 0:
                raise OSError(ctypes.get_errno(), "")

        def write(path):
            with open(path, "w") as handle:
                handle.write("forged")

        attempt("remount", lambda: call(libc.mount(None, b"/", None, 4096 | 32, None)))  # MS_BIND | MS_REMOUNT: rw
        attempt("unmount", lambda: call(libc.umount2(os.getcwd().encode(), 2)))
        attempt("own", lambda: write("own.txt"))
        attempt("extra", lambda: write({str(extra / 'x')!r}))
        attempt("sibling", lambda: write({str(sibling / 'verdict.json')!r}))
        attempt("package", lambda: write({str(package / 'forged.py')!r}))
        attempt("shm", lambda: write("/dev/shm/x"))
        print(json.dumps(results))
        """
    script = tmp_path / "w.py"
    script.write_text(textwrap.dedent(code))
    directory = private_directory(str(tmp_path))
    with open(tmp_path / "out", "wb") as out, open(tmp_path / "err", "wb") as err:
        finished = run_sandboxed([sys.executable, str(script)], directory, scrubbed_environment({}, directory), 20,
                                 NO_LIMITS, isolated, stdout=out, stderr=err, writable=(str(extra),))
    assert finished.returncode == 0, (tmp_path / "err").read_text()
    results = json.loads((tmp_path / "out").read_text())
    assert results["remount"] != "done" and results["unmount"] != "done", results
    assert {k: results[k] for k in ("own", "extra", "shm")} == {"own": "done", "extra": "done", "shm": "done"}
    assert {k: results[k] for k in ("sibling", "package")} == {"sibling": "EROFS", "package": "EROFS"}, results
    assert not (sibling / "verdict.json").exists() and not (package / "forged.py").exists()
    assert not Path("/dev/shm/x").exists()  # a /dev/shm of its own


def test_where_unix_sockets_are_allowed_the_socket_files_are_hidden(tmp_path: Path) -> None:
    """GPU workers keep Unix sockets (CUDA needs them): in their mount namespace /run is empty and every
    socket file two levels below /tmp is covered by /dev/null."""
    isolated = _namespaces()
    if isolated.files != "read-only":
        pytest.skip(f"no read-only file system on this machine: {isolated.files}")
    agent = Path(tempfile.mkdtemp(prefix="ssh-", dir="/tmp")) / f"agent.{os.getpid()}"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(agent))
    server.listen(1)
    code = f"""\
        import os, socket
        try:
            socket.socket(socket.AF_UNIX).connect({str(agent)!r})
            print('reached')
        except OSError as error:
            print(type(error).__name__)
        print(len(os.listdir('/run')))
        """
    try:
        hidden = _run(tmp_path, code, isolated=isolated, unix_sockets=True)[1].split()
        shared = _run(tmp_path, code, unix_sockets=True)[1].split()  # no namespace: nothing hides it
    finally:
        server.close()
        shutil.rmtree(agent.parent)
    assert hidden == ["ConnectionRefusedError", "0"]
    assert shared[0] == "reached"
