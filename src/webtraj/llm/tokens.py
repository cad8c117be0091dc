"""Offline token estimates (no tokenizer downloads) and trimming of accessibility trees to a
prompt budget.

The estimate mimics how BPE tokenizers split text (words, digit groups of three, punctuation
runs, whitespace) and charges long or non-ASCII words more. It is meant for budgeting
prompts, not billing: the endpoint's `usage` is what accounting records."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from webtraj.llm.messages import Message
from webtraj.model.base import FrozenModel

_CHUNK = re.compile(r"[^\W\d_]+|\d+|\s+|[^\w\s]+|_+")
_PER_MESSAGE = 4
_PER_REPLY = 3
_IMAGE_DEFAULT = 765  # a 1024x1024 image at "high" detail in OpenAI's tiling scheme


def estimate_tokens(text: str) -> int:
    n = 0
    prev_space = False
    for m in _CHUNK.finditer(text):
        s = m.group()
        c = s[0]
        if c.isspace():
            # One space glues to the next word; runs and newlines cost about one token.
            prev_space = s == " "
            if not prev_space:
                n += 1
            continue
        if c.isdigit():
            n += math.ceil(len(s) / 3)
        elif c.isalpha() or c == "_":
            if s.isascii():
                n += math.ceil(len(s) / 6)
            else:
                n += max(1, math.ceil(len(s.encode("utf-8")) / 3))
        else:
            n += math.ceil(len(s) / 2)
        prev_space = False
    return n


def estimate_image_tokens(width: int | None, height: int | None,
                          detail: str | None = None) -> int:
    if detail == "low":
        return 85
    if not width or not height:
        return _IMAGE_DEFAULT
    # Fit in 2048x2048, shortest side to 768, then count 512px tiles.
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def estimate_messages_tokens(messages: Sequence[Message]) -> int:
    total = _PER_REPLY
    for m in messages:
        total += _PER_MESSAGE + estimate_tokens(m.text)
    return total + image_tokens(messages)


def image_tokens(messages: Sequence[Message]) -> int:
    """The images' share of a prompt by OpenAI's tile rule (`estimate_image_tokens`), each
    image sized from its data URL's header (a remote URL counts as a default image)."""
    from webtraj.llm.images import decode_data_url, image_size

    total = 0
    for m in messages:
        for img in m.images:
            size = None
            if img.image_url.url.startswith("data:"):
                try:
                    size = image_size(decode_data_url(img.image_url.url)[1][:65536])
                except ValueError:
                    size = None
            w, h = size or (None, None)
            total += estimate_image_tokens(w, h, img.image_url.detail)
    return total


# --- accessibility tree trimming -------------------------------------------------------------

_INTERACTIVE = frozenset({
    "button", "link", "textbox", "searchbox", "combobox", "listbox", "option", "checkbox",
    "radio", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider",
    "spinbutton", "gridcell", "input", "select", "textarea", "a",
})
_STATE = re.compile(r"\b(focused|selected|checked|expanded|required|invalid)\b", re.IGNORECASE)
_ID = re.compile(r"^\s*\[[^\]\s]+\]")
_WORD = re.compile(r"[^\W_]+")
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "i", "in",
    "is", "it", "its", "of", "on", "or", "the", "this", "to", "was", "were", "will", "with",
    "find", "search", "show", "me", "please", "locate", "book", "get", "my", "that", "which",
    "who",
})


class TrimmedTree(FrozenModel):
    text: str
    tokens: int
    kept_lines: int
    total_lines: int

    @property
    def trimmed(self) -> bool:
        return self.kept_lines < self.total_lines


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _terms(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _line_role(line: str) -> str:
    rest = _ID.sub("", line, count=1).strip().lstrip("[").lower()
    m = _WORD.match(rest)
    return m.group() if m else ""


def trim_tree(text: str, max_tokens: int, query: str | Iterable[str] = "",
              keep_head: int = 1) -> TrimmedTree:
    """Keep the lines most relevant to `query` (task intent, constraint values) that fit in
    `max_tokens`, with their ancestors so the indentation still reads as a tree.

    Relevance: query words found in the line (rarer words weigh more), interactive roles and
    element states (focused, selected, ...). The first `keep_head` lines (the page root and
    its title) are kept when they fit. Kept lines stay in page order; a last line says how
    many lines were left out."""
    lines = text.splitlines()
    costs = [estimate_tokens(ln) + 1 for ln in lines]
    total = sum(costs)
    if total <= max_tokens:
        return TrimmedTree(text=text, tokens=total, kept_lines=len(lines),
                           total_lines=len(lines))
    q = _terms(query if isinstance(query, str) else " ".join(query))
    line_terms = [_terms(ln) for ln in lines]
    df: Counter[str] = Counter()
    for ts in line_terms:
        df.update(ts & q)
    n = len(lines)
    scores = []
    for i, ln in enumerate(lines):
        s = sum(1.0 + math.log(n / df[t]) for t in line_terms[i] & q)
        role = _line_role(ln)
        if role in _INTERACTIVE:
            s += 1.0
        if _ID.match(ln):
            s += 0.25
        if _STATE.search(ln):
            s += 0.5
        if role.startswith("heading"):
            s += 0.3
        scores.append(s)
    parent_of = [-1] * n
    stack: list[int] = []
    for i, ln in enumerate(lines):
        ind = _indent(ln)
        while stack and _indent(lines[stack[-1]]) >= ind:
            stack.pop()
        parent_of[i] = stack[-1] if stack else -1
        stack.append(i)

    note_cost = estimate_tokens(f"({n} of {n} lines omitted to fit the token budget)") + 1
    budget = max_tokens - note_cost
    kept = [False] * n
    used = 0

    def take(i: int) -> None:
        nonlocal used
        chain = []
        j = i
        while j >= 0 and not kept[j]:
            chain.append(j)
            j = parent_of[j]
        cost = sum(costs[k] for k in chain)
        if used + cost <= budget:
            for k in chain:
                kept[k] = True
            used += cost

    for i in range(min(keep_head, n)):
        take(i)
    for i in sorted(range(n), key=lambda k: (-scores[k], k)):
        if used >= budget:
            break
        if not kept[i]:
            take(i)
    out = [ln for ln, k in zip(lines, kept, strict=True) if k]
    omitted = n - len(out)
    if omitted:
        out.append(f"({omitted} of {n} lines omitted to fit the token budget)")
    body = "\n".join(out)
    return TrimmedTree(text=body, tokens=used + (note_cost if omitted else 0),
                       kept_lines=n - omitted, total_lines=n)
