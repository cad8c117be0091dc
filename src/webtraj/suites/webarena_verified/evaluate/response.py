"""AgentResponseEvaluator: is the agent's final answer the expected one?

The answer is `{task_type, status, retrieved_data}`, given as a dict, as JSON text, or as
text with a fenced ```json block. Type and status compare as folded text;
`retrieved_data` is compared only for retrieve tasks, read through `results_schema`, as an
unordered multiset unless `ordered` (a scalar counts as a one-item list; `[]`, null and a
missing key all mean "nothing").
"""

from __future__ import annotations

import json
import re
from contextlib import suppress
from typing import Any

from webtraj.suites.webarena_verified.evaluate.compare import compare, show
from webtraj.suites.webarena_verified.evaluate.config import AgentResponseConfig
from webtraj.suites.webarena_verified.evaluate.context import TaskContext
from webtraj.suites.webarena_verified.evaluate.result import Assertion, Verdict
from webtraj.suites.webarena_verified.evaluate.schema import normalize_items
from webtraj.suites.webarena_verified.evaluate.values import Text, Value

NAME = "AgentResponseEvaluator"
_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)\n?```", re.DOTALL)


def parse_response(raw: Any) -> Any:
    """The answer object inside raw agent output (or whatever else it was)."""
    if not isinstance(raw, str):
        return raw or None
    value: Any = raw.strip()
    fenced = _FENCE.search(raw)
    if fenced:
        value = fenced.group(1).strip()
    with suppress(json.JSONDecodeError):
        value = json.loads(value)
    return value or None


class AgentResponseEvaluator:
    name = NAME

    def __init__(self, config: AgentResponseConfig) -> None:
        self.config = config

    def evaluate(self, ctx: TaskContext) -> Verdict:
        actual: Any = None
        expected: Any = None
        try:
            expected = self._expected(ctx)
            actual = self._actual(ctx)
            assertions = self._compare(ctx, actual, expected)
        except Exception as exc:  # noqa: BLE001 - any failure is this evaluator's error
            return Verdict.failed(NAME, f"task {ctx.task_id}: {type(exc).__name__}: {exc}",
                                  actual=_json(actual))
        return Verdict.from_assertions(NAME, assertions, expected=_json(expected),
                                       actual=_json(actual))

    def _items(self, ctx: TaskContext, data: Any, strict: bool) -> Any:
        if not data and not isinstance(data, int | float | bool):
            return None
        data = tuple(data) if isinstance(data, list | tuple) else (data,)
        return normalize_items(data, self.config.results_schema, strict,
                               derender_url_fct=ctx.derender(strict))

    def _expected(self, ctx: TaskContext) -> dict[str, Any]:
        exp = self.config.expected
        return {"task_type": Text(exp.task_type.value), "status": Text(exp.status.value),
                "retrieved_data": self._items(ctx, exp.retrieved_data, True)}

    def _actual(self, ctx: TaskContext) -> Any:
        value = parse_response(ctx.agent_response)
        if not isinstance(value, dict):
            return value
        out: dict[str, Any] = {}
        for key in self.config.expected.model_fields_set:
            src = key
            if key == "task_type" and key not in value and "performed_operation" in value:
                src = "performed_operation"
            if src not in value:
                if key == "retrieved_data":
                    out[key] = None
                continue
            if key == "retrieved_data":
                got = self._items(ctx, value[src], False) if ctx.is_retrieve else None
            else:
                text = value.get(src, "").strip()  # a non-string here is an error, as upstream
                got = None
                if text:
                    try:
                        got = Text(text)
                    except ValueError:
                        got = text
            out[key] = got or None
        return out

    def _compare(self, ctx: TaskContext, actual: Any, expected: dict[str, Any]) -> list[Assertion]:
        out = compare(actual, expected, path="agent_response",
                      ignored_keys=frozenset({"retrieved_data"}))
        if not isinstance(actual, dict) or not ctx.is_retrieve or not actual:
            return out
        want, got = expected["retrieved_data"], actual.get("retrieved_data")
        if want is None and got is None:
            return out
        if want is None:
            out.append(Assertion(name="retrieved_data_unexpected", messages=(
                f"expected no retrieved_data, got {show(got)}",)))
        elif got is None:
            out.append(Assertion(name="retrieved_data_missing_or_null", messages=(
                f"expected retrieved_data {show(want)}, got null or empty",)))
        else:
            out.extend(compare(tuple(got), tuple(want), path="retrieved_data",
                               ordered=self.config.ordered))
        return out


def _json(value: Any) -> Any:
    """Normalized values in a JSON-friendly form, for reports."""
    if isinstance(value, Value):
        return value.to_json()
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
