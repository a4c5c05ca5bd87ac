"""Where the dense channel says "nothing close", measured on the vault itself with probes.

How like an unrelated question a vault's best passage gets depends on how much the vault
covers: in a broad vault (thousands of notes on everything from gardening to tax) some note
is always a little like any question; in a narrow one, unrelated questions find nothing near.
So one cosine cannot fit every vault. Asking the vault a fixed set of everyday questions no
notes vault is about (geography, cooking, sport...) shows how high an unrelated question's
best passage goes in this vault, with this model: their mean and spread (`Probes`). A
question's best passage is then measured in spreads above the probes' mean (`Probes.z`), which
the ranker's confidence reads beside the words (`bridge.core.ranker.CONFIDENCE`), fitted on the
benches' real and off-topic questions (`bench/fit_ranker.py`, reported by vault left out).
Worked out again when the number of passages has moved by a tenth. The probes are none of the
benches' questions.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Sequence
from typing import NamedTuple

from bridge.semantic.model import Embedder, Vectors

PROBES: tuple[str, ...] = (
    "what is the tallest mountain in Africa?",
    "how many players are on a football team?",
    "who painted the Mona Lisa?",
    "what year did the Second World War end?",
    "how do I make sourdough bread at home?",
    "what is a good recipe for chicken curry?",
    "how often should I change the oil in my car?",
    "what is the best way to train a puppy to sit?",
    "how do vaccines work in the immune system?",
    "what causes the northern lights?",
    "who won the last FIFA World Cup?",
    "how do I lower my blood pressure naturally?",
    "what is the exchange rate between the euro and the dollar?",
    "how far is the moon from the earth?",
    "what are the rules of chess castling?",
    "how do I grow tomatoes on a balcony?",
    "what is the plot of Pride and Prejudice?",
    "how do I get a stain out of a white shirt?",
    "which countries border Switzerland?",
    "how long does it take to fly from London to Tokyo?",
    "what is inflation and why do prices rise?",
    "how do I fix a leaking kitchen tap?",
    "what should I pack for a week of hiking in the mountains?",
    "why is the sky blue?",
    "how many calories are in a banana?",
    "who was the first person to walk on the moon?",
    "what is the difference between a crocodile and an alligator?",
    "how do I ask for a raise at work?",
    "what are the symptoms of the flu?",
    "how do solar panels generate electricity?",
    "what is the population of Brazil?",
    "how do I tie a tie?",
)
STALE = 0.1  # worked out again once the passages have grown or shrunk by this share


class Probes(NamedTuple):
    """How close unrelated questions get in this vault: their best passages' mean and spread."""

    mean: float
    sd: float

    @property
    def line(self) -> float:
        """The cosine two spreads above the probes' mean: what `status` shows as the vault's
        off-topic line (the decision reads how far a question's best passage is from the
        probes, `z`, with the ranker's confidence)."""
        return self.mean + 2.0 * self.sd

    def z(self, cosine: float) -> float:
        """How many spreads `cosine` is above the probes' mean."""
        return (cosine - self.mean) / self.sd if self.sd > 0 else 0.0


def probe_stats(tops: Sequence[float]) -> Probes | None:
    """The probes' best passages (`tops`) as `Probes`; None without probes (nothing embedded)."""
    if len(tops) < 2:
        return None
    return Probes(statistics.fmean(tops), statistics.pstdev(tops))


def is_stale(measured_at: int, passages: int) -> bool:
    """True once the passages have moved by `STALE` of their number at the measurement."""
    return abs(passages - measured_at) > STALE * max(measured_at, 1)


_probes: dict[str, Vectors] = {}  # model identity key -> the probes' vectors
_probes_lock = threading.Lock()


def probe_vectors(embedder: Embedder) -> Vectors:
    """The probes' vectors for `embedder`'s model, embedded once a process: they depend on
    the model only, and the line is worked out again as the vault grows."""
    key = embedder.identity.key
    with _probes_lock:
        found = _probes.get(key)
    if found is None:
        found = embedder.embed(list(PROBES), "query")
        with _probes_lock:
            _probes[key] = found
    return found
