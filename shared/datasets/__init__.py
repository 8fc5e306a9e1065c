"""Dataset file formats shared by the CLI, the coordinator and the evaluators."""

from shared.datasets.trajectory_scenarios import (
    ScenarioDatasetItem,
    ScenarioFileError,
    TrajectoryRequirements,
    TrajectoryScenario,
    TrajectoryScenarioFile,
    load_trajectory_scenarios,
    parse_trajectory_scenarios,
    scenarios_file_to_dataset,
    scenarios_to_items,
)

__all__ = [
    "ScenarioDatasetItem",
    "ScenarioFileError",
    "TrajectoryRequirements",
    "TrajectoryScenario",
    "TrajectoryScenarioFile",
    "load_trajectory_scenarios",
    "parse_trajectory_scenarios",
    "scenarios_file_to_dataset",
    "scenarios_to_items",
]
