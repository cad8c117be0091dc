"""Builds the optional compiled fast path of the dom layer (`webtraj.dom._accel`).

The extension walks lxml's trees through lxml's public C API; when it cannot be built (no C
compiler), installation goes on and the pure-Python reference code is used instead."""

import lxml
from Cython.Build import cythonize
from setuptools import Extension, setup

ACCEL = Extension(
    "webtraj.dom._accel",
    ["src/webtraj/dom/_accel.pyx"],
    include_dirs=[d for d in lxml.get_include() if not d.endswith("__pycache__")],
    optional=True,
)

setup(ext_modules=cythonize([ACCEL], language_level=3, quiet=True))
