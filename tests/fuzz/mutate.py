"""A seeded mutator for fuzzing importers: changes JSON structure (drop a key, change a
value's type, empty a container, rename a key) or raw bytes (invalid UTF-8, truncation,
flipped bytes, Rich markup). The same seed gives the same inputs on every run."""

from __future__ import annotations

import copy
import random
from typing import Any

import orjson

WEIRD: tuple[Any, ...] = (
    None, 0, -1, 1.5, 2**63 - 1, 1e300, True, "", "[/]", "[bold]x[/bold] [ray]", "é\u00e9\u2603",
    "x" * 500, [], {}, [None], {"": None}, [[[[]]]], "\n\t\x00", "../../../../etc/passwd",
    "/etc/hostname",
)
INVALID_UTF8 = (b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80")


class Mutator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    # --- structure -----------------------------------------------------------------------
    def _nodes(self, obj: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
        out = [(path, obj)]
        if isinstance(obj, dict):
            for k, v in obj.items():
                out.extend(self._nodes(v, (*path, k)))
        elif isinstance(obj, list):
            for i, v in enumerate(obj[:20]):
                out.extend(self._nodes(v, (*path, i)))
        return out

    def structure(self, obj: Any) -> Any:
        """A copy of obj with one node changed."""
        obj = copy.deepcopy(obj)
        nodes = self._nodes(obj)
        path, node = self.rng.choice(nodes)
        if not path:
            return self.rng.choice(WEIRD + ([obj],))
        parent = obj
        for p in path[:-1]:
            parent = parent[p]
        key = path[-1]
        op = self.rng.randrange(6)
        if op == 0 and isinstance(parent, dict):
            del parent[key]
        elif op == 0 and isinstance(parent, list):
            parent.pop(key)
        elif op == 1 and isinstance(parent, dict):
            parent[str(key) + "_x" if self.rng.random() < 0.5 else str(key).upper()] = \
                parent.pop(key)
        elif op == 2 and isinstance(node, (dict, list)):
            parent[key] = type(node)()
        elif op == 3 and isinstance(node, str):
            cut = self.rng.randrange(len(node) + 1)
            parent[key] = node[:cut] + self.rng.choice(["[/]", "\u00ff", "", "\u2028", "%"]) \
                + node[cut:]
        elif op == 4 and isinstance(node, list) and node:
            parent[key] = node + [copy.deepcopy(self.rng.choice(node))]
        else:
            parent[key] = copy.deepcopy(self.rng.choice(WEIRD))
        return obj

    # --- bytes ---------------------------------------------------------------------------
    def raw(self, data: bytes) -> bytes:
        """data with one byte-level change."""
        rng = self.rng
        n = len(data)
        pos = rng.randrange(n + 1) if n else 0
        op = rng.randrange(7)
        if op == 0:
            return data[:pos] + rng.choice(INVALID_UTF8) + data[pos:]
        if op == 1:
            return data[:pos]
        if op == 2 and n:
            i = rng.randrange(n)
            return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
        if op == 3:
            end = min(n, pos + rng.randrange(1, 64))
            return data[:pos] + data[end:]
        if op == 4:
            return b""
        if op == 5:
            return data[:pos] + b"[/][bold]" + data[pos:]
        # invalid UTF-8 inside a JSON string value, where a lenient reader would "fix" it
        quote = data.find(b'"', pos)
        if quote < 0:
            quote = data.find(b'"')
        if quote < 0:
            return data + b"\xff"
        return data[:quote + 1] + rng.choice(INVALID_UTF8) + data[quote + 1:]

    def json_bytes(self, data: bytes) -> bytes:
        """Half the time a structural change (re-serialized), else a byte-level one."""
        if self.rng.random() < 0.5:
            try:
                obj = orjson.loads(data)
            except orjson.JSONDecodeError:
                return self.raw(data)
            for _ in range(self.rng.choice((1, 1, 2, 3))):
                obj = self.structure(obj)
            return orjson.dumps(obj)
        return self.raw(data)
