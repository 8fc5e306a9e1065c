"""No Docker engine or cluster here: check what can be checked. The compose file and the k8s
manifests load, every command they run is a module of this repository, and the environment they
give services matches what the launcher gives them. The k8s manifests are validated offline against
the Kubernetes schemas and the vendored CRD schemas (``manifest_checks``), and a broken copy of each
kind fails."""

from __future__ import annotations

import copy
import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.stack.launcher import service_env
from services.stack.services_spec import service_specs
from tests.deploy.manifest_checks import CUSTOM_SCHEMAS, SCHEMAS, manifests, problems
from yardstick.api.topology import EVAL_WORKERS_CONSUMER, Topology

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


def test_every_kubernetes_manifest_is_valid_against_its_schema() -> None:
    found = {(name, doc["kind"], doc["metadata"]["name"]): problems(doc) for name, doc in manifests()}
    assert {kind for _, kind, _ in found} >= {"StatefulSet", "Cluster", "ScaledObject", "Deployment"}
    assert {key: p for key, p in found.items() if p} == {}


def _first(kind: str) -> dict[str, Any]:
    return copy.deepcopy(next(doc for _, doc in manifests() if doc["kind"] == kind))


@pytest.mark.parametrize(
    ("kind", "break_it", "complaint"),
    [
        ("Deployment", lambda d: d["spec"].update(replica=2), "replica"),
        ("StatefulSet", lambda d: d["spec"].update(replicas="three"), "three"),
        ("ScaledObject", lambda d: d["spec"].pop("scaleTargetRef"), "scaleTargetRef"),
        ("ScaledObject", lambda d: d["spec"].update(minReplicas=1), "minReplicas"),
        ("Cluster", lambda d: d["spec"].update(instances=0), "minimum"),
        ("Cluster", lambda d: d["spec"]["storage"].update(sizee="1Gi"), "sizee"),
        ("Cluster", lambda d: d["spec"]["postgresql"]["synchronous"].update(method="all"), "all"),
    ],
)
def test_a_broken_manifest_fails_validation(kind: str, break_it: Any, complaint: str) -> None:
    doc = _first(kind)
    assert problems(doc) == []
    break_it(doc)
    found = problems(doc)
    assert found and complaint in " ".join(found), found


def test_a_kind_without_a_schema_fails() -> None:
    doc = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "x"}}
    assert "no schema for Gadget" in problems(doc)[0]


def test_the_vendored_schemas_say_where_they_come_from() -> None:
    readme = (SCHEMAS / "README.md").read_text()
    for file in CUSTOM_SCHEMAS.values():
        assert file in readme
    for source in ("cloudnative-pg/cloudnative-pg", "v1.30.0", "cloudcoil-models-keda", "2.16.1.0"):
        assert source in readme


def _by_kind(kind: str) -> list[dict[str, Any]]:
    return [doc for _, doc in manifests() if doc["kind"] == kind]


def test_nats_runs_as_a_three_node_jetstream_cluster_the_services_are_told_about() -> None:
    [nats] = _by_kind("StatefulSet")
    assert nats["spec"]["replicas"] == 3
    config = next(d for d in _by_kind("ConfigMap") if d["metadata"]["name"] == "nats-config")["data"][
        "nats.conf"
    ]
    nodes = [f"nats-{i}.{nats['spec']['serviceName']}" for i in range(3)]
    assert "jetstream" in config and all(f"nats://{node}:6222" in config for node in nodes)
    env = next(d for d in _by_kind("ConfigMap") if d["metadata"]["name"] == "yardstick-config")["data"]
    assert env["NATS_URL"].split(",") == [f"nats://{node}:4222" for node in nodes]
    assert env["NATS_STREAM_REPLICAS"] == "3"


def test_every_service_gets_the_database_from_the_postgres_cluster_and_is_scraped() -> None:
    [cluster] = _by_kind("Cluster")
    assert cluster["spec"]["instances"] >= 2  # a primary and a standby
    app_secret = f"{cluster['metadata']['name']}-app"  # CloudNativePG's: its uri names the -rw Service
    deployments = _by_kind("Deployment")
    assert {d["metadata"]["name"] for d in deployments} >= {
        f"yardstick-{name}"
        for name in ("coordinator", "evaluator", "agent", "search-proxy", "sampler", "ingest")
    }
    for deployment in deployments:
        template = deployment["spec"]["template"]
        [container] = template["spec"]["containers"]
        database = {e["name"]: e for e in container["env"]}["DATABASE_URL"]
        assert database["valueFrom"]["secretKeyRef"] == {"name": app_secret, "key": "uri"}
        annotations = template["metadata"]["annotations"]
        assert (
            annotations["prometheus.io/scrape"] == "true" and annotations["prometheus.io/path"] == "/metrics"
        )
        assert int(annotations["prometheus.io/port"]) in {p["containerPort"] for p in container["ports"]}


def test_the_scaled_objects_scale_existing_deployments_on_the_workers_consumer() -> None:
    deployments = {d["metadata"]["name"] for d in _by_kind("Deployment")}
    stream = Topology(namespace="yardstick").eval_tasks_stream
    for scaled in _by_kind("ScaledObject"):
        assert scaled["spec"]["scaleTargetRef"]["name"] in deployments
        [trigger] = scaled["spec"]["triggers"]
        assert (trigger["metadata"]["stream"], trigger["metadata"]["consumer"]) == (
            stream,
            EVAL_WORKERS_CONSUMER,
        )


# ---- docker-compose's ha profile ------------------------------------------------------------------

HA_ENV = ROOT / "deploy" / "compose" / "ha.env"
SHELL = {"POSTGRES_PASSWORD": "pw", "YARDSTICK_API_KEY_SECRET": "s"}


def _interpolate(text: str, variables: dict[str, str]) -> str:
    """Compose's ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?error}`` (enough for these files)."""

    def one(match: re.Match[str]) -> str:
        name, op, arg = match.group(1), match.group(2), match.group(3) or ""
        if variables.get(name):
            return variables[name]
        assert op != ":?", f"{name} must be set: {arg}"
        return _interpolate(arg, variables) if op == ":-" else ""

    return re.sub(r"\$\{(\w+)(?:(:-|:\?)((?:[^{}]|\{[^{}]*\})*))?\}", one, text)


def _ha_variables() -> dict[str, str]:
    variables = dict(SHELL)
    for line in HA_ENV.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            variables[name] = _interpolate(value, variables)
    return variables


def _compose_with(variables: dict[str, str]) -> dict[str, Any]:
    text = _interpolate((ROOT / "docker-compose.yml").read_text(), variables).replace("$$", "$")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def _hosts_of(services: dict[str, Any]) -> set[str]:
    aliases = {
        alias
        for service in services.values()
        for network in (service.get("networks") or {}).values()
        for alias in (network or {}).get("aliases", [])
    }
    return set(services) | aliases


def test_the_ha_profile_is_a_nats_cluster_and_a_postgres_standby_the_services_are_told_about() -> None:
    variables = _ha_variables()
    assert variables["COMPOSE_PROFILES"] == "ha"
    services = _compose_with(variables)["services"]
    nodes = [url.removeprefix("nats://").split(":") for url in variables["NATS_URL"].split(",")]
    assert len(nodes) == 3 and {port for _, port in nodes} == {"4222"}
    routes = ",".join(f"nats://{host}:6222" for host, _ in nodes)
    names = set()
    for host, _ in nodes:
        args = services[host]["command"].split()
        assert "-js" in args and args[args.index("--routes") + 1] == routes, args
        names.add(args[args.index("--name") + 1])
    assert len(names) == 3, "every node needs a server name of its own"
    dsn = variables["DATABASE_URL"]
    hosts = re.fullmatch(
        r"postgresql\+asyncpg://[^@]+@([^/]+)/yardstick\?target_session_attrs=read-write", dsn
    )
    assert hosts is not None, dsn
    pg_hosts = [h.split(":")[0] for h in hosts.group(1).split(",")]
    assert pg_hosts == ["pg-primary", "pg-standby"] and set(pg_hosts) <= _hosts_of(services)
    assert "pg_basebackup -h pg-primary" in services["pg-standby"]["command"][0]
    for name in ("coordinator", "evaluator", "sampler", "migrate"):
        env = services[name]["environment"]
        assert (env["NATS_URL"], env["DATABASE_URL"], str(env["NATS_STREAM_REPLICAS"])) == (
            variables["NATS_URL"],
            dsn,
            "3",
        )


def test_without_the_ha_profile_the_stack_is_one_nats_and_one_postgres() -> None:
    services = _compose_with(SHELL)["services"]
    env = services["coordinator"]["environment"]
    assert env["NATS_URL"] == "nats://nats:4222" and str(env["NATS_STREAM_REPLICAS"]) == "1"
    assert env["DATABASE_URL"] == "postgresql://yardstick:pw@postgres:5432/yardstick"
    assert services["nats"]["command"].split() == ["-js", "-sd", "/data", "-m", "8222"]
    assert env["LLM_PRICES"] == ""  # unset: every cost is "no price"
    ha_only = {name for name, s in services.items() if s.get("profiles")}
    assert ha_only == {"nats-2", "nats-3", "pg-standby"}
    assert all(services[name]["profiles"] == ["ha"] for name in ha_only)


def test_the_price_table_is_mounted_for_every_service() -> None:
    services = _compose_with(SHELL | {"LLM_PRICES": "/etc/yardstick/llm-prices.yaml"})["services"]
    for name in ("coordinator", "evaluator", "agent", "sampler"):
        [mount] = services[name]["volumes"]
        source, target, _ = mount.split(":")
        assert (ROOT / source).is_file() and target == services[name]["environment"]["LLM_PRICES"]
