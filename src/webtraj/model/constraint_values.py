"""Typed reading and comparison of constraint values, shared by the rule judge, the oracle
comparison and relabeling: a date in any common format, a location with abbreviations, a
number written as digits or words, a yes/no, an enum with synonyms."""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime

from dateutil import parser as date_parser

from webtraj.model.task import Constraint, ConstraintType

_WORD_NUMBERS = {w: i for i, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty"))}
_TRUE = {"true", "yes", "y", "1", "on", "checked", "selected", "included", "allowed"}
_FALSE = {"false", "no", "n", "0", "off", "unchecked", "none", "not allowed", "excluded"}
_US_STATES = {
    "al": "alabama", "ak": "alaska", "az": "arizona", "ar": "arkansas", "ca": "california",
    "co": "colorado", "ct": "connecticut", "de": "delaware", "fl": "florida", "ga": "georgia",
    "hi": "hawaii", "id": "idaho", "il": "illinois", "in": "indiana", "ia": "iowa",
    "ks": "kansas", "ky": "kentucky", "la": "louisiana", "me": "maine", "md": "maryland",
    "ma": "massachusetts", "mi": "michigan", "mn": "minnesota", "ms": "mississippi",
    "mo": "missouri", "mt": "montana", "ne": "nebraska", "nv": "nevada",
    "nh": "new hampshire", "nj": "new jersey", "nm": "new mexico", "ny": "new york",
    "nc": "north carolina", "nd": "north dakota", "oh": "ohio", "ok": "oklahoma",
    "or": "oregon", "pa": "pennsylvania", "ri": "rhode island", "sc": "south carolina",
    "sd": "south dakota", "tn": "tennessee", "tx": "texas", "ut": "utah", "vt": "vermont",
    "va": "virginia", "wa": "washington", "wv": "west virginia", "wi": "wisconsin",
    "wy": "wyoming", "dc": "district of columbia",
}
_CITY_ABBREVIATIONS = {"nyc": "new york", "la": "los angeles", "sf": "san francisco",
                       "dc": "washington", "nola": "new orleans", "philly": "philadelphia",
                       "vegas": "las vegas"}


def fold(text: str) -> str:
    """Case-, accent- and space-insensitive form for comparing free text."""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return re.sub(r"\s+", " ", text).strip().casefold()


def parse_date(value: object, *, default_year: int | None = None) -> date | None:
    """A date from ISO, US numeric or written forms ("Aug 2, 2025", "2 August 2025")."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    if not text or len(text) > 60 or not re.search(r"\d", text):
        return None
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?", text)
    if m:
        try:
            return date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            return None
    default = datetime(default_year or date.today().year, 1, 1)
    try:
        return date_parser.parse(text, default=default).date()
    except (ValueError, OverflowError, date_parser.ParserError):
        return None


def parse_number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = fold(str(value))
    word = _WORD_NUMBERS.get(text.split(" ")[0]) if text else None
    if word is not None:
        return float(word)
    m = re.search(r"-?\d[\d,]*(?:\.\d+)?", text)
    if not m:
        return None
    try:
        return float(m.group(0).replace(",", ""))
    except ValueError:
        return None


def parse_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    text = fold(str(value))
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return None


def _place_tokens(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"[,;/()|]", fold(text)) if p.strip()]
    out = []
    for p in parts:
        p = re.sub(r"[^\w\s-]", "", p).replace("-", " ").strip()
        p = re.sub(r"\s+", " ", p)
        out.append(_CITY_ABBREVIATIONS.get(p, _US_STATES.get(p, p)) if len(p) <= 5 else p)
    return out


def location_matches(expected: str, observed: str) -> bool:
    """The place named first (the city) must agree; further parts (state, country) must agree
    only when both sides give them ("Aspen, CO" ~ "Aspen"; not ~ "Aspen, Utah")."""
    exp, obs = _place_tokens(expected), _place_tokens(observed)
    if not exp or not obs:
        return False
    if exp[0] != obs[0]:
        return False
    rest_exp, rest_obs = set(exp[1:]), set(obs[1:])
    return not (rest_exp and rest_obs) or bool(rest_exp & rest_obs)


def values_match(constraint: Constraint, observed: object, *,
                 default_year: int | None = None) -> bool:
    """Does an observed value satisfy the constraint, comparing by its type?"""
    if observed is None:
        return False
    expected = constraint.value
    kind = constraint.type
    if kind is ConstraintType.DATE:
        year = default_year or (parse_date(expected).year if parse_date(expected) else None)
        a, b = parse_date(expected), parse_date(observed, default_year=year)
        return a is not None and a == b
    if kind is ConstraintType.NUMBER:
        a, b = parse_number(expected), parse_number(observed)
        return a is not None and b is not None and abs(a - b) < 1e-9
    if kind is ConstraintType.BOOLEAN:
        a, b = parse_bool(expected), parse_bool(observed)
        return a is not None and a == b
    if kind is ConstraintType.LOCATION:
        return any(location_matches(str(e), str(observed))
                   for e in (expected, *constraint.aliases))
    accepted = {fold(str(expected)), *(fold(a) for a in constraint.aliases)}
    return fold(str(observed)) in accepted
