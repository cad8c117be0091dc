"""The five sites, their ports and their placeholders."""

from __future__ import annotations

import datetime as dt

from webtraj.model.task_listing import DEFAULT_PORT_BASE as DEFAULT_PORT_BASE
from webtraj.sites.base import Site
from webtraj.sites.cars import CarsSite
from webtraj.sites.flights import FlightsSite
from webtraj.sites.hotels import HotelsSite
from webtraj.sites.inventory import Inventory
from webtraj.sites.rentals import RentalsSite
from webtraj.sites.transit import TransitSite

SITE_CLASSES: tuple[type[Site], ...] = (HotelsSite, RentalsSite, FlightsSite, TransitSite,
                                        CarsSite)
SITE_KEYS = tuple(c.key for c in SITE_CLASSES)


def make_sites(inventory: Inventory, today: dt.date) -> dict[str, Site]:
    return {cls.key: cls(inventory, today) for cls in SITE_CLASSES}


def site_urls(host: str, port_base: int) -> dict[str, str]:
    return {cls.key: f"http://{host}:{port_base + cls.offset}" for cls in SITE_CLASSES}
