"""The seam between the query engine and the dense channel (`bridge.semantic`).

The engine asks one thing of it per question: the passages most similar to the question,
and the question's language; and per note, the language a reader finds it in. Nothing here
knows how vectors are made or kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from bridge.core.fusion import PassageHit


@dataclass(frozen=True)
class DenseFound:
    """What the dense channel found for one question."""

    hits: tuple[PassageHit, ...]
    language: str | None  # the question's language, when the channel is sure of it
    top: float  # the best passage's cosine (0.0 without hits)
    # The channel has seen every note of the vault (embedded, loaded, or skipped for its
    # language): False while `serve` embeds a vault for the first time (a CLI process uses
    # what is stored: True). Until then a note may be missing from the hits only for having
    # no vectors yet, so the channel neither ranks nor says "off-topic" (docs/query.md).
    covered: bool = True
    # The channel looked at the question: False while `serve` still loads its model or its
    # language detector (the first seconds), when it knows neither the question's language
    # nor any note's, and the edition folders tell them as without the channel.
    ready: bool = True
    # The question's unit vector (None: not embedded), for each candidate's own similarities.
    vector: npt.NDArray[np.float32] | None = None
    # How many spreads of the vault's off-topic probes the best passage is above their mean
    # (`bridge.semantic.calibration.Probes.z`); None before the probes are measured.
    closeness: float | None = None

    @property
    def ranks(self) -> bool:
        """The hits take part in the ranking: there are some, from a channel that has seen
        the whole vault. Otherwise the lexical rule ranks alone."""
        return bool(self.hits) and self.covered


NO_DENSE = DenseFound((), None, 0.0)


@dataclass(frozen=True, slots=True)
class NoteSimilarity:
    """How close one note is to a question, by meaning."""

    best: float  # its best passage's cosine
    centre: float  # cosine with the mean of its passages
    card: float  # cosine with its card (title, aliases, description)
    spread: float  # 1 - |mean of its unit passage vectors|: 0 one topic, towards 1 many


class DenseSearch(Protocol):
    """The dense channel as the engine uses it."""

    def find(self, text: str, scope: str | None, depth: int) -> DenseFound: ...

    @property
    def version(self) -> int:
        """Changes whenever what `find` can find changes (notes embedded or dropped, the model
        ready, the off-topic line moved): a cached answer is for one version only."""
        ...

    def edition_language(self, nid: int) -> str | None: ...

    def note_similarity(
        self, vector: npt.NDArray[np.float32], nids: Iterable[int]
    ) -> dict[int, NoteSimilarity]:
        """Each embedded note's similarities to the question `vector` (others left out)."""
        ...

    def passage_cosines(
        self, vector: npt.NDArray[np.float32], nid: int
    ) -> list[tuple[int, int, float]]:
        """Each passage of note `nid` as (first block, last block, cosine to `vector`)."""
        ...

    def copies(self, nids: Iterable[int]) -> list[int]:
        """The notes among `nids` in one language's edition whose text is in another."""
        ...
