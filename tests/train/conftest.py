"""Session fixtures of the training tests (see train_support)."""

from __future__ import annotations

from pathlib import Path

import pytest

from train_support import curate, replay_run, tiny_base


@pytest.fixture(autouse=True)
def _isolated_llm_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WEBTRAJ_LLM_CACHE", str(tmp_path / "llm-cache.sqlite"))


@pytest.fixture(scope="session")
def replay_dir(tmp_path_factory) -> Path:
    return replay_run(tmp_path_factory.mktemp("replay") / "run")


@pytest.fixture(scope="session")
def split_data(replay_dir, tmp_path_factory) -> Path:
    """One task for training, the other for validation."""
    return curate(replay_dir, tmp_path_factory.mktemp("data") / "split", 0.5)


@pytest.fixture(scope="session")
def base_model(split_data, tmp_path_factory) -> Path:
    return tiny_base(split_data, tmp_path_factory.mktemp("tiny") / "base")
