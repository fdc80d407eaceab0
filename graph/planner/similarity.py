"""How close in meaning a request is to each capability, from a word-embedding model that runs
offline: a request worded unlike a tool's name ("rename report.txt" for move_file) still finds it.

The model is WordLlama's l2_supercat (MIT): a static table of token embeddings whose weights and
tokenizer ship inside the ``wordllama`` wheel, so nothing is ever downloaded. A text's vector is
the mean of its tokens' vectors; two texts are as close as the cosine of their vectors. The
package's own loader is not used: importing ``wordllama`` calls ``logging.basicConfig`` (every
library's INFO lines would start printing on the operator's terminal) and may fall back to a
download. This module reads the same two files with ``safetensors`` and ``tokenizers`` instead,
once per process, on the first request that needs them (a fraction of a second).

The interface is two functions: ``capability_text`` (what a capability is read as; extra text,
such as an administrator's example requests or other names, is passed in) and ``similarities``.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from graph.planner.admin_words import admin_text
from graph.planner.definitions import DEFINITIONS_KEPT, DefinitionKey, definition_key
from graph.planner.text import STOPWORDS, split_identifier
from mcp_host.reported import UnavailableError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from mcp_host.manifest import Capability

PACKAGE = "wordllama"
WEIGHTS = Path("weights") / "l2_supercat_256.safetensors"
TOKENIZER = Path("tokenizers") / "l2_supercat_tokenizer_config.json"
_TENSOR = "embedding.weight"
# What a capability's text may hold: a long description says what it does in its first lines;
# past this its words only blur the mean.
_TEXT_CHARS = 300

Vector = npt.NDArray[np.float32]


class SimilarityUnavailableError(UnavailableError, RuntimeError):
    """The embedding model's files are not installed: Gatehouse never downloads them."""


@dataclass(frozen=True)
class EmbeddingModel:
    """A token-embedding table and the tokenizer that indexes it."""

    table: npt.NDArray[np.float32]
    tokenizer: Tokenizer

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One unit vector per text (a zero vector for a text with no tokens)."""
        vectors = np.zeros((len(texts), self.table.shape[1]), dtype=np.float32)
        for row, encoding in enumerate(self.tokenizer.encode_batch(list(texts), add_special_tokens=False)):
            ids = np.clip(np.asarray(encoding.ids, dtype=np.int64), 0, self.table.shape[0] - 1)
            if ids.size:
                mean = self.table[ids].mean(axis=0)
                norm = float(np.linalg.norm(mean))
                vectors[row] = mean / norm if norm else mean
        return vectors


def model_folder() -> Path:
    """The installed ``wordllama`` package's folder, found without importing it (see above)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise SimilarityUnavailableError(
            f"the word-embedding model is not installed: the Python package {PACKAGE!r} is missing "
            "(install the locked requirements: pip install --require-hashes --no-deps -r requirements.lock)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def load_model(folder: Path | None = None) -> EmbeddingModel:
    """The model from ``folder`` (the installed package's by default); never a download."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    folder = folder if folder is not None else model_folder()
    for part in (WEIGHTS, TOKENIZER):
        if not (folder / part).is_file():
            raise SimilarityUnavailableError(
                f"the word-embedding model's file {folder / part} is missing; Gatehouse never downloads it "
                f"(reinstall the {PACKAGE!r} package from requirements.lock)"
            )
    table = load_file(str(folder / WEIGHTS))[_TENSOR].astype(np.float32)
    tokenizer = Tokenizer.from_file(str(folder / TOKENIZER))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return EmbeddingModel(table, tokenizer)


_lock = threading.Lock()
_loaded: EmbeddingModel | None = None


def model() -> EmbeddingModel:
    """The process's one model, loaded on first use (threads share it; it is read-only)."""
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = load_model()
    return _loaded


_NON_WORD = re.compile(r"[^\w\s./@:-]+")


def _content(text: str) -> str:
    """``text`` without stop words: a mean over "the", "of" and "is" says nothing."""
    return " ".join(w for w in _NON_WORD.sub(" ", text).split() if w.lower() not in STOPWORDS)


# Values the operator wrote that say nothing of what to do: paths, addresses, and tokens that
# mix letters and digits (ids, keys, a temporary folder's random name). Left in, the letters of
# "/tmp/tmpk5vxqzen" moved the request's meaning, so the same request chose differently in
# another folder.
_OPAQUE_VALUE = re.compile(r"\S*[/\\@]\S*|\b(?=[\w-]*\d)(?=[\w-]*[^\W\d_])[\w-]+\b")


def request_content(text: str) -> str:
    """What of a request's text says what it asks: its words without stop words and opaque values."""
    return _content(_OPAQUE_VALUE.sub(" ", text))


def capability_text(capability: Capability, extra: Sequence[str] = ()) -> str:
    """What a capability is read as: its name as words, its title, the opening of its
    description, the admin's other names and example requests for it (graph/planner/admin_words.py),
    then ``extra`` (any further text a caller has for it).

    Parameters are left out on purpose: on requests written for this change (46 requests, 76
    capabilities) the closest capability was the right one 21 times from name and description,
    11 times with the parameters' names and descriptions added (a mean over "path", "string",
    "optional" drifts towards every tool that takes a path)."""
    parts = [
        " ".join(split_identifier(capability.name)),
        capability.title or "",
        capability.description[:_TEXT_CHARS],
    ]
    parts.append(admin_text(capability))
    parts.extend(extra)
    return _content(". ".join(part for part in parts if part))


# Keyed by definition, which holds the admin's examples and aliases too.
_vectors: dict[tuple[DefinitionKey, tuple[str, ...]], Vector] = {}


def _capability_vectors(capabilities: Sequence[Capability], extra: Mapping[str, Sequence[str]]) -> Vector:
    """The capabilities' vectors, each computed once per definition and extra text."""
    keys = [(definition_key(c), tuple(extra.get(c.key, ()))) for c in capabilities]
    missing = [i for i, key in enumerate(keys) if key not in _vectors]
    if missing:
        fresh = model().embed([capability_text(capabilities[i], keys[i][1]) for i in missing])
        if len(_vectors) + len(missing) > DEFINITIONS_KEPT:
            _vectors.clear()
        for i, vector in zip(missing, fresh, strict=True):
            _vectors[keys[i]] = vector
    dim = model().table.shape[1]
    return np.array([_vectors.get(key, np.zeros(dim, np.float32)) for key in keys], dtype=np.float32).reshape(
        len(keys), dim
    )


def similarities(
    text: str, capabilities: Sequence[Capability], extra: Mapping[str, Sequence[str]] | None = None
) -> list[float]:
    """The cosine between the request and each capability's text, in the capabilities' order
    (about 0 for unrelated texts, up to 1; in practice a good match reads 0.3 to 0.6)."""
    if not capabilities:
        return []
    request = model().embed([request_content(text)])[0]
    scores = _capability_vectors(capabilities, extra or {}) @ request
    return [round(float(s), 4) for s in scores]


def is_one_token(word: str) -> bool:
    """Whether the model's tokenizer holds ``word`` as one whole word: every common English word
    is one, a typing slip ("shwo", "tikcet") is not (graph/planner/spelling.py)."""
    encoding = model().tokenizer.encode(f" {word}", add_special_tokens=False)
    return len([t for t in encoding.tokens if t != "\u2581"]) == 1
