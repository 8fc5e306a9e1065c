"""Gate a CI job on Yardstick: ``python -m yardstick.ci`` (the GitHub Action ``action.yml`` at the
repository's root runs it; a GitLab job calls it the same way).

It runs a dataset through the team's target (a target spec, or a ``@yardstick.task`` function it
serves itself), names the run after the commit, compares it with the default branch's latest run,
writes the markdown and JUnit reports, keeps one pull-request comment up to date and exits like
``yardstick run --fail-on-regression`` (0 pass, 1 regression, 2 bad input, 3 the run went wrong or
was inconclusive). Modules: :mod:`~yardstick.ci.options` (flags and ``YARDSTICK_CI_*``),
:mod:`~yardstick.ci.context` (which commit, which branch), :mod:`~yardstick.ci.baseline` (names and the
baseline), :mod:`~yardstick.ci.gate` (the run), :mod:`~yardstick.ci.verdict` (exit codes),
:mod:`~yardstick.ci.github` (outputs, summary, comment), :mod:`~yardstick.ci.served_tasks` and
:mod:`~yardstick.ci.local_stack` (what it starts and stops).
"""

from yardstick.ci.gate import main

__all__ = ["main"]
