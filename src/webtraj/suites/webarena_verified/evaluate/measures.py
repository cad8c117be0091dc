"""Values compared with a tolerance: money, durations, distances, coordinates, place names.

Parsing relies on the same libraries the reference uses (price-parser, pytimeparse2, pint,
geopy, thefuzz) so that odd spellings are read the same way.
"""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import ROUND_FLOOR, Decimal
from functools import lru_cache
from typing import Any, ClassVar

from webtraj.suites.webarena_verified.evaluate.values import Value


class Currency(Value):
    """An amount of money, symbols and separators ignored; equal within 0.1."""

    type_name = "currency"
    TOLERANCE: ClassVar[Decimal] = Decimal("0.1")

    def _convert(self, value: Any) -> Decimal:
        from price_parser import Price

        if not value and not isinstance(value, int | float | Decimal):
            raise ValueError("empty currency")
        s = str(value)
        negative = s.startswith("-")
        if negative:
            s = s.replace("-", "")
        sep = "." if s.rfind(".") > s.rfind(",") else ","
        amount = Price.fromstring(s, decimal_separator=sep).amount_float
        if amount is None:
            raise ValueError(f"not an amount of money: {s!r}")
        d = Decimal(str(amount))
        return -d if negative else d

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Decimal):
            return abs(self.normalized - other) <= self.TOLERANCE
        if isinstance(other, Currency):
            return abs(self.normalized - other.normalized) <= self.TOLERANCE
        return False

    def __hash__(self) -> int:
        return hash((self.normalized / (self.TOLERANCE * 2)).quantize(Decimal("1")))


class Duration(Value):
    """A length of time ("2h32m", "5 hours", "4:13"); equal within max(3 min, 10%)."""

    type_name = "duration"
    ABS_S: ClassVar[float] = 180.0
    REL: ClassVar[float] = 0.10

    def _prepare(self, s: str) -> str:
        s = super()._prepare(s)
        return re.sub(r"(\d+):(\d+)\s*hours?", r"\1h\2m", s)

    def _convert(self, value: Any) -> timedelta:
        from pytimeparse2 import parse

        if not value:
            raise ValueError("empty duration")
        if isinstance(value, timedelta):
            return value
        s = str(value)
        try:
            float(s)
        except ValueError:
            pass
        else:
            raise ValueError("a duration needs a unit or a clock format")
        seconds = parse(s)
        if seconds is None:
            raise ValueError(f"not a duration: {s!r}")
        return timedelta(seconds=float(seconds))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Duration):
            return False
        for a in self.alternatives:
            for b in other.alternatives:
                x, y = a.total_seconds(), b.total_seconds()
                if abs(x - y) <= max(self.ABS_S, max(x, y) * self.REL):
                    return True
        return False

    def __hash__(self) -> int:
        return hash(int(self.normalized.total_seconds() // (self.ABS_S * 2)))


@lru_cache(maxsize=1)
def _units() -> Any:
    import pint

    return pint.UnitRegistry()


class Distance(Value):
    """A distance with a unit, in meters; equal within max(10 m, 2%)."""

    type_name = "distance"
    ABS_M: ClassVar[Decimal] = Decimal("10")
    REL: ClassVar[Decimal] = Decimal("0.02")

    def _convert(self, value: Any) -> Decimal:
        import pint

        if not value and not isinstance(value, int | float | Decimal):
            raise ValueError("empty distance")
        s = re.sub(r"(\d+(?:\.\d+)?)\s*k(?=\s|$)", r"\1 km", str(value), flags=re.IGNORECASE)
        try:
            float(s)
        except ValueError:
            pass
        else:
            raise ValueError("a distance needs a unit")
        ureg = _units()
        try:
            meters = ureg.parse_expression(s).to(ureg.meter)
        except (pint.UndefinedUnitError, pint.DimensionalityError) as exc:
            raise ValueError(f"not a distance: {s!r}") from exc
        return Decimal(str(meters.magnitude))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distance):
            return False
        for a in self.alternatives:
            for b in other.alternatives:
                if abs(a - b) <= max(self.ABS_M, max(a, b) * self.REL):
                    return True
        return False

    def __hash__(self) -> int:
        return hash((self.normalized / (self.ABS_M * 2)).to_integral_value(rounding=ROUND_FLOOR))


class Coordinates(Value):
    """Latitude/longitude from a dict, a pair or a string; equal within 1e-5 degrees."""

    type_name = "coordinates"
    TOLERANCE: ClassVar[float] = 1e-5

    def __init__(self, raw: Any, **kw: Any) -> None:
        # A pair [lat, lon] is one coordinate, not two alternatives.
        if isinstance(raw, list | tuple) and len(raw) == 2 and all(
                isinstance(v, int | float | str) for v in raw):
            self.raw = raw
            self.derender = kw.get("derender_url_fct")
            self.alternatives = (self._pipeline(raw),)
            self.normalized = self.alternatives[0]
            return
        super().__init__(raw, **kw)

    def _convert(self, value: Any) -> dict[str, float]:
        from geopy import Point

        if not value:
            raise ValueError("empty coordinates")
        try:
            if isinstance(value, dict):
                lat = next((k for k in value if isinstance(k, str) and len(k) >= 2
                            and "latitude".startswith(k.lower())), None)
                lon = next((k for k in value if isinstance(k, str) and (
                    (len(k) >= 2 and "longitude".startswith(k.lower())) or k.lower() == "lng")),
                    None)
                if not (lat and lon):
                    raise ValueError("coordinates need latitude and longitude keys")
                point = Point(latitude=value[lat], longitude=value[lon])
            elif isinstance(value, list | tuple) and len(value) == 2:
                point = Point(latitude=value[0], longitude=value[1])
            elif isinstance(value, str):
                point = Point(value)
            else:
                raise ValueError(f"unsupported coordinates {value!r}")
            if not -90.0 <= point.latitude <= 90.0:
                raise ValueError("latitude out of range")
        except (ValueError, TypeError, AttributeError) as exc:
            raise ValueError(f"not coordinates: {value!r}") from exc
        return {"latitude": point.latitude, "longitude": point.longitude}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Coordinates):
            return False
        a, b = self.normalized, other.normalized
        return (abs(a["latitude"] - b["latitude"]) <= self.TOLERANCE
                and abs(a["longitude"] - b["longitude"]) <= self.TOLERANCE)

    def __hash__(self) -> int:
        return hash((self.normalized["latitude"], self.normalized["longitude"]))


class LocationName(Value):
    """A place name, equal when the token-sorted fuzzy ratio is at least 80."""

    type_name = "location-name"
    THRESHOLD: ClassVar[int] = 80

    def _convert(self, value: Any) -> str:
        if value is None:
            raise ValueError("empty location")
        return str(value).lower().strip() if value else ""

    def __eq__(self, other: object) -> bool:
        from thefuzz import fuzz

        if not isinstance(other, self.__class__):
            return False
        for a in self.alternatives:
            for b in other.alternatives:
                if not a or not b:
                    if a == b:
                        return True
                    continue
                if fuzz.token_sort_ratio(a, b) >= self.THRESHOLD:
                    return True
        return False

    __hash__ = Value.__hash__
