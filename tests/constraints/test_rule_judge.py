import pytest

from webtraj.evaluate.constraints.rule_judge import RuleJudge
from webtraj.model import Constraint, Observation, Task
from webtraj.model.constraint_values import location_matches, parse_date, values_match


def _task(*constraints):
    return Task(task_id="t", intent="x", constraints=constraints)


def _checks(task, obs, **kw):
    return {c.name: c for c in RuleJudge(**kw).check(task, obs)}


def test_reads_url_query_with_typed_values():
    task = _task(Constraint(name="location", value="Aspen, CO", type="location"),
                 Constraint(name="start_date", value="Aug 2, 2026", type="date"),
                 Constraint(name="end_date", value="August 09, 2026", type="date"),
                 Constraint(name="adults", value=2, type="number"),
                 Constraint(name="pet_friendly", value=True, type="boolean"))
    obs = Observation(url="http://h/search?destination=aspen&checkin=2026-08-02"
                          "&checkout=2026-08-10&adults=2&amenities=pool,pet_friendly")
    got = _checks(task, obs)
    assert got["location"].matching and got["location"].agent_state == "aspen"
    assert got["start_date"].matching
    assert got["end_date"].matching is False and got["end_date"].agent_state == "2026-08-10"
    assert got["adults"].matching
    assert got["pet_friendly"].matching


def test_structured_data_wins_and_bounds():
    task = _task(Constraint(name="min_stars", value=4, type="number"),
                 Constraint(name="max_price", value=200, type="number"),
                 Constraint(name="depart_after", value="14:00", type="text"),
                 Constraint(name="made_selection", value=True, type="boolean"))
    data = ({"page": "listing", "values": {"min_stars": 5, "max_price": 180,
                                           "depart_after": "15:30"}},)
    obs = Observation(url="http://h/hotel/h12?max_price=999", structured_data=data)
    got = _checks(task, obs)
    assert all(c.matching for c in got.values()), got
    got = _checks(task, obs, sources=("url", "text"))
    assert got["max_price"].matching is False  # the URL says 999
    assert got["made_selection"].matching  # an id-like path segment: a listing page


def test_results_page_is_not_a_selection_and_unseen_is_unmet():
    task = _task(Constraint(name="made_selection", value=True, type="boolean"),
                 Constraint(name="car_type", value="suv", type="enum"))
    obs = Observation(url="http://c/search?pickup=2026-03-01",
                      structured_data=({"@type": "ItemList", "itemListElement": []},),
                      axtree="[3] [heading] [Cars in Denver]")
    got = _checks(task, obs)
    assert got["made_selection"].matching is False
    assert got["car_type"].matching is False and got["car_type"].agent_state is None
    assert "not shown" in got["car_type"].reason


def test_text_fallback():
    task = _task(Constraint(name="airline", value="Atlas Airlines", type="text"),
                 Constraint(name="breakfast", value=True, type="boolean"),
                 Constraint(name="departure_date", value="March 15, 2026", type="date"))
    tree = ("[1] [heading] [Atlas Airlines · 2h 10m]\n\t[2] [checkbox] [Breakfast included] "
            "[checked]\n\t[] [StaticText] [Sun, March 15, 2026]")
    got = _checks(task, Observation(url="http://f/trip", axtree=tree))
    assert all(c.matching for c in got.values()), got


@pytest.mark.parametrize(("a", "b", "ok"), [
    ("Aspen, CO", "Aspen", True), ("Aspen, CO", "aspen, colorado", True),
    ("Aspen, CO", "Aspen, Utah", False), ("New York", "NYC", True), ("Paris", "Lyon", False),
])
def test_location_matching(a, b, ok):
    assert location_matches(a, b) is ok


def test_value_parsing():
    assert parse_date("Aug 2, 2026") == parse_date("2026-08-02") == parse_date("2 August 2026")
    assert parse_date("not a date") is None
    c = Constraint(name="guests", value=3, type="number")
    assert values_match(c, "three") and values_match(c, "3 guests")
    assert not values_match(c, "4")
    e = Constraint(name="cabin", value="business", type="enum", aliases=("Business class",))
    assert values_match(e, "BUSINESS") and values_match(e, "business class")


@pytest.mark.parametrize(("url", "selected"), [
    ("http://t/journey/parbru-05?date=2026-03-28", True),
    ("http://c/checkout?car=c5005&pickup=2026-04-16", True),
    ("http://f/trip?trip=round&from=BOS&out=AT3419", True),
    ("http://f/search?trip=round&from=BOS&to=FCO", False),
    ("http://h/search?destination=Lisbon&adults=2", False),
])
def test_selection_from_url_alone(url, selected):
    task = _task(Constraint(name="made_selection", value=True, type="boolean"))
    got = _checks(task, Observation(url=url), sources=("url", "text"))
    assert got["made_selection"].matching is selected


def test_listed_feature_counts_without_a_control():
    task = _task(Constraint(name="pet_friendly", value=True, type="boolean"))
    tree = "[1] [heading] [Casa Azul]\n\t[] [listitem] [Pet-friendly]"
    assert _checks(task, Observation(url="http://h/hotel/h1", axtree=tree))["pet_friendly"].matching


def test_published_page_state_is_authoritative():
    task = _task(Constraint(name="location", value="Lisbon", type="location"))
    tree = "[17] [combobox] [Where are you going?] [value=Lisbon]\n[] [StaticText] [Lisbon]"
    home = Observation(url="http://h/", axtree=tree,
                       structured_data=({"page": "home", "values": {}},))
    assert _checks(task, home)["location"].matching is False
    # Without that state the visible text is the evidence.
    assert _checks(task, home, sources=("url", "text"))["location"].matching is True
