"""Report renderers over the analysis models: markdown, JUnit XML and a versioned JSON export.

- ``comparison_markdown(report)``, ``comparison_junit(report)`` for a ``ComparisonReport``
  (its JSON is the model itself);
- ``experiment_markdown(run, aggregates)``, ``experiment_junit(run, aggregates)``,
  ``experiment_json(run, aggregates)`` for one experiment.
"""

from shared.analysis.reports.json_export import experiment_json
from shared.analysis.reports.junit import comparison_junit, experiment_junit
from shared.analysis.reports.markdown import comparison_markdown, experiment_markdown

__all__ = [
    "comparison_junit",
    "comparison_markdown",
    "experiment_json",
    "experiment_junit",
    "experiment_markdown",
]
