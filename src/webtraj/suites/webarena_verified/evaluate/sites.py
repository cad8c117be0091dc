"""Site base URLs and the `__SITE__` placeholders that stand for them in task configs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from webtraj.model import InputError

# WebArena-Verified's sites; a placeholder is the upper-cased name between double underscores.
KNOWN_SITES = ("gitlab", "map", "reddit", "shopping_admin", "shopping", "wikipedia", "homepage")


def site_key(name: str) -> str:
    """`"__SHOPPING_ADMIN__"`, `"shopping_admin"` and `"SHOPPING_ADMIN"` all name one site."""
    return name.strip().strip("_").lower()


def placeholder(site: str) -> str:
    return f"__{site.upper()}__"


class SiteUrls:
    """Maps sites to their base URLs: render placeholders, and derender real URLs back.

    Derendering tries the sites with the longest configured URL first, so that
    `http://h:7780/admin` (shopping_admin) wins over `http://h:7780` (shopping).
    """

    def __init__(self, urls: Mapping[str, str | Iterable[str]]) -> None:
        self.urls: dict[str, tuple[str, ...]] = {}
        for name, value in urls.items():
            values = (value,) if isinstance(value, str) else \
                tuple(value) if isinstance(value, (list, tuple)) else ()
            if not name.strip("_ ") or not values or not all(
                    isinstance(v, str) and v.strip() for v in values):
                raise InputError("expected a URL or a non-empty list of URLs", field=name)
            self.urls[site_key(name)] = tuple(v.strip().rstrip("/") for v in values)

    @classmethod
    def from_obj(cls, obj: object, *, file: str | None = None) -> SiteUrls:
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object mapping sites to base URLs", file=file)
        try:
            return cls(obj)
        except InputError as exc:
            raise InputError(exc.message, file=file, field=exc.field) from None

    def check(self, sites: Iterable[str]) -> None:
        missing = [s for s in sites if s not in self.urls]
        if missing:
            raise ValueError(
                f"no base URL for site(s) {missing}: add them to the site URL map")

    def render(self, url: str, *, sites: tuple[str, ...], strict: bool = True) -> str:
        self.check(sites)
        for site in sites:
            ph = placeholder(site)
            if url.startswith(ph):
                return url.replace(ph, self.urls[site][0])
        if strict:
            raise ValueError(f"no site among {list(sites)} matches the placeholder in {url!r}")
        return url

    def derender(self, url: str, *, sites: tuple[str, ...], strict: bool = True) -> str:
        self.check(sites)
        ordered = sorted(sites, key=lambda s: max(len(u) for u in self.urls[s]), reverse=True)
        for site in ordered:
            for base in self.urls[site]:
                if base in url:
                    return url.replace(base, placeholder(site))
        if strict:
            raise ValueError(f"URL {url!r} is not on any configured site of {list(sites)}")
        return url
