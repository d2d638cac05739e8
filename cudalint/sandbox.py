"""Run untrusted code in a child process that reaches as little as an unprivileged user can take away.

One layer below both stages that execute generated code: the GPU stage (`cudalint.verify`) and the CPU
dry run. What a sandboxed command gets:

- its own freshly created directory (mode 0700; `private_directory`) with a private HOME and temporary
  directory in it, never shared with another candidate;
- an environment scrubbed to the toolchain's and the GPU's settings (`scrubbed_environment`): no API
  key, token or other credential;
- where unprivileged user namespaces work (`unshare`, `isolation()`): a user, PID and mount namespace with
  its own /proc, so that no process outside it can be seen, signalled or read (the parent's
  /proc/PID/environ, which still holds the environment it started with, included); and a network
  namespace unless the caller lets it out;
- resource limits (`Limits`): CPU seconds, address space, processes, file size and open files, core
  dumps off;
- no Unix-domain sockets: a seccomp filter refuses `socket(AF_UNIX, ...)` (and io_uring, which could
  open one past the filter), so filesystem sockets (an ssh agent, D-Bus, a tmux server, docker.sock)
  are out of reach even where no namespace is available. CUDA cannot start without them (measured on
  an H200: cudaGetDeviceCount fails with error 304), so a GPU worker is given them, and in its mount
  namespace the socket files are hidden instead (`confine_files`);
- a kill that leaves nothing alive: the command runs under a launcher (this file run as a script) that
  is a child subreaper, so that processes which left the group with setsid() or a double fork are
  still its descendants; when the command ends or time is up it kills every one of them. Inside a PID
  namespace the launcher is its init, and the kernel kills the whole namespace when it exits.

What it does not give: the command runs as the caller's user on the caller's file system, so it can read
and write what the user can (see docs/verify.md for what a container adds). Nothing
in a file the command can write is trusted: results come back through a `Channel` (a pipe) and are
data, never a verdict.

This file imports only the standard library: the launcher runs it as a script (`python -I -S
sandbox.py CONFIG -- COMMAND...`).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import glob
import json
import os
import re
import shutil
import signal
import site
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass

LAUNCHER = os.path.abspath(__file__)
GIB = 1 << 30

# what a sandboxed command inherits from the parent's environment: where the toolchain is and how to use the GPU
_KEPT_NAMES = frozenset({
    "PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "CUDA_HOME",
    "CUDA_PATH", "CUDA_ROOT", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CC", "CXX", "CUDAHOSTCXX", "MAX_JOBS",
    "LANG", "LANGUAGE", "TZ", "PYTHONPATH", "PYTHONHASHSEED", "VIRTUAL_ENV", "CONDA_PREFIX", "OMP_NUM_THREADS"})
_KEPT_PREFIXES = ("LC_", "NVIDIA_", "TORCH_", "PYTORCH_", "NVCC_", "CUDA_MODULE_", "TRITON_", "MKL_", "CUDALINT_")
_CREDENTIAL = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION", re.IGNORECASE)

NAMESPACES = ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount", "--mount-proc"]
NETWORK_NAMESPACE = ["--net"]


@dataclass(frozen=True)
class Limits:
    """Resource limits of the sandboxed command and everything it starts (setrlimit; None: unlimited).

    `cpu_seconds` and `address_space` count per process; `processes` counts the processes and threads of
    the sandbox's own user namespace (outside one, RLIMIT_NPROC would count all of the user's processes,
    so it is applied only inside one); `file_size` bounds each file written."""

    cpu_seconds: int | None = 600
    address_space: int | None = 8 * GIB  # CUDA reserves far more address space than it uses: None there
    processes: int | None = 512
    file_size: int | None = 2 * GIB
    open_files: int | None = 4096


@dataclass(frozen=True)
class Isolation:
    """How sandboxed commands are started on this machine: the command prefix (the namespaces), and what
    they give, in words (`network`, `processes`)."""

    prefix: tuple[str, ...]
    network: str  # "isolated", or why not
    processes: str  # "own PID namespace", or why not
    files: str = "writable"  # "read-only" (but for the command's own directories), or why not

    @property
    def namespaces(self) -> bool:
        return bool(self.prefix)


@dataclass
class Finished:
    """How a sandboxed command ended."""

    returncode: int | None
    signal: str | None  # the signal that killed the command (the launcher reports it as 128 + N)
    timed_out: bool
    seconds: float
    error: str = ""  # it could not be started


def scrubbed_environment(parent: dict, directory: str, keep: tuple[str, ...] = ()) -> dict:
    """The environment of a sandboxed command: `parent` scrubbed to the toolchain's and GPU's settings (plus
    the names in `keep`), never a credential, with a HOME and temporary directory of its own in `directory`."""
    env = {name: value for name, value in parent.items()
           if name in keep or ((name in _KEPT_NAMES or name.startswith(_KEPT_PREFIXES))
                               and not _CREDENTIAL.search(name))}
    home, temporary = os.path.join(directory, "home"), os.path.join(directory, "tmp")
    for path in (home, temporary):
        os.makedirs(path, mode=0o700, exist_ok=True)
    # packages installed with `pip install --user` stay importable under the new HOME
    env.update(HOME=home, TMPDIR=temporary, TMP=temporary, TEMP=temporary,
               XDG_CACHE_HOME=os.path.join(home, ".cache"), PYTHONUSERBASE=site.getuserbase())
    return env


def private_directory(parent: str | None = None, prefix: str = "cudalint-sandbox-") -> str:
    """A new directory (mode 0700) for one sandboxed command, under `parent` (default: the temporary
    directory); created fresh with a unique name, so never one another command used."""
    return tempfile.mkdtemp(prefix=prefix, dir=parent)


@functools.lru_cache(maxsize=4)
def isolation(network: bool = False) -> Isolation:
    """The namespaces this machine gives an unprivileged user, tried once: user, PID and mount (its own
    /proc, the file system read-only), and network unless `network` lets the command out."""
    prefix = NAMESPACES + ([] if network else NETWORK_NAMESPACE) + ["--"]
    why = _fails(prefix + ["true"])
    if why is not None:
        return Isolation((), "not isolated (--network)" if network else f"not isolated: {why}",
                         f"shared PID namespace: {why}", f"writable: {why}")
    net = "not isolated (--network)" if network else "isolated"
    with tempfile.TemporaryDirectory(prefix="cudalint-sandbox-probe-") as directory:
        config = {"limits": {}, "namespace": True, "unix_sockets": True, "writable": [directory],
                  "uid": os.getuid(), "gid": os.getgid()}
        why = _fails(prefix + [sys.executable, "-I", "-S", LAUNCHER, json.dumps(config), "--", "true"])
    return Isolation(tuple(prefix), net, "own PID namespace", "read-only" if why is None else f"writable: {why}")


def _fails(argv: list[str]) -> str | None:
    """Why `argv` failed (its last line of error output), or None when it ran."""
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              timeout=20)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"cannot run {argv[0]} ({error})"
    if done.returncode == 0:
        return None
    return (done.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit {done.returncode}"])[-1]


class Channel:
    """A pipe from a sandboxed command to this process: the command writes to `fd` (pass it in `pass_fds`
    and tell the command its number), a thread here reads until every writer is gone.

    The command cannot reach what was read: it lives in this process's memory, or in `into` (an open file of
    this process's, ideally unlinked). At most `limit` bytes are kept (`overflowed` says when more came);
    the rest is drained so that the writer never blocks."""

    def __init__(self, limit: int = 64 << 20, into=None) -> None:
        self.limit = limit
        self.into = into
        self.overflowed = False
        self.received = 0
        self._chunks: list[bytes] = []
        self._read_end, self.fd = os.pipe()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        with open(self._read_end, "rb", buffering=0) as pipe:
            while True:
                chunk = pipe.read(1 << 20)
                if not chunk:
                    return
                room = self.limit - self.received
                if len(chunk) > room:
                    self.overflowed = True
                    chunk = chunk[:max(room, 0)]
                if chunk:
                    self.received += len(chunk)
                    if self.into is not None:
                        self.into.write(chunk)
                    else:
                        self._chunks.append(chunk)

    def started(self) -> None:
        """The command has its copy of the write end: close ours, so that the reader sees the end."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def read(self, timeout: float = 10.0) -> bytes:
        """Everything the command wrote (kept in memory; with `into`: b"", the file holds it). Call it after
        the command ended: its descendants were killed with it, so the pipe is closed."""
        self.started()
        self._thread.join(timeout)
        if self.into is not None:
            self.into.flush()
            return b""
        return b"".join(self._chunks)


def launcher_argv(command: list[str], directory: str, limits: Limits = Limits(), isolated: Isolation | None = None,
                  unix_sockets: bool = False, writable: tuple[str, ...] = ()) -> list[str]:
    """The command line that runs `command` under the launcher inside the namespaces of `isolated`, as
    `run_sandboxed` runs it; for a caller that keeps the command running and talks to it (the dry run's
    server, which forks a child per solution: the limits and namespaces hold for every child)."""
    config = {"limits": asdict(limits), "namespace": bool(isolated and isolated.namespaces),
              "unix_sockets": unix_sockets}
    if isolated is not None and isolated.files == "read-only":
        config.update(writable=[directory, *writable], uid=os.getuid(), gid=os.getgid())
    return list(isolated.prefix if isolated else ()) + [sys.executable, "-I", "-S", LAUNCHER, json.dumps(config),
                                                        "--"] + list(command)


def run_sandboxed(command: list[str], directory: str, env: dict, timeout: float, limits: Limits = Limits(),
                  isolated: Isolation | None = None, pass_fds: tuple[int, ...] = (), stdout=None, stderr=None,
                  unix_sockets: bool = False, writable: tuple[str, ...] = (), grace: float = 5.0,
                  paused=None, stop: threading.Event | None = None) -> Finished:
    """Run `command` in `directory` with `env` for at most `timeout` seconds, under the launcher (limits,
    every descendant killed at the end; no Unix sockets unless `unix_sockets`, and then, where the file
    system is confined, socket files hidden) and inside the namespaces of `isolated` (None: none), where
    the file system is read-only but for `directory` and `writable` when `isolated.files` says so.
    `pass_fds` stay open in the command (the write ends of `Channel`s, a request pipe).

    When time is up the launcher is asked to kill everything (SIGTERM; a PID namespace dies with it);
    `grace` seconds later whatever is left of the process group is killed. `paused()`: the seconds so far
    that do not count against `timeout` (a GPU worker waiting for its turn: `cudalint.verify.turns`); `stop`:
    kill it as soon as this is set (not a timeout)."""
    argv = launcher_argv(command, directory, limits, isolated, unix_sockets, writable)
    if shutil.which(command[0], path=env.get("PATH", os.defpath)) is None:
        return Finished(None, None, False, 0.0, f"cannot start {command[0]}: not found or not executable")
    started = time.monotonic()
    try:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, env=env,
                                   cwd=directory, start_new_session=True, pass_fds=pass_fds)
    except OSError as error:
        return Finished(None, None, False, 0.0, f"cannot start {command[0]}: {error}")
    timed_out = False
    returncode = _wait(process, started, timeout, paused, stop)
    if returncode is None:
        timed_out = stop is None or not stop.is_set()
        _signal(process.pid, signal.SIGTERM)
        try:
            returncode = process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            returncode = None
        _kill_group(process.pid)
        returncode = process.wait() if returncode is None else returncode
    finished = Finished(returncode, None, timed_out, time.monotonic() - started)
    if returncode is not None and returncode < 0:
        finished.signal = signal_name(-returncode)
    elif returncode is not None and 128 < returncode < 128 + signal.NSIG and not timed_out:
        finished.signal = signal_name(returncode - 128)
    return finished


def _wait(process: subprocess.Popen, started: float, timeout: float, paused, stop) -> int | None:
    """The process's exit status, or None when its time is up (or `stop` was set) first."""
    if paused is None and stop is None:
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
    while not (stop is not None and stop.is_set()):
        left = started + timeout + (paused() if paused is not None else 0.0) - time.monotonic()
        if left <= 0:
            return None
        try:
            return process.wait(timeout=min(left, 0.1))
        except subprocess.TimeoutExpired:
            continue
    return None


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _signal(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        _signal(pid, signal.SIGKILL)


# ------------------------------------------------------------------------------------- the launcher


PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
# (seccomp's audit architecture, the socket syscall's number) of the architectures the filter knows
_SECCOMP_ARCHITECTURES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}
_IO_URING_SETUP = 425  # the same number on every architecture
_X32_BIT = 0x40000000


MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 8, 32, 4096, 16384
# the per-mount flags a remount must repeat: a user namespace may not clear the ones it inherited
_MOUNT_OPTIONS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": 1024, "nodiratime": 2048,
                  "relatime": 1 << 21}
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
_LEFT_WRITABLE = ("/proc", "/dev")  # the namespace's own /proc; device nodes (the GPU's) and a fresh /dev/shm


class _Stop(Exception):
    """The parent's time limit passed (SIGTERM to the launcher)."""


def _stop(signum, frame) -> None:
    raise _Stop()


def launch(argv: list[str]) -> int:
    """The launcher: `CONFIG -- COMMAND...`. Starts COMMAND with the limits applied and Unix sockets
    refused, waits for it, then kills every descendant left (it is their subreaper, or their PID
    namespace's init). Exit status: COMMAND's, or 128 + N when a signal N killed it."""
    config = json.loads(argv[0])
    command = argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGTERM, _stop)
    try:
        child = os.fork()
        if child == 0:
            _exec(command, config, libc)
        _, status = os.waitpid(child, 0)
    except _Stop:
        status = None
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    kill_descendants()
    if status is None:
        return 128 + signal.SIGKILL
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.waitstatus_to_exitcode(status)


def _exec(command: list[str], config: dict, libc) -> None:
    """In the forked child: limits, the socket filter, then COMMAND (never returns)."""
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if config.get("writable") is not None:
            confine_files(config["writable"], config["uid"], config["gid"], libc,
                          hide_sockets=bool(config.get("unix_sockets")))
        apply_limits(config["limits"], inside_user_namespace=config.get("namespace", False))
        if not config.get("unix_sockets"):
            deny_unix_sockets(libc)
        os.execvp(command[0], command)
    except BaseException as error:  # noqa: BLE001 - reported on stderr; the exit status says it failed
        os.write(2, f"sandbox: cannot start {command[0]}: {error}\n".encode("utf-8", "replace"))
    os._exit(127)


def confine_files(writable: list[str], uid: int, gid: int, libc, hide_sockets: bool = False) -> None:
    """Inside the sandbox's user and mount namespaces: every file system read-only except the `writable`
    directories, /proc, /dev and a fresh /dev/shm; then a nested user namespace (the caller's uid and gid
    again), in which the kernel locks those read-only mounts: neither the command nor anything it starts
    can make them writable again or unmount what hides them, even as root of its namespace.

    With `hide_sockets` (where Unix sockets are allowed: CUDA needs them), the socket files the command
    could otherwise connect to are hidden: an empty /run (D-Bus, docker.sock, the user's runtime
    directory), and /dev/null over each socket file up to two levels below /tmp and /var/tmp (an ssh
    agent, X11, tmux)."""

    def mount(source, target: str, kind, flags: int) -> None:
        if libc.mount(source, target.encode(), kind, flags, None) != 0:
            raise OSError(ctypes.get_errno(), f"cannot mount {target}: {os.strerror(ctypes.get_errno())}")

    kept = [os.path.realpath(path) for path in writable]
    for path in kept:  # a mount of its own, which the read-only pass below leaves alone
        mount(path.encode(), path, None, MS_BIND | MS_REC)
    private = []  # mounted here: a fresh, empty file system each, or /dev/null over a socket
    for top in ["/dev/shm"] + (["/run", "/var/run"] if hide_sockets else []):
        if os.path.isdir(top) and not os.path.islink(top) and not any(_within(path, top) for path in kept):
            mount(b"tmpfs", top, b"tmpfs", MS_NOSUID | MS_NODEV)
            private.append(top)
    for path in _socket_files(("/tmp", "/var/tmp")) if hide_sockets else ():
        mount(b"/dev/null", path, None, MS_BIND)
        private.append(path)
    for point, options in _mounts():
        if "ro" in options or any(_within(point, top) for top in kept + private + list(_LEFT_WRITABLE)):
            continue
        mount(None, point, None, MS_BIND | MS_REMOUNT | MS_RDONLY |
              sum(flag for option, flag in _MOUNT_OPTIONS.items() if option in options))
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "cannot lock the read-only mounts (nested user namespace)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} 0 1"), ("gid_map", f"{gid} 0 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
    os.chdir(os.getcwd())  # the working directory was the one beneath its writable mount


def _socket_files(tops: tuple[str, ...]) -> list[str]:
    found = []
    for top in tops:
        for pattern in ("*", ".*", "*/*", ".*/*", "*/.*", ".*/.*"):
            for path in glob.glob(os.path.join(top, pattern)):
                try:
                    if stat.S_ISSOCK(os.lstat(path).st_mode):
                        found.append(path)
                except OSError:
                    pass
    return found


def _mounts() -> list[tuple[str, set[str]]]:
    """(mount point, its per-mount options) for each mount of this namespace."""
    found = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as handle:
        for line in handle:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            found.append((point, set(fields[5].split(","))))
    return found


def _within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def apply_limits(limits: dict, inside_user_namespace: bool) -> None:
    import resource

    wanted = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_CPU, limits.get("cpu_seconds")),
              (resource.RLIMIT_AS, limits.get("address_space")), (resource.RLIMIT_FSIZE, limits.get("file_size")),
              (resource.RLIMIT_NOFILE, limits.get("open_files"))]
    if inside_user_namespace:
        wanted.append((resource.RLIMIT_NPROC, limits.get("processes")))
    for which, value in wanted:
        if value is None:
            continue
        _, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        # CPU: SIGXCPU at the soft limit (a Python traceback), SIGKILL a little later
        soft_hard = (value, min(value + 5, hard) if hard != resource.RLIM_INFINITY else value + 5) \
            if which == resource.RLIMIT_CPU else (value, value)
        resource.setrlimit(which, soft_hard)


def deny_unix_sockets(libc) -> bool:
    """A seccomp filter: socket(AF_UNIX, ...) and io_uring_setup fail with EACCES, as does every system
    call of another architecture's ABI (32-bit and x32 calls would pass a filter written for the native
    numbers). Socket pairs stay (they reach nothing). False where the architecture is not known."""
    known = _SECCOMP_ARCHITECTURES.get(os.uname().machine)
    if known is None:
        return False
    audit_arch, socket_call = known
    load, jump_equal, jump_at_least, give = 0x20, 0x15, 0x35, 0x06
    allow, refuse = 0x7FFF0000, 0x00050000 | errno.EACCES
    program = [
        (load, 0, 0, 4),  # seccomp_data.arch
        (jump_equal, 1, 0, audit_arch),
        (give, 0, 0, refuse),
        (load, 0, 0, 0),  # seccomp_data.nr
        (jump_at_least, 0, 1, _X32_BIT),
        (give, 0, 0, refuse),
        (jump_equal, 0, 1, _IO_URING_SETUP),
        (give, 0, 0, refuse),
        (jump_equal, 0, 3, socket_call),
        (load, 0, 0, 16),  # seccomp_data.args[0], low 32 bits: the address family
        (jump_equal, 0, 1, 1),  # AF_UNIX
        (give, 0, 0, refuse),
        (give, 0, 0, allow),
    ]

    class Instruction(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Instruction))]

    instructions = (Instruction * len(program))(*[Instruction(*step) for step in program])
    filter_program = Program(len(program), instructions)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(filter_program), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "cannot install the seccomp filter")
    return True


def kill_descendants() -> None:
    """Kill every descendant of this process until none is left: orphans come back to a subreaper, so a
    process that left with setsid() or a double fork is found in the next round."""
    me = os.getpid()
    while True:
        children = _children(me)
        if not children:
            return
        for pid in children:
            _signal(pid, signal.SIGKILL)
        try:
            os.waitpid(-1, 0)  # one of them at least is dying
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass


def _children(parent: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent:
            found.append(int(name))
    return found


__all__ = ["Channel", "Finished", "Isolation", "LAUNCHER", "Limits", "isolation", "launch", "private_directory",
           "run_sandboxed", "scrubbed_environment", "signal_name"]


if __name__ == "__main__":
    sys.exit(launch(sys.argv[1:]))
