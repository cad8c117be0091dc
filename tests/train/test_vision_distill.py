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
