"""The plug-in loader now lives in `webtraj.model.plugins` (a neutral lower module used by
agents, evaluators and suites alike); this name re-exports it for code not yet moved."""

from webtraj.model.plugins import (  # noqa: F401
    StrictOptions,
    entry_point_names,
    is_spec,
    load_entry_point,
    load_options_file,
    load_spec,
    options_model_of,
    parse_option_pairs,
    validate_options,
)
