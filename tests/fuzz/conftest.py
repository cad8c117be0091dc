"""The importer tests' fixtures (browser-use histories, WebVoyager results, Mind2Web tasks)
are the fuzzer's seeds too."""

from importers.conftest import bu_new, bu_old, m2w_file, wv_results  # noqa: F401
