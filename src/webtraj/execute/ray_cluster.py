"""One way to reach Ray for every executor (episodes and curation): the optional import with a
clear message, and joining a cluster (or starting a local one) with the project's settings."""

from __future__ import annotations

import os
import threading
from typing import Any

# Lanes of a run (tasks of different sites side by side) may connect at once: one init.
_CONNECTING = threading.Lock()


def ray_module() -> Any:
    try:
        import ray
    except ImportError:
        raise RuntimeError("the Ray executor needs the 'ray' extra: pip install 'webtraj[ray]'"
                           ) from None
    return ray


def connect(address: str | None = None, *, num_cpus: int | None = None,
            object_store_bytes: int | None = None) -> Any:
    """Ray, initialised once per process: joins `address` when given, else starts a local
    instance with `num_cpus` (default: every core) and, when given, an object store of
    `object_store_bytes` (Ray's default is 30% of the machine's memory). No dashboard, no log
    forwarding."""
    ray = ray_module()
    with _CONNECTING:
        return _connect(ray, address, num_cpus, object_store_bytes)


def _connect(ray: Any, address: str | None, num_cpus: int | None,
             object_store_bytes: int | None) -> Any:
    if ray.is_initialized() and address and _gcs_address(ray) != address:
        ray.shutdown()  # connected elsewhere (e.g. a local instance): join the one asked for
    if not ray.is_initialized():
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "ignore_reinit_error": True}
        if address:
            kwargs["address"] = address
        else:
            kwargs["num_cpus"] = num_cpus or os.cpu_count() or 1
            if object_store_bytes:
                kwargs["object_store_memory"] = object_store_bytes
        ray.init(**kwargs)
    return ray


def _gcs_address(ray: Any) -> str | None:
    try:
        return ray.get_runtime_context().gcs_address
    except Exception:  # noqa: BLE001 - an older Ray without it: assume it is the same
        return None
