import pytest


@pytest.fixture(autouse=True)
def _no_stray_secrets(monkeypatch):
    """Tests decide which secrets exist; the developer's environment does not leak in."""
    import os

    for key in list(os.environ):
        if any(w in key.upper() for w in ("API_KEY", "_TOKEN", "SECRET", "PASSWORD")):
            monkeypatch.delenv(key, raising=False)


@pytest.fixture(scope="session")
def _miniwob_cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("miniwob-cache")


@pytest.fixture(autouse=True)
def _miniwob_cache_in_tmp(monkeypatch, _miniwob_cache_dir):
    """MiniWoB++ instructions read ahead are cached in the test session's folder, never in
    the developer's cache (a test that checks the cache sets its own)."""
    monkeypatch.setenv("WEBTRAJ_MINIWOB_CACHE", str(_miniwob_cache_dir))
