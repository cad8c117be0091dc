"""`webtraj train`'s options are TrainSettings' (and LoraSettings') fields: each takes its
default and help from the model, so the command line and the Python API cannot disagree."""

import click
import typer

from webtraj.cli.app import app
from webtraj.train.config import LoraSettings, TrainSettings

# Options that are no setting of a fine-tuning run (where the run is, what it reads).
NOT_SETTINGS = {"data", "base", "out"}
LORA = {"lora_r": "r", "lora_alpha": "alpha", "lora_dropout": "dropout",
        "targets": "targets", "modules_to_save": "modules_to_save",
        "vision_tower": "vision_tower"}


def _field(param: str):
    if param in LORA:
        return LoraSettings.model_fields[LORA[param]], False
    if param.startswith("no_"):
        return TrainSettings.model_fields[param[3:]], True
    return TrainSettings.model_fields[param], False


def test_every_train_option_takes_default_and_help_from_the_settings_model():
    group = typer.main.get_command(app)
    cmd = group.get_command(click.Context(group), "train")
    params = [p for p in cmd.params if p.param_type_name == "option"]
    seen = set()
    for p in params:
        if p.name in NOT_SETTINGS:
            continue
        field, negated = _field(p.name)
        seen.add(p.name)
        default = field.get_default()
        if isinstance(default, tuple):
            default = ",".join(default)
        if negated:
            default = not default
        assert p.default == default, p.name
        words = (field.description or "").split()
        assert words and " ".join(words[1:6]) in " ".join(p.help.split()), p.name
    # The options of issue 39 are there, from the model.
    assert {"lm_head", "token_statistics"} <= seen
    assert len(seen) >= 25
