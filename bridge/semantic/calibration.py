"""Where "nothing in memory" starts, measured on the vault itself with off-topic probes.

Trigger: the bundled model's off-topic line (the best passage's cosine, 0.42) was measured on
one broad vault, the Obsidian Hub (6,500 notes on everything from gardening to tax): there,
off-topic questions reach 0.17-0.40 because some note is always a little like them, and real
ones start at 0.43. On a narrow vault, the Obsidian help pages in six languages (229 notes),
off-topic questions reach only 0.08-0.21 (one naming "obsidian" rock aside) and real ones
start at 0.32, under the line: a real question was answered "Nothing in memory". How like an
unrelated question a vault's best passage gets depends on how much the vault covers, so one
line cannot fit every vault, and models other than the bundled one had no line at all.

Why probes: asking the vault a fixed set of everyday questions no notes vault is about
(geography, cooking, sport...) shows how high an unrelated question's best passage goes in
this vault, with this model. Outcome: the line is their mean plus `SPREAD` standard
deviations (0.43 on the Hub, 0.23 on the help pages), never above the model's own measured
line, and worked out again when the number of passages has moved by a tenth. The probes are
not the benches' off-topic questions (bench/data), which stay a held-out check.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Sequence

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
SPREAD = 2.0  # standard deviations above the probes' mean
STALE = 0.1  # worked out again once the passages have grown or shrunk by this share


def off_topic_line(tops: Sequence[float], ceiling: float | None) -> float | None:
    """The cosine under which a question's best passage says "off-topic" in this vault.

    `tops`: each probe's best passage; `ceiling`: the model's own line, if measured. None
    without probes (nothing embedded): then the model's line, if any, decides.
    """
    if len(tops) < 2:
        return ceiling
    line = statistics.fmean(tops) + SPREAD * statistics.pstdev(tops)
    return line if ceiling is None else min(line, ceiling)


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
