"""The distill recipe builds records with the teacher's observation and runs the student
with it: a student prompt that differs is refused, naming the difference."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

RECIPE = """
out: {out}
teacher:
  agent: llm
  llm: base_url=http://127.0.0.1:9/v1,model=t
  agent_options: {{observation: tree+screenshot, image_max_side: 320}}
base: {base}
student:
  agent_options: {student}
"""


def _recipe(tmp_path, student: str):
    path = tmp_path / "distill.yaml"
    path.write_text(RECIPE.format(out=tmp_path / "out", base=tmp_path / "base",
                                  student=student))
    return path


def test_the_student_prompt_defaults_to_the_teachers_observation(tmp_path):
    from webtraj.train.distill_config import load_distill_config

    cfg = load_distill_config(_recipe(tmp_path, "null"))
    prompt = cfg.prompt_options()
    assert prompt.observation.value == "tree+screenshot" and prompt.image_max_side == 320
    same = load_distill_config(_recipe(
        tmp_path, "{observation: tree+screenshot, image_max_side: 320}"))
    assert same.prompt_options() == prompt


def test_a_student_observation_other_than_the_teachers_is_refused(tmp_path):
    from webtraj.cli.app import app
    from webtraj.model.errors import InputError
    from webtraj.train.distill_config import load_distill_config

    path = _recipe(tmp_path, "{observation: tree}")
    with pytest.raises(InputError) as err:
        load_distill_config(path)
    assert "observation: 'tree' != 'tree+screenshot'" in str(err.value)
    assert str(path) in str(err.value)
    res = CliRunner().invoke(app, ["distill", str(path)])
    assert res.exit_code == 2
    assert "a student is evaluated with the observation it was trained on" in " ".join(
        res.output.split())
    assert "Traceback" not in res.output


@pytest.mark.slow
def test_distill_with_screenshots_trains_and_runs_a_vision_student(replay_dir, split_data,
                                                                  tmp_path):
    """The whole loop through `webtraj distill`: an llm teacher that sees the screenshot
    (the scripted endpoint answering with the replay agent's recorded answers), curation
    with its observation (image records), a tiny vision-language student trained on them,
    served by serve-local and run with the same observation on the same tasks."""
    import orjson

    from factories import SANDBOX_TODAY
    from train_support import TASKS, recorded_replies, records
    from webtraj.cli.app import app
    from webtraj.store import RunStore
    from webtraj.testing.llm_server import ScriptedLLMServer
    from webtraj.testing.tiny_model import build_tiny_vlm, chat_texts

    reply, _ = recorded_replies(split_data)
    base = build_tiny_vlm(chat_texts(records(split_data)), tmp_path / "base")
    vision = {"observation": "tree+screenshot", "image_max_side": 320}
    out = tmp_path / "distill"
    with ScriptedLLMServer(default=reply) as srv:
        recipe = {"out": str(out), "suite": "booking", "today": SANDBOX_TODAY,
                  "task_ids": list(TASKS), "data": "partial", "val_fraction": 0.5,
                  "teacher": {"agent": "llm", "max_steps": 15, "agent_options": vision,
                              "llm": f"base_url={srv.base_url},model=scripted"},
                  "base": str(base),
                  "train": {"epochs": 2, "batch_size": 4, "learning_rate": 1e-2,
                            "warmup_ratio": 0, "lora": {"modules_to_save": ["lm_head"]}},
                  "student": {"max_tokens": 40, "max_steps": 3}}
        path = tmp_path / "recipe.json"
        path.write_bytes(orjson.dumps(recipe))
        res = CliRunner().invoke(app, ["distill", str(path)])
    assert res.exit_code == 0, res.output
    report = orjson.loads((out / "distill_report.json").read_bytes())
    assert report["train"]["kind"] == "vision"
    assert report["train"]["final_loss"] < report["train"]["first_loss"]
    curated = [orjson.loads(x) for x in (out / "curated" / "train.jsonl").read_bytes()
               .splitlines()]
    assert curated and all(len(r["images"]) == 1 for r in curated)
    for run in ("teacher", "student"):
        with RunStore.open(out / run) as store:
            assert store.info.settings.agent_options["observation"] == "tree+screenshot", run
            trajs = list(store.iter_trajectories())
        assert len(trajs) == 2 and all(t.error is None for t in trajs)
    total = report["comparison"]["rows"][-1]
    assert total["student"]["episodes"] == 2 and total["student"]["scored"] == 2
