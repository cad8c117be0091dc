"""Registry entries of suites from outside webtraj that take an option a built-in suite takes
too (tests/suites/test_external_suite.py): with the same type they share its flag, with
another the command line refuses to start."""

from __future__ import annotations

from example_suite import HelloSuite
from pydantic import Field

from webtraj.model.base import FrozenModel
from webtraj.model.suite_registry import SuiteEntry


class TwinSuite(HelloSuite):
    name = "twin"  # type: ignore[assignment]


class SameType(FrozenModel):
    subset: str | None = Field(default=None, description="Twin: its own subset.")


class OtherType(FrozenModel):
    seeds: str = Field(default="", description="Twin: seeds as a word.")


SAME_TYPE = SuiteEntry(name="twin", suite="option_suites:TwinSuite",
                       options="option_suites:SameType")
OTHER_TYPE = SuiteEntry(name="twin", suite="option_suites:TwinSuite",
                        options="option_suites:OtherType")
