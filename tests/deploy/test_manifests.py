"""No Docker engine or cluster here: check what can be checked. The compose file and the k8s
manifests load, every command they run is a module of this repository, and the environment they
give services matches what the launcher gives them."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.stack.launcher import service_env
from services.stack.services_spec import service_specs

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


def _modules(commands: list[list[str]]) -> set[str]:
    return {cmd[cmd.index("-m") + 1] for cmd in commands if cmd[:1] == ["python"] and "-m" in cmd}


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def test_compose_runs_every_launcher_service_with_the_same_command() -> None:
    services = _compose()["services"]
    compose_modules = _modules([s["command"] for s in services.values() if "command" in s])
    assert {spec.module for spec in service_specs() if spec.exists()} <= compose_modules
    for module in compose_modules:
        assert _exists(module), f"docker-compose runs missing module {module}"


def test_compose_services_have_healthchecks_and_workers_scale() -> None:
    services = _compose()["services"]
    for name, service in services.items():
        if name != "migrate":
            assert "healthcheck" in service, f"{name} has no healthcheck"
    assert services["evaluator"]["deploy"]["replicas"] >= 2


# What each image can run in a healthcheck (checked by hand; see the comment in docker-compose.yml).
IMAGE_PROGRAMS = {
    "nats:2.10-alpine": {"wget", "nats-server"},
    "nats:2.10": {"nats-server"},  # scratch: no shell, no wget
    "postgres:16": {"pg_isready", "psql", "sh"},
    "yardstick:latest": {"python", "sh"},
}


def test_every_healthcheck_runs_a_program_its_image_has() -> None:
    for name, service in _compose()["services"].items():
        check = service.get("healthcheck")
        if not check:
            continue
        image = service.get("image", "yardstick:latest")
        test = check["test"]
        program = test[1] if test[0] == "CMD" else "sh"
        assert image in IMAGE_PROGRAMS, f"{name}: add what {image} contains to IMAGE_PROGRAMS"
        assert program in IMAGE_PROGRAMS[image], f"{name}: {image} has no {program!r} for its healthcheck"


def test_compose_environment_matches_the_launcher() -> None:
    compose_env = set(_compose()["services"]["coordinator"]["environment"])
    from services.stack.state import StackState

    state = StackState.model_validate(
        {
            "state_dir": ".",
            "nats_url": "nats://x",
            "database_url": "postgresql://x",
            "namespace": "yardstick",
            "started_at": "2026-01-01T00:00:00Z",
            "own_nats": False,
            "own_postgres": False,
        }
    )
    launcher_env = set(service_env(state, service_specs()[0], 1, "secret", 0)) & {
        "NATS_URL",
        "DATABASE_URL",
        "NATS_NAMESPACE",
        "HTTP_HOST",
        "HTTP_PORT",
        "YARDSTICK_API_KEY_SECRET",
    }
    assert launcher_env <= compose_env


def test_kubernetes_manifests_load_and_run_existing_modules() -> None:
    docs = [
        d for f in sorted((ROOT / "deploy" / "k8s").glob("*.yaml")) for d in yaml.safe_load_all(f.read_text())
    ]
    kinds = {d["kind"] for d in docs if d}
    assert {"Deployment", "Job", "Service", "ScaledObject"} <= kinds
    commands = [
        c["command"]
        for d in docs
        if d and d["kind"] in ("Deployment", "Job")
        for c in d["spec"]["template"]["spec"]["containers"]
    ]
    for module in _modules(commands):
        assert _exists(module), f"k8s runs missing module {module}"
