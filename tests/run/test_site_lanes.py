"""Tasks that change sites run one at a time per site and side by side across sites; what a
lane posts runs on the caller's thread (the run store's SQLite is bound to it)."""

from __future__ import annotations

import threading

import pytest

from webtraj.execute.site_lanes import run_per_site

SITES = {"a": ("reddit",), "b": ("reddit",), "c": ("gitlab",), "d": ("reddit", "gitlab"),
         "e": ("gitlab",)}


def test_one_at_a_time_per_site_and_side_by_side_across_sites():
    events: list[tuple[str, str]] = []
    lock = threading.Lock()
    started = {k: threading.Event() for k in SITES}
    main, posted_on = threading.get_ident(), set()

    def run_one(item: str, post) -> None:  # type: ignore[no-untyped-def]
        with lock:
            events.append(("start", item))
        started[item].set()
        # a and c (different sites) each wait for the other: both finish only side by side
        meet = {"a": "c", "c": "a"}.get(item)
        if meet is not None:
            assert started[meet].wait(60), f"{meet} never ran beside {item}"
        with lock:
            events.append(("end", item))
        post(lambda: posted_on.add(threading.get_ident()))

    run_per_site(list(SITES), SITES.__getitem__, run_one, parallel=3)
    assert posted_on == {main}
    assert sorted(i for kind, i in events if kind == "end") == sorted(SITES)
    for x in SITES:  # two items sharing a site: one ended before the other started
        for y in SITES:
            if x < y and set(SITES[x]) & set(SITES[y]):
                sx, ex = events.index(("start", x)), events.index(("end", x))
                sy, ey = events.index(("start", y)), events.index(("end", y))
                assert ex < sy or ey < sx, (x, y, events)
    # items start in the order given when their sites are free
    assert events.index(("start", "a")) < events.index(("start", "b"))


def test_a_failing_item_stops_the_lanes_and_is_raised():
    ran: list[str] = []

    def run_one(item: str, post) -> None:  # type: ignore[no-untyped-def]
        ran.append(item)
        if item == "a":
            raise RuntimeError("reset broke")

    with pytest.raises(RuntimeError, match="reset broke"):
        run_per_site(["a", "b"], SITES.__getitem__, run_one, parallel=1)
    assert ran == ["a"]
