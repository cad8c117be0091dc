"""A run whose tasks came with it, as a suite."""

from __future__ import annotations

from webtraj.execute.suites.protocol import Suite


class ImportedSuite(Suite):
    """A run whose tasks came with it: an import of another tool's logs (browser-use,
    WebVoyager, WebArena-Verified, Mind2Web) or demonstrations recorded on given URLs. Its
    sites are not served by webtraj; its site URLs are whatever the importer recorded."""

    name = "imported"
    summary = "trajectories imported from other tools, or recorded on given URLs"
    named = False
