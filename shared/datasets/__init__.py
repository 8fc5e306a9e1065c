"""Dataset file formats shared by the CLI, the coordinator and the evaluators."""

from shared.datasets.conversations import (
    CONVERSATION_KIND,
    ConversationCase,
    ConversationExpectation,
    ConversationFile,
    ConversationFileError,
    ConversationInput,
    ConversationItem,
    ScriptedTurn,
    TurnExpectation,
    conversations_file_to_dataset,
)
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
    "CONVERSATION_KIND",
    "ConversationCase",
    "ConversationExpectation",
    "ConversationFile",
    "ConversationFileError",
    "ConversationInput",
    "ConversationItem",
    "ScenarioDatasetItem",
    "ScenarioFileError",
    "ScriptedTurn",
    "TrajectoryRequirements",
    "TrajectoryScenario",
    "TrajectoryScenarioFile",
    "TurnExpectation",
    "conversations_file_to_dataset",
    "load_trajectory_scenarios",
    "parse_trajectory_scenarios",
    "scenarios_file_to_dataset",
    "scenarios_to_items",
]
