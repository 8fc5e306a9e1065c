"""A PostgreSQL primary with a streaming standby, from pgserver's binaries (``yardstick stack up --ha``).

pgserver's own server listens on a unix socket only; a standby needs TCP replication, so the pair
is run with pgserver's ``initdb``/``pg_ctl``/``pg_basebackup`` directly:

- the primary listens on 127.0.0.1:PORT, trusts local connections (like pgserver) and replicates
  **synchronously** (``synchronous_standby_names='*'``): a commit returns once the standby has it,
  so a failover loses no acknowledged write (the stack's results are acked in NATS after the
  commit). The price: while the standby is down, writes on the primary wait for it;
- the standby is ``pg_basebackup -R -X stream -C -S SLOT`` of the primary, on the next port;
- :func:`promote` runs ``pg_ctl promote`` and then clears ``synchronous_standby_names``: a promoted
  standby inherits ``'*'`` from the primary's configuration and its first write would hang
  (``SyncRep``) with no standby left to confirm it.

PostgreSQL refuses to run as root: as root, each binary runs as the ``pgserver`` system user (the
one pgserver itself uses), which owns the data folders.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import psycopg

from services.stack.nodes import PgNode
from services.stack.servers import ServerStartError, ensure_runtime_dir, tail

PG_SYSTEM_USER = "pgserver"
SLOT = "ys_standby"
COMMAND_TIMEOUT_S = 60.0


def _bin(name: str) -> str:
    ensure_runtime_dir()  # before pgserver is imported: it looks for a runtime folder at import
    from pgserver._commands import POSTGRES_BIN_PATH  # slow import; only when needed

    return str(POSTGRES_BIN_PATH / name)


def _run(args: list[str], what: str, log: Path | None = None) -> None:
    """Run a PostgreSQL binary (as ``pgserver`` when we are root); a failure says what and why."""
    command = ["runuser", "-u", PG_SYSTEM_USER, "--", *args] if os.geteuid() == 0 else args
    result = subprocess.run(command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=False)
    if result.returncode != 0:
        logged = f"\nLast log lines:\n{tail(log)}" if log is not None else ""
        raise ServerStartError(f"{what} failed ({result.returncode}): {result.stderr.strip()[-600:]}{logged}")


def _prepare(folder: Path) -> None:
    """``folder`` exists, belongs to the server's user, and its parents can be traversed."""
    ensure_runtime_dir()
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        return
    from pgserver.utils import ensure_prefix_permissions, ensure_user_exists

    entry = ensure_user_exists(PG_SYSTEM_USER)
    assert entry is not None
    ensure_prefix_permissions(folder)
    os.chown(folder, entry.pw_uid, entry.pw_gid)


def _settings(port: int) -> str:
    return "\n".join(
        [
            "# yardstick stack up --ha",
            "listen_addresses = '127.0.0.1'",
            f"port = {port}",
            "unix_socket_directories = ''",
            "wal_level = replica",
            "max_wal_senders = 5",
            "max_replication_slots = 5",
            "wal_keep_size = '256MB'",
            "hot_standby = on",
            "synchronous_standby_names = '*'",
            "",
        ]
    )


def _append(path: Path, text: str) -> None:
    with path.open("a") as out:
        out.write(text)


def _start(node: PgNode) -> None:
    _run(
        [_bin("pg_ctl"), "-D", node.data_dir, "-l", node.log, "-w", "-t", "60", "start"],
        f"starting {node.name}",
        Path(node.log),
    )


def start_primary(folder: Path, name: str, port: int) -> PgNode:
    """initdb (once) and start a primary on 127.0.0.1:``port`` in ``folder/name``."""
    _prepare(folder)
    node = PgNode(name=name, port=port, data_dir=str(folder / name), log=str(folder / f"{name}.log"))
    data = Path(node.data_dir)
    if not (data / "PG_VERSION").exists():
        _run(
            [_bin("initdb"), "-D", node.data_dir, "-U", "postgres", "--auth=trust", "--encoding=utf8"],
            f"initdb of {name}",
        )
        _append(data / "postgresql.conf", _settings(port))
    _start(node)
    return node


def start_standby(folder: Path, name: str, port: int, primary: PgNode) -> PgNode:
    """A streaming standby of ``primary`` on 127.0.0.1:``port`` in ``folder/name`` (base backup once)."""
    _prepare(folder)
    node = PgNode(name=name, port=port, data_dir=str(folder / name), log=str(folder / f"{name}.log"))
    data = Path(node.data_dir)
    if not (data / "PG_VERSION").exists():
        _run(
            [
                _bin("pg_basebackup"),
                "-h",
                "127.0.0.1",
                "-p",
                str(primary.port),
                "-U",
                "postgres",
                "-D",
                node.data_dir,
                "-R",
                "-X",
                "stream",
                "-C",
                "-S",
                SLOT,
            ],
            f"pg_basebackup of {primary.name} into {name}",
        )
        _append(data / "postgresql.conf", f"port = {port}\n")  # the copied file has the primary's
    _start(node)
    return node


def is_primary(node: PgNode) -> bool | None:
    """True on a primary, False on a standby, None when it does not answer."""
    try:
        with psycopg.connect(node.conninfo(), autocommit=True) as conn:
            row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
    except psycopg.Error:
        return None
    return row is not None and not row[0]


def promote(node: PgNode) -> None:
    """Make the standby ``node`` the primary; its writes do not wait for a standby it no longer has."""
    _run(
        [_bin("pg_ctl"), "-D", node.data_dir, "-w", "-t", "60", "promote"],
        f"promoting {node.name}",
        Path(node.log),
    )
    with psycopg.connect(node.conninfo(), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET synchronous_standby_names = ''")
        conn.execute("SELECT pg_reload_conf()")


def multi_host_url(nodes: list[PgNode], database: str) -> str:
    """The DSN every client is given: both hosts, whichever is the primary (read-write) now."""
    hosts = ",".join(f"127.0.0.1:{n.port}" for n in nodes)
    return f"postgresql://postgres@{hosts}/{database}?target_session_attrs=read-write"
