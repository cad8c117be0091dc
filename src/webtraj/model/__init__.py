"""Model layer: the central objects and their versioned JSON form."""

from webtraj.model.action import Action, ActionKind, ElementTarget
from webtraj.model.action_text import (
    ACTION_PHRASE,
    ActionParseError,
    ParsedAnswer,
    parse_action,
    parse_answer,
)
from webtraj.model.base import SCHEMA_VERSION, Document, FrozenModel
from webtraj.model.errors import InputError
from webtraj.model.run import RunInfo
from webtraj.model.score import ConstraintCheck, Score, StepCheck
from webtraj.model.task import MADE_SELECTION, Constraint, ConstraintType, Difficulty, Task
from webtraj.model.trajectory import (
    ElementBox,
    Observation,
    Step,
    StepTimings,
    Tab,
    Termination,
    Trajectory,
)

__all__ = [
    "ACTION_PHRASE", "MADE_SELECTION", "SCHEMA_VERSION", "Action", "ActionKind",
    "ActionParseError", "Constraint", "ConstraintCheck", "ConstraintType", "Difficulty",
    "Document", "ElementBox", "ElementTarget", "FrozenModel", "InputError", "Observation",
    "ParsedAnswer",
    "RunInfo", "Score", "Step", "StepCheck", "StepTimings", "Tab", "Task", "Termination",
    "Trajectory",
    "parse_action", "parse_answer",
]
