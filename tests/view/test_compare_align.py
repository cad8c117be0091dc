"""Aligning steps across runs compares what an action acts on: an action by id and one by
role and name on the same element are the same step; the same role and name at another
position in the tree, or another value, is a divergence."""

from __future__ import annotations

from view_builders import task

from webtraj.model import Action, ActionKind, ElementTarget, Observation, Step, Trajectory
from webtraj.view.compare import align

TREE = ("[3] [heading] [Stays]\n[7] [button] [Search]\n[9] [button] [Search]\n"
        "[12] [textbox] [Where to?]")


def _traj(agent: str, *actions: Action) -> Trajectory:
    steps = tuple(Step(index=i, observation=Observation(url="http://127.0.0.1:1/", axtree=TREE),
                       action=a) for i, a in enumerate(actions))
    return Trajectory(trajectory_id=f"t-{agent}", task=task(1), agent=agent, steps=steps)


def test_same_element_by_id_or_by_name_does_not_diverge():
    by_id = _traj("a", Action(kind=ActionKind.CLICK, element_id="7"),
                  Action(kind=ActionKind.TYPE, element_id="12", value="Lisbon"),
                  Action(kind=ActionKind.CLICK, element_id="7"))
    by_name = _traj("b", Action(kind=ActionKind.CLICK, target=ElementTarget(
                        role="button", name="Search")),
                    Action(kind=ActionKind.TYPE, target=ElementTarget(
                        role="textbox", name="Where to?"), value="Lisbon"),
                    Action(kind=ActionKind.CLICK, target=ElementTarget(
                        role="button", name="Search", nth=1)))
    rows, first = align([by_id, by_name])
    assert rows[0].cells[0].element == rows[0].cells[1].element == "button 'Search'"
    assert first == 2  # the second "Search" button (id 9) is another element
    other_value = _traj("c", Action(kind=ActionKind.CLICK, element_id="7"),
                        Action(kind=ActionKind.TYPE, element_id="12", value="Paris"))
    assert align([by_id, other_value])[1] == 1
    assert align([by_id, by_id])[1] is None
