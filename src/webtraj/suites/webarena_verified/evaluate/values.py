"""Typed values with WebArena-Verified comparison semantics.

A value is built from a raw input (or from a list of 2+ raw alternatives, meaning "any
of these"); building fails with ValueError when the input does not fit the type. Two
values are equal when any alternative of one matches any alternative of the other.
"""

from __future__ import annotations

import base64
import calendar
import json
import re
from decimal import Decimal
from typing import Any, ClassVar

from webtraj.suites.webarena_verified.evaluate.text import Derender, fold_text, is_pattern


class Value:
    """Base of all typed values; subclasses define `_convert` (and sometimes `_equal`)."""

    type_name: ClassVar[str] = "value"

    def __init__(self, raw: Any, *, derender_url_fct: Derender | None = None, **_: Any) -> None:
        self.raw = raw
        self.derender = derender_url_fct
        if isinstance(raw, list | tuple):
            if len(raw) < 2:
                raise ValueError(
                    f"a list of alternatives needs 2+ items, got {len(raw)}: {raw!r}")
            self.alternatives: tuple[Any, ...] = tuple(self._pipeline(v) for v in raw)
        else:
            self.alternatives = (self._pipeline(raw),)
        self.normalized = self.alternatives[0]

    def _prepare(self, s: str) -> str:
        return fold_text(s, self.derender)

    def _pipeline(self, value: Any) -> Any:
        if isinstance(value, str):
            value = self._prepare(value)
        return self._convert(value)

    def _convert(self, value: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def is_regexp(self) -> bool:
        return any(is_pattern(str(a)) for a in self.alternatives)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, self.__class__):
            return False
        return bool(set(self.alternatives) & set(other.alternatives))

    def __hash__(self) -> int:
        return hash(str(self.normalized))

    def __str__(self) -> str:
        return str(self.normalized)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.normalized!r})"

    def to_json(self) -> Any:
        """A JSON-friendly form for reports."""
        n = self.normalized
        if isinstance(n, Decimal):
            return float(n)
        if isinstance(n, tuple):
            return list(n)
        if isinstance(n, str | int | float | bool | dict) or n is None:
            return n
        return str(n)


def _regex_any(patterns: tuple[Any, ...], targets: tuple[Any, ...], flags: int) -> bool:
    for p in patterns:
        if is_pattern(p):
            try:
                rx = re.compile(p, flags)
            except re.error:
                continue
            if any(isinstance(t, str) and rx.fullmatch(t) for t in targets):
                return True
    return False


_EDGE_PUNCT = "'\"`.,;:!?"


class Text(Value):
    """Free text: folded; `^...$` matches case-insensitively; edge punctuation tolerated."""

    type_name = "string"

    def _convert(self, value: Any) -> str:
        if not value:
            return ""
        if is_pattern(value):
            return str(value).strip()
        return str(value).lower().strip()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = Text(other)
        if not isinstance(other, self.__class__):
            return False
        a, b = self.alternatives, other.alternatives
        if _regex_any(a, b, re.IGNORECASE) or _regex_any(b, a, re.IGNORECASE):
            return True
        if set(a) & set(b):
            return True
        return bool({s.strip(_EDGE_PUNCT) for s in a} & {s.strip(_EDGE_PUNCT) for s in b})

    __hash__ = Value.__hash__


class Number(Value):
    type_name = "number"

    def _convert(self, value: Any) -> float:
        if not value and not isinstance(value, int | float | Decimal):
            raise ValueError("empty number")
        if isinstance(value, int | float):
            return float(value)
        s = str(value).replace(",", "").replace(" ", "")
        try:
            return float(s)
        except ValueError:
            from word2number import w2n

            try:
                return float(w2n.word_to_num(str(value)))
            except ValueError as exc:
                raise ValueError(f"not a number: {value!r}") from exc


class Boolean(Value):
    type_name = "boolean"
    _TRUE = frozenset({"true", "yes", "y", "1", "t", "on"})
    _FALSE = frozenset({"false", "no", "n", "0", "f", "off"})

    def _convert(self, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int | float):
            return bool(value)
        if isinstance(value, str) and value:
            s = value.strip().lower()
            if s in self._TRUE:
                return True
            if s in self._FALSE:
                return False
        raise ValueError(f"not a boolean: {value!r}")


class Empty(Value):
    """null, "", [], {}, "N/A", "none"...: all the same 'nothing'."""

    type_name = "null"
    _WORDS = frozenset({"n/a", "na", "nan", "null", "none"})

    def _prepare(self, s: str) -> str:
        if not s:
            return s
        s = re.sub(r"\s+", " ", s.strip().lower())
        return re.sub(r"\s*/\s*", "/", s)

    def _convert(self, value: Any) -> None:
        if not value:
            if isinstance(value, int | float | Decimal):
                raise ValueError("zero is a value, not empty")
            return None
        if isinstance(value, str) and value in self._WORDS:
            return None
        raise ValueError(f"not an empty value: {value!r}")


class JsonText(Value):
    """A JSON document in a string, compared after re-serializing with sorted keys."""

    type_name = "json"

    def _convert(self, value: Any) -> str:
        if not isinstance(value, str) or not value:
            raise ValueError(f"json needs a non-empty string, got {value!r}")
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"invalid JSON string: {value!r}") from exc
        return json.dumps(parsed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Markdown(Value):
    """Markdown: case and Unicode kept, layout differences (line ends, bullets) folded."""

    type_name = "markdown"

    def _prepare(self, s: str) -> str:
        return s.strip()

    def _convert(self, value: Any) -> str:
        if not isinstance(value, str) or not value:
            raise ValueError(f"markdown needs a non-empty string, got {value!r}")
        c = value.replace("\r\n", "\n").replace("\r", "\n")
        c = re.sub(r"[ \t]+$", "", c, flags=re.MULTILINE)
        c = re.sub(r"\n{3,}", "\n\n", c)
        c = re.sub(r"^(\s*)(#{1,6})[ \t]+", r"\1\2 ", c, flags=re.MULTILINE)
        c = re.sub(r"^(\s*)[\*\+][ \t]+", r"\1- ", c, flags=re.MULTILINE)
        c = re.sub(r"^[ \t]+(-)", r"  \1", c, flags=re.MULTILINE)
        c = re.sub(r"\[([^\]]*?)\n\s*([^\]]*?)\](\([^\)]+\))",
                   lambda m: f"[{m.group(1)} {m.group(2)}]{m.group(3)}", c)
        c = re.sub(r"\[([^\]]+)\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", c)
        c = re.sub(r"\(\s*([^\)]+?)\s*\)", r"(\1)", c)
        return c.strip()


class StringList(Value):
    """"a, b,c" compared as a sorted set of items."""

    type_name = "string_list"

    def _convert(self, value: Any) -> tuple[str, ...]:
        if not value:
            raise ValueError("empty string list")
        items = [i.strip() for i in str(value).split(",")]
        items = [i for i in items if i]
        if not items:
            raise ValueError(f"no items in {value!r}")
        return tuple(sorted(items))


class Base64Text(Value):
    """Base64 content compared decoded; a `^...$` pattern matches the decoded text."""

    type_name = "base64"

    def _prepare(self, s: str) -> str:
        return s.strip()

    def _convert(self, value: Any) -> str:
        if not isinstance(value, str) or not value:
            raise ValueError(f"base64 needs a non-empty string, got {value!r}")
        if is_pattern(value):
            return value.strip()
        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except Exception as exc:  # noqa: BLE001
            raise ValueError(f"invalid base64 string: {value!r}") from exc
        return decoded.replace("\r\n", "\n").replace("\r", "\n").strip()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, self.__class__):
            return False
        a, b = self.alternatives, other.alternatives
        if _regex_any(a, b, re.DOTALL) or _regex_any(b, a, re.DOTALL):
            return True
        return bool(set(a) & set(b))

    __hash__ = Value.__hash__


class Month(Value):
    type_name = "month"

    def _convert(self, value: Any) -> str:
        if isinstance(value, int | float | Decimal):
            if value != int(value):
                raise ValueError(f"month must be whole, got {value}")
            return self._name(int(value))
        if not value:
            raise ValueError("empty month")
        s = str(value).strip()
        if not s:
            raise ValueError("empty month")
        try:
            n = int(s)
        except ValueError:
            n = None
        if n is not None:
            return self._name(n)
        from dateutil import parser

        try:
            dt = parser.parse(s, default=parser.parse("2000-01-01"))
        except (ValueError, OverflowError, parser.ParserError) as exc:
            raise ValueError(f"not a month: {value!r}") from exc
        return calendar.month_name[dt.month]

    @staticmethod
    def _name(n: int) -> str:
        if 1 <= n <= 12:
            return calendar.month_name[n]
        raise ValueError(f"month number out of range (1-12): {n}")


class Date(Value):
    """Any common date spelling, compared as an ISO day (month-first when ambiguous)."""

    type_name = "date"

    def _convert(self, value: Any) -> str:
        from dateutil import parser

        if not value:
            raise ValueError("empty date")
        value = re.sub(r",(?! )", ", ", value)
        return parser.parse(str(value), dayfirst=False).date().isoformat()
