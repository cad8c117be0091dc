"""Reading a model's multiple-choice answer, e.g. `Answer: C. Action: SELECT Value: Pickup`.

The letter, the operation and the value's first line are read with patterns (the model's text
is never executed); a reply without a readable letter is marked `readable=False` (the
tournament records it as unparseable, never as "A", none of the above)."""

from __future__ import annotations

import re

from webtraj.model.base import FrozenModel

_LETTER = re.compile(r"(?i:answer)\s*:\s*\(?([A-Z])\b")
_LEADING_LETTER = re.compile(r"^\s*\(?([A-Z])[.):]")
_ACTION = re.compile(r"Action\s*:\s*(CLICK|SELECT|TYPE)\b", re.IGNORECASE)
_VALUE = re.compile(r"Value\s*:[ \t]*(.*)$", re.MULTILINE)
_ELEMENT_ID = re.compile(r"Element\s*:\s*.*?\bid\s*=\s*(\d+)", re.IGNORECASE)


class ChoiceAnswer(FrozenModel):
    letter: str
    op: str = ""
    value: str = ""
    readable: bool = True

    @property
    def none_of_the_above(self) -> bool:
        return self.letter == "A"


def _op_value(text: str) -> tuple[str, str]:
    a = _ACTION.search(text)
    v = _VALUE.search(text)
    return (a.group(1).upper() if a else ""), (v.group(1).strip() if v else "")


def parse_choice(text: str) -> ChoiceAnswer:
    text = text or ""
    m = _LETTER.search(text) or _LEADING_LETTER.search(text)
    op, value = _op_value(text)
    if m is None:
        return ChoiceAnswer(letter="A", op=op, value=value, readable=False)
    return ChoiceAnswer(letter=m.group(1).upper(), op=op, value=value)


class DirectAnswer(FrozenModel):
    element_number: int | None
    op: str = ""
    value: str = ""


def parse_direct(text: str) -> DirectAnswer:
    """`Element: <tag id=N ...>` / `Action: ...` / `Value: ...`; no id means no element."""
    m = _ELEMENT_ID.search(text or "")
    op, value = _op_value(text or "")
    return DirectAnswer(element_number=int(m.group(1)) if m else None, op=op, value=value)
