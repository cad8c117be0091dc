"""Score details as a person reads them: objects as two-column tables, lists of objects as
tables with a column per key, text as text (no `\\u0026`, no JSON quoting); every value is
escaped, so details carrying page text stay text."""

from __future__ import annotations

import orjson
from markupsafe import Markup, escape

# Below this depth nested values are shown as indented JSON text.
MAX_DEPTH = 4


def _scalar(v: object) -> Markup:
    if v is None:
        return Markup('<span class="meta">none</span>')
    if isinstance(v, bool):
        return Markup("yes" if v else "no")
    if isinstance(v, float):
        return escape(f"{v:.4g}")
    return escape(str(v))


def details_html(value: object, depth: int = 0) -> Markup:
    if not isinstance(value, dict | list):
        return _scalar(value)
    if not value:
        return Markup('<span class="meta">(empty)</span>')
    if depth >= MAX_DEPTH:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
        return Markup("<pre>") + escape(text.decode()) + Markup("</pre>")
    if isinstance(value, dict):
        rows = [Markup("<tr><th>") + escape(str(k)) + Markup("</th><td>")
                + details_html(v, depth + 1) + Markup("</td></tr>") for k, v in value.items()]
        return Markup('<table class="details">') + Markup("").join(rows) + Markup("</table>")
    if all(isinstance(v, dict) for v in value):
        keys = list(dict.fromkeys(k for v in value for k in v))
        head = Markup("").join(Markup("<th>") + escape(str(k)) + Markup("</th>") for k in keys)
        rows = [Markup("<tr>") + Markup("").join(
            Markup("<td>") + (details_html(v[k], depth + 1) if k in v else Markup(""))
            + Markup("</td>") for k in keys) + Markup("</tr>") for v in value]
        return (Markup('<table class="details"><tr>') + head + Markup("</tr>")
                + Markup("").join(rows) + Markup("</table>"))
    if all(not isinstance(v, dict | list) for v in value):
        return Markup(", ").join(_scalar(v) for v in value)
    return Markup('<ol class="details">') + Markup("").join(
        Markup("<li>") + details_html(v, depth + 1) + Markup("</li>") for v in value
    ) + Markup("</ol>")
