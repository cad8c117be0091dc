"""What defines a run (compared when a later command writes into it), including runs written
before definitions were kept."""

import datetime as dt

from webtraj.model.run import ModelInfo, RunConfig, RunDefinition, RunInfo, SandboxInfo

MODEL = ModelInfo(endpoint="http://127.0.0.1:8000/v1", model="qwen", params={"temperature": 0})


def test_differences_name_each_changed_setting_and_only_those():
    config = RunConfig(suite="booking", agent="llm", max_steps=5)
    run = RunDefinition.of(config, model=MODEL)
    same = RunDefinition.of(config.model_copy(update={"workers": 4, "trials": 3,
                                                      "timeout_s": 9.0, "limit": 2}),
                            model=MODEL.model_copy(update={"endpoint": "http://h:9/v1"}))
    assert run.differences(same) == []  # episodes chosen or run differently; model moved
    other = RunDefinition.of(config.model_copy(update={"max_steps": 3, "seed": 1}),
                             model=MODEL.model_copy(update={"model": "llama"}))
    diffs = run.differences(other)
    assert "max_steps: the run has 5, this command 3" in diffs
    assert "seed: the run has 0, this command 1" in diffs
    assert any(d.startswith("model: the run has") and "qwen" in d and "llama" in d
               for d in diffs)
    assert len(diffs) == 3


def test_a_run_from_before_definitions_is_compared_on_its_recorded_settings():
    settings = RunConfig(suite="booking", agent="heuristic", max_steps=7)
    old = RunInfo(settings=settings, sandbox=SandboxInfo(today=dt.date(2026, 1, 15)))
    recorded = old.recorded_definition()
    assert recorded.today == "2026-01-15" and recorded.tasks_digest is None
    assert recorded.differences(RunDefinition.of(settings, tasks_digest="0" * 64)) == []
    assert recorded.differences(RunDefinition.of(
        settings.model_copy(update={"today": "2026-02-01"}))) == [
        "today: the run has '2026-01-15', this command '2026-02-01'"]
    assert RunInfo(source="browser-use").recorded_definition() is None
