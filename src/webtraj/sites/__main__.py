"""`python -m webtraj.sites --port-base N --today DATE --seed N`: serve all five sites."""

from __future__ import annotations

import argparse
import asyncio

from webtraj.runtime.children import die_with_parent
from webtraj.sites.common.dates import resolve_today
from webtraj.sites.registry import DEFAULT_PORT_BASE
from webtraj.sites.server import serve_all


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m webtraj.sites")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port-base", type=int, default=DEFAULT_PORT_BASE)
    p.add_argument("--today", default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--parent-pid", type=int, default=None,
                   help="exit when this process (the one that started us) dies")
    a = p.parse_args()
    if a.parent_pid is not None:
        die_with_parent(a.parent_pid)
    asyncio.run(serve_all(a.host, a.port_base, resolve_today(a.today), a.seed))


if __name__ == "__main__":
    main()
