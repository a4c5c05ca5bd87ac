"""The measurements of bench/scale.py; each runs in a fresh child process (`--measure STEP`).

A child does one thing, so its peak RSS (`ru_maxrss`) is that operation's own:
- `raw`: plain tantivy on the same vault, the baseline of DESIGN section 9: read every file,
  one document per note (title = its first `# ` line, path, body = the whole file; tantivy's
  `en_stem` analyzer), default writer, one commit; then per question one `parse_query` over
  title/path/body and a top-10 search;
- `cold`: `open_bridge` on an empty state dir + `sync()` (every note read, parsed, indexed and
  committed);
- `warm`: `open_bridge` + `sync()` on the index `cold` left, no file changed;
- `query`: `open_bridge` + `sync()`, then the questions timed in-process around
  `QueryEngine.query` (tier 2: fresh questions; tier 0: the same again; tier 1: reordered with
  an extra stop word);
- `trace`: `open_bridge` + `sync()` (cold or warm) and a few queries under `tracemalloc`: which
  lines hold the Python memory.

Memory is split the way the kernel counts it: private pages (anonymous: Python objects, the
tantivy writer's heap) and file-backed pages, of which those of the index files are the
memory-mapped index that searches touched: page cache the kernel can drop and every process
reading the index shares.
"""

from __future__ import annotations

import gc
import math
import os
import resource
import shutil
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

# -- memory ------------------------------------------------------------------------------------


def _kb_line(line: str) -> int:
    return int(line.split()[1])


def memory_split(index_dir: Path | None) -> dict[str, float]:
    """Resident memory now (MB), from `/proc/self/smaps`, one mapping at a time.

    `private`: anonymous pages (the Python heap, tantivy's writer arenas); `index`: resident
    pages of files under `index_dir` (the mapped index); `files`: other file-backed pages
    (the interpreter, shared libraries). Empty where `/proc` is missing (not Linux).
    """
    prefix = str(index_dir.resolve()) + "/" if index_dir is not None else None
    totals = {"private": 0, "index": 0, "files": 0}
    try:
        with Path("/proc/self/smaps").open() as smaps:
            target = "files"
            for line in smaps:
                head = line.split(maxsplit=1)[0]
                if not head.endswith(":"):  # a mapping's header: address range, perms, ... path
                    parts = line.split(maxsplit=5)
                    path = parts[5].strip() if len(parts) > 5 else ""
                    if prefix is not None and path.startswith(prefix):
                        target = "index"
                    elif path.startswith("/"):
                        target = "files"
                    else:
                        target = "anon"
                elif head == "Anonymous:":
                    totals["private"] += _kb_line(line)
                elif head == "Rss:" and target in ("index", "files"):
                    totals[target] += _kb_line(line)
    except OSError:
        return {}
    # File pages of a mapping that were written to (copy-on-write) are in Anonymous already.
    return {k: round(v / 1024, 1) for k, v in totals.items()}


class MemoryWatch:
    """Peak resident memory split into private (RssAnon) and file-backed (RssFile) pages.

    `ru_maxrss` counts both. Sampled by a thread every 0.1 s while indexing; between query runs
    it is sampled explicitly (no thread while queries are timed).
    """

    def __init__(self) -> None:
        self.peak = {"RssAnon": 0, "RssFile": 0}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sample(self) -> None:
        try:
            with Path("/proc/self/status").open() as status:
                for line in status:
                    key, _, value = line.partition(":")
                    if key in self.peak:
                        self.peak[key] = max(self.peak[key], int(value.split()[0]) // 1024)
        except OSError:
            pass

    def start(self) -> None:
        def loop() -> None:
            while not self._stop.wait(0.1):
                self.sample()

        self._stop.clear()
        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.sample()

    def report(self) -> dict[str, Any]:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return {
            "peak_rss_mb": round(peak, 1),
            "peak_private_mb": self.peak["RssAnon"],
            "peak_file_mb": self.peak["RssFile"],
        }


# -- helpers -----------------------------------------------------------------------------------


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"p50": math.nan, "p99": math.nan}
    p99 = ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]
    return {"p50": round(statistics.median(ordered), 4), "p99": round(p99, 4)}


def cpu_seconds() -> float:
    """CPU time of this process, all threads (tantivy indexes and merges in its own)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def dir_mb(folder: Path) -> float:
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return round(size / 1_048_576, 1)


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


# -- raw tantivy -------------------------------------------------------------------------------


def _title(text: str, name: str) -> str:
    for line in text.split("\n"):
        if line.startswith("# "):
            return line[2:].strip()
    return name.removesuffix(".md")


def raw_asker(index: Any) -> tuple[Callable[[str], float], list[int]]:
    """DESIGN's raw baseline on a plain tantivy index: one `parse_query` over title, path and
    body and a top-10 search, timed in ms; and a counter of the questions tantivy's strict
    parser refused (asked leniently)."""
    searcher = index.searcher()
    fields = ["title", "path", "body"]
    lenient = [0]

    def ask(text: str) -> float:
        t0 = time.perf_counter()
        try:
            query = index.parse_query(text, fields)
        except ValueError:
            lenient[0] += 1
            query = index.parse_query_lenient(text, fields)[0]
        searcher.search(query, 10)
        return (time.perf_counter() - t0) * 1000

    return ask, lenient


def measure_raw(vault: Path, work: Path, questions: list[str]) -> dict[str, Any]:
    """Plain tantivy on the vault: cold index and top-10 query latency (no bridge imported)."""
    import tantivy

    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    load_before = load_average()
    memory = MemoryWatch()
    memory.start()
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("title", stored=False, tokenizer_name="en_stem")
    builder.add_text_field("path", stored=True, tokenizer_name="en_stem")
    builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
    schema = builder.build()

    cpu_start = cpu_seconds()
    start = time.perf_counter()
    index = tantivy.Index(schema, path=str(work))
    writer = index.writer()
    count = 0
    for folder, dirs, files in os.walk(vault):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".md"):
                continue
            path = Path(folder) / name
            text = path.read_bytes().decode("utf-8", errors="replace")
            rel = path.relative_to(vault).as_posix()
            writer.add_document(tantivy.Document(title=_title(text, name), path=rel, body=text))
            count += 1
    writer.commit()
    cold = time.perf_counter() - start
    cold_cpu = cpu_seconds() - cpu_start
    memory.stop()
    writer.wait_merging_threads()
    index.reload()
    ask, lenient = raw_asker(index)
    for text in questions[:10]:
        ask(text)  # first-use costs (page faults of the fresh index) are not query latency
    latencies = [ask(text) for text in questions]
    return {
        "entries": count,
        "cold_index_s": round(cold, 3),
        "cold_cpu_s": round(cold_cpu, 2),
        "query_ms": percentiles(latencies),
        "lenient_parses": lenient[0],
        **memory.report(),
        "memory_now": memory_split(work),
        "index_mb": dir_mb(work),
        "load": [load_before, load_average()],
    }


# -- the bridge --------------------------------------------------------------------------------


def _settings(vault: Path, state: Path) -> Any:
    from bridge.settings import Settings

    return Settings(vault=vault, state_dir=state)


def measure_cold(vault: Path, state: Path) -> dict[str, Any]:
    """`open_bridge` on an empty state dir + `sync()`."""
    from bridge.runtime import open_bridge

    shutil.rmtree(state, ignore_errors=True)
    settings = _settings(vault, state)
    load_before = load_average()
    memory = MemoryWatch()
    memory.start()
    cpu_start = cpu_seconds()
    start = time.perf_counter()
    bridge = open_bridge(settings)
    report = bridge.sync()
    cold = time.perf_counter() - start
    cold_cpu = cpu_seconds() - cpu_start
    memory.stop()
    now = memory_split(state / "index")
    start = time.perf_counter()
    bridge.close()
    close_s = time.perf_counter() - start
    return {
        "entries": len(report.added),
        "cold_index_s": round(cold, 3),
        "cold_cpu_s": round(cold_cpu, 2),
        "close_s": round(close_s, 3),
        **memory.report(),
        "memory_now": now,
        "index_mb": dir_mb(state / "index"),
        "load": [load_before, load_average()],
    }


def measure_warm(vault: Path, state: Path) -> dict[str, Any]:
    """`open_bridge` + `sync()` on an up-to-date index."""
    from bridge.runtime import open_bridge

    load_before = load_average()
    memory = MemoryWatch()
    memory.start()
    cpu_start = cpu_seconds()
    start = time.perf_counter()
    bridge = open_bridge(_settings(vault, state))
    report = bridge.sync()
    warm = time.perf_counter() - start
    warm_cpu = cpu_seconds() - cpu_start
    memory.stop()
    now = memory_split(state / "index")
    bridge.close()
    return {
        "warm_start_s": round(warm, 3),
        "warm_cpu_s": round(warm_cpu, 2),
        "sync": report.summary(),
        **memory.report(),
        "memory_now": now,
        "load": [load_before, load_average()],
    }


def tier1_variant(text: str, tokens: int, rng: Any) -> str:
    """The question reordered with an extra stop word (and, for half of the long ones, a word
    no note holds): the same question for retrieval, so tier 1 must answer it.

    Dropping or changing a word the vault knows makes it another question, which tier 1 must
    not answer (docs/query.md, "The fuzzy cache guard").
    """
    words = text.split()
    rng.shuffle(words)
    extra = rng.choice(("the", "about the", "of", "and"))
    if tokens >= 4 and rng.random() < 0.5:
        extra += " " + "".join(rng.choice("qxzjvk") for _ in range(9))
    return " ".join([*words, extra])


def _warm_bridge(vault: Path, state: Path, warmup: list[str]) -> Any:
    """A synced bridge that has searched the warm-up questions: first-use costs (the link
    resolver, the index's caches) are not tier-2 latency. No query cache is involved."""
    from bridge.runtime import open_bridge

    bridge = open_bridge(_settings(vault, state))
    bridge.sync()
    for text in warmup:
        bridge.engine.search(text)
    return bridge


def measure_queries(
    vault: Path, state: Path, chosen: list[list[Any]], warmup: list[str]
) -> dict[str, Any]:
    """Tier 2, 0 and 1 latency in-process on a warm bridge (access recording included)."""
    import random

    load_before = load_average()
    memory = MemoryWatch()
    bridge = _warm_bridge(vault, state, warmup)
    engine = bridge.engine
    memory.sample()

    def timed(text: str) -> tuple[float, Any]:
        t0 = time.perf_counter()
        result = engine.query(text)
        return (time.perf_counter() - t0) * 1000, result

    latencies: dict[str, list[float]] = {"tier0": [], "tier1": [], "tier2": []}
    wrong_tier = {"tier0": 0, "tier1": 0, "tier2": 0}
    mix: Counter[str] = Counter()
    ood = found = 0
    gc.collect()
    for text, path, _ in chosen:
        ms, result = timed(text)
        latencies["tier2"].append(ms)
        # Without an LLM a non-cache answer is tier 2, or the tier it needed (3-4) with
        # `answer: null`; only a cache tier or an OOD verdict would be wrong here.
        wrong_tier["tier2"] += result.tier not in (2, 3, 4) or (
            result.tier > 2 and bool(result.answer)
        )
        mix[f"tier{result.tier}"] += 1
        ood += result.ood
        found += any(s.path == path for s in result.sources)
    memory.sample()
    for text, _, _ in chosen:
        ms, result = timed(text)
        latencies["tier0"].append(ms)
        wrong_tier["tier0"] += result.tier != 0
    memory.sample()
    rng = random.Random(len(chosen))
    for text, _, tokens in chosen:
        ms, result = timed(tier1_variant(text, tokens, rng))
        latencies["tier1"].append(ms)
        wrong_tier["tier1"] += result.tier != 1
    memory.sample()
    now = memory_split(state / "index")
    bridge.close()
    return {
        "query_ms": {tier: percentiles(values) for tier, values in sorted(latencies.items())},
        "queries": len(chosen),
        "tier_mix": dict(sorted(mix.items())),
        "wrong_tier": wrong_tier,
        "tier2_ood": ood,
        "tier2_source_found": found,
        **memory.report(),
        "memory_now": now,
        "load": [load_before, load_average()],
    }


def measure_paired(
    vault: Path, state: Path, questions: list[str], warmup: list[str], raw_index: Path
) -> dict[str, Any]:
    """Tier 2 and raw tantivy on the same fresh questions, alternated one by one in one process.

    Trigger: the ratio of the raw and query children, run minutes apart, moved by a third with
    the machine (raw p50 0.15-0.31 ms on the same vault). Outcome: this child warms a bridge as
    the query child does, then asks each question of raw tantivy and at once of the bridge (its
    first ask: a computed tier-2 answer, its use recorded as the product does), so both p50s
    come from the same minutes. Each raw search follows a bridge query here (colder CPU caches
    than in raw's own loop): shown beside the targets' ratio, not instead of it.
    """
    import tantivy

    if not (raw_index / "meta.json").exists():
        raise SystemExit(f"no raw index in {raw_index}: run the raw step first")
    load_before = load_average()
    bridge = _warm_bridge(vault, state, warmup)
    engine = bridge.engine
    ask, _ = raw_asker(tantivy.Index.open(str(raw_index)))
    for text in warmup[:10]:
        ask(text)
    searches = searches_only(engine)
    raw_ms: list[float] = []
    bridge_ms: list[float] = []
    floor_ms: list[float] = []
    gc.collect()
    for text in questions:
        raw_ms.append(ask(text))
        t0 = time.perf_counter()
        engine.query(text)
        bridge_ms.append((time.perf_counter() - t0) * 1000)
        floor_ms.append(searches(text))
    bridge.close()
    return {
        "paired_ms": {
            "raw": percentiles(raw_ms),
            "tier2": percentiles(bridge_ms),
            "searches": percentiles(floor_ms),
        },
        "load": [load_before, load_average()],
    }


def searches_only(engine: Any) -> Callable[[str], float]:
    """The index work a tier-2 answer cannot skip, timed alone: DESIGN's three BM25 searches
    (entries, blocks, windows) as `Retriever.retrieve` runs them, the window search on its
    thread beside the other two, with the same limits; nothing ranked, packed or read.

    Why: the targets are ratios to one raw search of top 10 entries; this says how much of
    the ratio the required searches alone take (the same questions, alternated with the
    others in `measure_paired`), so what is left is the ranking's.
    """
    from concurrent.futures import ThreadPoolExecutor

    from bridge.core.text import normalise_query
    from bridge.index.analysis import query_terms

    retriever = engine.retriever
    index, p = retriever.index, retriever.params
    threads = ThreadPoolExecutor(1, thread_name_prefix="floor-window-search")

    def timed(text: str) -> float:
        t0 = time.perf_counter()
        terms = query_terms(normalise_query(text))
        budget = p.default_budget
        wanted = retriever.window_count(budget)
        beside = index.document_count("windows") >= p.overlap_windows
        later = threads.submit(index.window_scores, terms, wanted, None, None) if beside else None
        index.search_entries(terms, p.entry_limit, None)
        index.block_scores(terms, p.block_limit, None, None)
        if later is None:
            index.window_scores(terms, wanted, None, None)
        else:
            later.result()
        return (time.perf_counter() - t0) * 1000

    return timed


def trace_memory(
    vault: Path, state: Path, cold: bool, warmup: list[str], top: int
) -> dict[str, Any]:
    """What holds the Python heap after `open_bridge` + `sync()` and a few queries.

    tracemalloc sees Python allocations only (not tantivy's writer heap nor mapped pages) and
    slows the run down several times: its figures are for attribution, not timing.
    """
    import tracemalloc

    from bridge.runtime import open_bridge

    if cold:
        shutil.rmtree(state, ignore_errors=True)
    tracemalloc.start()
    bridge = open_bridge(_settings(vault, state))
    bridge.sync()
    after_sync = tracemalloc.get_traced_memory()
    for text in warmup:
        bridge.engine.query(text)
    gc.collect()
    snapshot = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__)]
    )
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    lines = [
        f"{s.size / 1_048_576:7.1f} MB {s.count:>9,} blocks  "
        f"{_short(s.traceback[0].filename)}:{s.traceback[0].lineno}"
        for s in snapshot.statistics("lineno")[:top]
    ]
    files = [
        f"{s.size / 1_048_576:7.1f} MB  {_short(s.traceback[0].filename)}"
        for s in snapshot.statistics("filename")[:top]
    ]
    now = memory_split(state / "index")
    bridge.close()
    return {
        "phase": "cold" if cold else "warm",
        "traced_after_sync_mb": round(after_sync[0] / 1_048_576, 1),
        "traced_peak_mb": round(peak / 1_048_576, 1),
        "traced_now_mb": round(current / 1_048_576, 1),
        "top_lines": lines,
        "top_files": files,
        "memory_now": now,
    }


def _short(filename: str) -> str:
    for marker in ("/site-packages/", "/lib/python3"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    here = str(Path(__file__).resolve().parents[1]) + "/"
    return filename.removeprefix(here)
