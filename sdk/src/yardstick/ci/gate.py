"""The gate, end to end: push the dataset file (if any), find the baseline, run the dataset through
the target, compare, decide (:mod:`yardstick.ci.verdict`) and report.

One run per job, named after the commit (:mod:`yardstick.ci.baseline`). Where its baseline comes from:

- on a push to the default branch: nowhere. The run is recorded; it is the next pull requests'
  baseline (with ``--baseline-file``, its export is also written there for the next jobs);
- otherwise, with ``--baseline-file`` (mode ``local``, where the stack is thrown away): the exported
  run in that file, compared here with the same statistics as the coordinator's;
- otherwise: the newest completed run the default branch recorded on the server, compared by the
  coordinator at the end of the run (the experiment's ``comparison_id``).

Without a baseline the run is still gated on its own (absolute gates, errors, nothing measured) and
the report says that nothing was compared.

What it writes, whatever the verdict: ``OUT_DIR/report.md`` (the comparison, or the run's report),
``OUT_DIR/junit.xml`` (one testcase per metric and broken item, or per item without a baseline),
``OUT_DIR/run.json`` (the run's export, as ``yardstick report --format json``); on GitHub also the step
outputs, the job summary and the pull request's comment (:mod:`yardstick.ci.github`).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.experiments import ExperimentOut
from yardstick.ci.baseline import find_baseline, run_name
from yardstick.ci.context import CiContext, CiContextError, ci_context
from yardstick.ci.github import (
    GITHUB_API,
    GithubApiError,
    PullRequestComments,
    append_summary,
    comment_marker,
    write_outputs,
)
from yardstick.ci.local_stack import LocalStack, StackStartError
from yardstick.ci.options import GateOptions, OptionsError, parse_options, target_dict
from yardstick.ci.served_tasks import ServedTask
from yardstick.ci.verdict import Outcome, outcome
from yardstick.client import Client, TargetLike
from yardstick.errors import ApiError, NotConfigured, TaskLoadError
from yardstick.task_worker import TaskWorkerStartError

if TYPE_CHECKING:
    from yardstick.api.run_data import RunData

RUN_TIMEOUT_S = 6 * 3600.0
HEADLINES = {
    "pass": "✅ PASS",
    "regression": "❌ REGRESSION",
    "bad-input": "⚠️ BAD INPUT",
    "run-failed": "❌ RUN FAILED",
    "inconclusive": "⚠️ INCONCLUSIVE",
}
OUTPUT_NAMES = ("verdict", "exit-code", "experiment-id", "comparison-id", "report-path", "junit-path")
"""The step outputs (``GITHUB_OUTPUT``) the gate sets; action.yml declares the same."""
EMPTY_ENV = ("YARDSTICK_API_URL", "YARDSTICK_API_KEY", "YARDSTICK_PROJECT", "NATS_URL", "NATS_NAMESPACE")
"""Set to "" by an action input left empty: unset instead, so that discovery looks further."""


class GateResult(BaseModel):
    """What one gate run found, before it is reported."""

    experiment: ExperimentOut
    baseline: str | None = None
    """``name (id)`` of the baseline, or None when nothing was compared."""
    comparison_id: str | None = None
    report_md: str
    junit: str
    run_json: str | None = None
    outcome: Outcome


def _load_baseline_file(path: Path) -> RunData | None:
    from yardstick.api.run_data import RunData

    if not path.is_file():
        return None
    try:
        return RunData.model_validate(json.loads(path.read_text(encoding="utf-8"))["run"])
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"--baseline-file {path}: not an exported run ({exc})") from exc


def _target(options: GateOptions, served: ServedTask | None) -> TargetLike:
    if served is not None:
        return served.task
    return target_dict(options.target or "agent", options.set_)


def _dataset(client: Client, options: GateOptions) -> str:
    """The dataset's name, after pushing the file (a push of unchanged items makes no new version)."""
    if options.dataset_file is None:
        assert options.dataset is not None  # checked by GateOptions
        return options.dataset
    try:  # the file formats are the server package's (YAML, limits): there with mode local
        from shared.datasets.files import DatasetFileError, load_dataset_file
    except ImportError as exc:
        raise ValueError(
            "--dataset-file needs the yardstick server package (the action's install: '.'); with the "
            "SDK alone, push the dataset once (yardstick datasets push) and pass --dataset"
        ) from exc
    try:
        dataset = load_dataset_file(options.dataset_file, options.dataset)
    except DatasetFileError as exc:
        raise ValueError(f"--dataset-file: {exc}") from exc
    pushed = client.push_dataset(
        dataset.name, dataset.items, kind=dataset.kind, description=dataset.description, source="ci"
    )
    print(f"dataset {pushed.dataset}: version {pushed.version} ({pushed.item_count} items)", file=sys.stderr)
    return pushed.dataset


def _failed_junit(experiment: ExperimentOut, reason: str) -> str:
    root = ET.Element("testsuites", name="yardstick ci")
    suite = ET.SubElement(root, "testsuite", name=experiment.name, tests="1", failures="1")
    case = ET.SubElement(suite, "testcase", name="run", classname=experiment.dataset)
    ET.SubElement(case, "failure", message=reason).text = reason
    return ET.tostring(root, encoding="unicode")


def run_gate(options: GateOptions, ctx: CiContext) -> GateResult:
    """Run and compare (mode ``local``: the stack is already up)."""
    with Client() as client:
        dataset = _dataset(client, options)
        server_baseline: ExperimentOut | None = None
        file_baseline: RunData | None = None
        baseline_branch = options.baseline_branch or ctx.default_branch
        if ctx.records_baseline:
            print(f"push to {ctx.default_branch}: this run becomes the baseline", file=sys.stderr)
        elif options.baseline_file is not None:
            file_baseline = _load_baseline_file(options.baseline_file)
        else:
            server_baseline = find_baseline(client, options.name_prefix, baseline_branch, dataset)
        baseline = (
            f"{server_baseline.name} ({server_baseline.id})"
            if server_baseline
            else f"{file_baseline.name} (from {options.baseline_file})"
            if file_baseline
            else None
        )
        if baseline is None and not ctx.records_baseline:
            print(f"no baseline: no completed run of {dataset} on {baseline_branch}", file=sys.stderr)
        name = run_name(options.name_prefix, ctx.branch, ctx.sha)
        with ServedTask(options.task) if options.task else contextlib.nullcontext() as served:
            accepted = client.start_experiment(
                name,
                dataset=dataset,
                target=_target(options, served),
                evaluators=options.evaluators or None,
                baseline_id=server_baseline.id if server_baseline else None,
                concurrency=options.concurrency,
                timeout_s=options.timeout,
                gates=options.gates,
                primary_metrics=options.primary or None,
                max_error_rate=options.max_error_rate,
                metadata={"ci": ctx.model_dump(exclude_none=True)},
            )
            print(f"experiment {name} ({accepted.id}): {accepted.total} tasks", file=sys.stderr, flush=True)
            experiment = client.wait(accepted.id, timeout_s=RUN_TIMEOUT_S)
        print(f"experiment {experiment.status}", file=sys.stderr)
        return _judge(client, options, experiment, baseline, file_baseline)


def _judge(
    client: Client,
    options: GateOptions,
    experiment: ExperimentOut,
    baseline: str | None,
    file_baseline: RunData | None,
) -> GateResult:
    """Compare the finished run with its baseline (if any) and decide."""
    regression = inconclusive = False
    if experiment.status != ExperimentStatus.COMPLETED:
        decided = outcome(experiment, regression=False, inconclusive=False, fail_on_regression=True)
        return GateResult(
            experiment=experiment,
            baseline=baseline,
            report_md=f"The run did not complete: {decided.reason}\n",
            junit=_failed_junit(experiment, decided.reason),
            outcome=decided,
        )
    run_json = client.report_text(experiment.id, "json")
    if experiment.comparison_id is not None:
        comparison = client.get_comparison(experiment.comparison_id)
        regression, inconclusive = comparison.regression, comparison.report.inconclusive
        report_md = client.comparison_text(comparison.id, "md")
        junit = client.comparison_text(comparison.id, "junit")
    elif file_baseline is not None:
        from shared.analysis import ComparisonConfig, compare_runs, comparison_junit, comparison_markdown
        from yardstick.api.gates import Gate
        from yardstick.api.run_data import RunData

        candidate = RunData.model_validate(json.loads(run_json)["run"])
        config = ComparisonConfig(
            primary=options.primary or None, gates=[Gate.model_validate(g) for g in options.gates]
        )
        report = compare_runs(file_baseline, candidate, config)
        regression, inconclusive = report.regression, report.inconclusive
        report_md, junit = comparison_markdown(report), comparison_junit(report)
    else:
        report_md = client.report_text(experiment.id, "md")
        junit = client.report_text(experiment.id, "junit")
    return GateResult(
        experiment=experiment,
        baseline=baseline,
        comparison_id=experiment.comparison_id,
        report_md=report_md,
        junit=junit,
        run_json=run_json,
        outcome=outcome(
            experiment,
            regression=regression,
            inconclusive=inconclusive,
            fail_on_regression=options.fail_on_regression,
        ),
    )


def comment_body(result: GateResult, ctx: CiContext) -> str:
    """The markdown of the PR comment and the job summary: verdict, what was compared, the report."""
    experiment = result.experiment
    if result.baseline is not None:
        compared = f"Candidate `{experiment.name}` ({experiment.id}) against baseline `{result.baseline}`."
    elif ctx.records_baseline:
        compared = (
            f"Run `{experiment.name}` ({experiment.id}) recorded as the baseline of `{experiment.dataset}`."
        )
    else:
        compared = (
            f"Run `{experiment.name}` ({experiment.id}), **not compared**: no completed run of "
            f"`{experiment.dataset}` recorded on the default branch yet (a push there records one)."
        )
    verdict = HEADLINES[result.outcome.verdict]
    return (
        f"### Yardstick · `{experiment.dataset}` · {verdict}\n\n{compared}\n"
        f"{result.outcome.reason[:1].upper()}{result.outcome.reason[1:]}.\n\n{result.report_md.strip()}\n"
    )


def publish(
    result: GateResult, options: GateOptions, ctx: CiContext, env: Mapping[str, str]
) -> dict[str, str]:
    """Write the report files, the GitHub outputs, summary and comment; the outputs."""
    out = options.out_dir
    out.mkdir(parents=True, exist_ok=True)
    body = comment_body(result, ctx)
    (out / "report.md").write_text(body, encoding="utf-8")
    (out / "junit.xml").write_text(result.junit, encoding="utf-8")
    if result.run_json is not None:
        (out / "run.json").write_text(result.run_json, encoding="utf-8")
        if ctx.records_baseline and options.baseline_file is not None:
            options.baseline_file.parent.mkdir(parents=True, exist_ok=True)
            options.baseline_file.write_text(result.run_json, encoding="utf-8")
    print(body)
    values = (
        result.outcome.verdict,
        str(result.outcome.exit_code),
        result.experiment.id,
        result.comparison_id or "",
        str(out / "report.md"),
        str(out / "junit.xml"),
    )
    outputs = dict(zip(OUTPUT_NAMES, values, strict=True))
    if path := env.get("GITHUB_OUTPUT"):
        write_outputs(Path(path), outputs)
    if path := env.get("GITHUB_STEP_SUMMARY"):
        append_summary(Path(path), body)
    if options.comment and ctx.pull_request is not None and ctx.repository:
        _comment(body, comment_marker(options.name_prefix, result.experiment.dataset), ctx, env)
    return outputs


def _comment(body: str, marker: str, ctx: CiContext, env: Mapping[str, str]) -> None:
    assert ctx.pull_request is not None and ctx.repository is not None
    token = env.get("GITHUB_TOKEN")
    if not token:
        print("::warning::no GITHUB_TOKEN: the pull request gets no comment", file=sys.stderr)
        return
    try:
        with PullRequestComments(
            ctx.repository, ctx.pull_request, token, env.get("GITHUB_API_URL") or GITHUB_API
        ) as comments:
            done = comments.upsert(marker, body)
        print(f"pull request #{ctx.pull_request}: comment {done}", file=sys.stderr)
    except GithubApiError as exc:
        print(f"::warning::the pull request comment was not written: {exc}", file=sys.stderr)


def _bad_input(message: str, env: Mapping[str, str], verdict: str = "bad-input", code: int = 2) -> int:
    print(f"error: {message}", file=sys.stderr)
    if path := env.get("GITHUB_OUTPUT"):
        write_outputs(Path(path), {"verdict": verdict, "exit-code": str(code)})
    return code


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """The gate's exit code (see :mod:`yardstick.ci.verdict`)."""
    environ: Mapping[str, str] = os.environ if env is None else env
    for name in EMPTY_ENV:
        if os.environ.get(name) == "":
            del os.environ[name]
    try:
        options = parse_options(sys.argv[1:] if argv is None else argv, environ)
        ctx = ci_context(
            environ, branch=options.branch, sha=options.sha, default_branch=options.default_branch
        )
    except (OptionsError, CiContextError) as exc:
        return _bad_input(str(exc), environ)
    try:
        with LocalStack() if options.mode == "local" else contextlib.nullcontext():
            result = run_gate(options, ctx)
    except (StackStartError, TaskWorkerStartError, TimeoutError) as exc:
        return _bad_input(str(exc), environ, "run-failed", 3)
    except (ApiError, NotConfigured, TaskLoadError, ValueError) as exc:
        return _bad_input(str(exc), environ)
    publish(result, options, ctx, environ)
    return result.outcome.exit_code
