"""The error of an evaluator config that cannot be used, apart from the registry so that
the evaluators the registry lists can raise it too."""

from __future__ import annotations

from webtraj.model import InputError


class ConfigError(InputError):
    """An evaluator config that cannot be used (unknown name, unknown or bad option)."""
