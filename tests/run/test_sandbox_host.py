"""`--sandbox-host`: the sandbox sites served on an address other machines of a Ray cluster
can reach give the same per-task outcomes as on loopback: task URLs, the recorded site URLs
and the oracle all name that address."""

from __future__ import annotations

import socket

import pytest

from factories import SANDBOX_TODAY as TODAY
from webtraj.execute.run import RunConfig, execute_run
from webtraj.report.outcomes import outcomes

# Two runs of the sandbox: make test-slow.
pytestmark = pytest.mark.slow

TASKS = ("booking.hotels.02", "booking.cars.11")


def _outward_address() -> str | None:
    """This machine's address on its default route (no packet is sent), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
            addr = s.getsockname()[0]
        except OSError:
            return None
    return None if addr.startswith("127.") else addr


def test_sites_on_a_reachable_address_give_the_loopback_outcomes(tmp_path):
    host = _outward_address()
    if host is None:
        pytest.skip("no non-loopback IPv4 address")
    got = {}
    for name, addr in (("loopback", "127.0.0.1"), ("outward", host)):
        config = RunConfig(suite="booking", agent="replay", today=TODAY, task_ids=TASKS,
                           sandbox_host=addr)
        with execute_run(config, tmp_path / name) as store:
            assert all(url.startswith(f"http://{addr}:")
                       for url in store.info.site_urls.values()), store.info.site_urls
            for traj in store.iter_trajectories():
                assert traj.task.start_url.startswith(f"http://{addr}:")
                assert traj.steps[0].observation.url.startswith(f"http://{addr}:")
            got[name] = {o.task_id: (o.csr, o.n_steps, o.error, o.scores)
                         for o in outcomes(store)}
    assert set(got["outward"]) == set(TASKS)
    assert all(v[0] == 1.0 for v in got["outward"].values()), got
    assert got["outward"] == got["loopback"]
