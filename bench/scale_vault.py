"""The synthetic vault of bench/scale.py: deterministic Markdown entries and benchmark queries.

For N entries a seeded RNG (the same N and seed always give the same bytes) writes folders
`domain/topic[/subtopic]/entry.md` (20 domains, N/300 topics but at least 6, most with
subtopics), each note in the entry format of DESIGN section 2 (frontmatter, `# Title`,
Relations with 0-5 wikilinks to other generated entries and a reason, Raw Concept, a Narrative
of 1-8 paragraphs with lists, nested lists and tables, sometimes a Snippets code block).
Lengths are log-normal: about 270 words at the median, 50 to 1,600 (whitespace-separated,
frontmatter and markup included). Words follow a Zipf law over a vocabulary of common English
words, a few hundred technical words and a few thousand synthetic English-like words; every
topic has its own favoured words and every entry its own identifiers (`retryBudget`,
`BIL-4821`), so BM25 statistics look like a real vault's. About 3% of the notes are written in
Chinese, Japanese or German.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SEED = 20261129
GENERATOR_VERSION = "3"

# -- vocabulary --------------------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return text.split()


# The most frequent English words, roughly in frequency order (stop words included, as in text).
COMMON = _words("""the of and to a in is it you that he was for on are with as i his they be at one
have this from or had by not word but what some we can out other were all there when up use
your how said an each she which do their time if will way about many then them write would like
so these her long make thing see him two has look more day could go come did number sound no
most people my over know water than call first who may down side been now find any new work part
take get place made live where after back little only round man year came show every good me
give our under name very through just form sentence great think say help low line differ turn
cause much mean before move right old too same tell does set three want well also play small end
put home read hand large add even land here must big high such follow act why ask men change went
light kind off need house try us again point world near build self head stand own page should
found answer grow study still learn cover keep never last let thought city cross hard start
might story far draw left late run don't while press close night real life few open seem
together next white begin got walk example ease paper group always often those both mark until
mile carry took second enough feet care usually ready above ever list though feel talk soon
direct leave wait plan simple several toward against pattern slow center check shape quick""")

TECH = _words("""server client request response cache token session deploy release build pipeline
queue worker job schedule retry timeout latency throughput database schema migration index query
table column row transaction lock replica shard cluster node pod container image registry secret
key certificate auth login password user account billing invoice payment subscription customer
order cart checkout refund tax report metric log trace alert dashboard incident outage rollback
canary feature flag config setting environment staging production branch commit merge review
fixture mock benchmark profile memory cpu disk network packet socket proxy gateway router
endpoint api version contract payload event stream partition offset consumer producer batch
aggregate model training dataset label embedding vector ranking score budget quota limit rate
throttle backoff jitter health probe readiness liveness sidecar mesh policy role permission
scope tenant workspace project team ticket sprint roadmap milestone estimate design spec proposal
decision tradeoff constraint risk mitigation dependency upgrade vulnerability audit compliance
privacy encryption hash signature checksum backup restore snapshot archive retention ttl expiry
renewal cycle cron trigger webhook callback handler middleware parser serializer encoder decoder
buffer cursor iterator thread process async future promise lambda closure module package library
framework plugin extension template renderer layout component widget button modal route
navigation store reducer selector hook effect provider theme style font icon asset upload
download file folder url domain host dns tls http grpc json yaml csv parquet bucket blob storage
volume mount filesystem kernel driver firmware device sensor reading signal threshold anomaly
forecast trend season shift oncall runbook playbook escalation pager meeting agenda minutes
deadline feedback survey interview persona journey funnel conversion churn cohort experiment
variant hypothesis insight latch compaction tombstone segment watermark lease quorum leader
follower heartbeat gossip vacuum planner optimizer histogram sketch bloom filter trie heap arena
allocator pointer handle descriptor syscall interrupt scheduler governor""")

DOMAINS = _words("""engineering billing security research product operations data infrastructure
support marketing sales finance legal design mobile platform analytics hiring people
partnerships""")

# Languages other than English: short phrases; CJK ones are joined without spaces.
CHINESE = _words(
    """数据库 索引 查询 缓存 服务器 用户 账户 订单 支付 发布 部署 配置 日志 监控 告警
延迟 吞吐量 事务 分片 副本 集群 节点 令牌 会话 认证 权限 我们 需要 这个 问题
已经 修复 因为 所以 如果 可以 应该 每个 月份 周期 续订 过期 时间 版本 更新
测试 性能 内存 磁盘 网络 请求 响应 客户 团队 项目 会议 决定 原因 方案 风险
迁移 备份 恢复 策略"""
)
JAPANESE = _words(
    """データベース インデックス 検索 キャッシュ サーバー ユーザー アカウント 注文 支払い リリース
デプロイ 設定 ログ 監視 アラート 遅延 トランザクション クラスター ノード トークン
セッション 認証 権限 私たち 問題 修正 する した ので から
ため 毎月 更新 期限 時間 バージョン テスト 性能 メモリ ディスク
ネットワーク リクエスト 顧客 チーム 会議 決定 理由 移行 バックアップ 復元
の は が を に で と も"""
)
GERMAN = _words("""der die das und ist nicht ein eine mit für auf wir sie es im dem den zu von bei
Datenbank Abfrage Zwischenspeicher Benutzer Konto Bestellung Zahlung Veröffentlichung Bereitstellung
Konfiguration Protokoll Überwachung Verzögerung Durchsatz Sitzung Berechtigung Abrechnung
Zeitraum Verlängerung Ablauf Version Aktualisierung Prüfung Leistung Speicher Netzwerk Anfrage
Kunde Besprechung Entscheidung Grund Migration Sicherung Wiederherstellung Richtlinie müssen
werden wurde haben hatte weil deshalb jeden Monat läuft schnell langsam größer kleiner""")

_ONSETS = "b c d f g h j k l m n p r s t v w b d l m n r s t br cr dr fr gr pr tr bl cl pl st sh ch"
_NUCLEI = "a e i o u a e i o a e ea ou"
_CODAS = "- - - - n r s l t m nd rt st ck ng"
_SUFFIXES = "- - - - - er ing tion al ly ment ness ic ed s ive able"
STATUSES = (("stable", 0.55), ("draft", 0.3), ("core", 0.15))
AUTHORS = ("human", "agent:claude-code", "agent:cursor", "agent:codex")
CODE_LANGUAGES = ("python", "ts", "bash", "sql", "yaml")
QUESTION_TEMPLATES = (
    "how does {a} handle {b}",
    "what is the {a} for {b}",
    "why did we change {a} in {b}",
    "where is {a} configured for {b}",
    "when does {a} affect {b}",
    "what happened with {a} and {b}",
    "how do we {a} the {b} {c}",
)


def _pseudo_words(rng: random.Random, count: int, taken: set[str]) -> list[str]:
    """English-like invented words (`brantel`, `quorify`), none of them a real word above."""
    onsets, nuclei = _ONSETS.split(), _NUCLEI.split()
    codas = [c.strip("-") for c in _CODAS.split()]
    suffixes = [c.strip("-") for c in _SUFFIXES.split()]
    out: list[str] = []
    while len(out) < count:
        syllables = rng.choice((1, 2, 2, 2, 3))
        word = "".join(rng.choice(onsets) + rng.choice(nuclei) for _ in range(syllables))
        word += rng.choice(codas) + rng.choice(suffixes)
        if word not in taken and len(word) >= 4:
            taken.add(word)
            out.append(word)
    return out


@dataclass
class Vocabulary:
    """A Zipf-ranked word list and the samplers the generator uses."""

    words: list[str]
    cum_weights: list[float]
    content: list[str]  # words that are neither very common nor stop words
    coined: list[str]

    @classmethod
    def build(cls, rng: random.Random, pseudo: int = 3600) -> Vocabulary:
        taken = set(COMMON) | set(TECH)
        coined = _pseudo_words(rng, pseudo, taken)
        tail = TECH + coined
        rng.shuffle(tail)
        words = COMMON + tail
        # Zipf-Mandelbrot: weight of rank r is 1 / (r + 2.7) ** 1.07.
        cum = list(itertools.accumulate(1.0 / (r + 2.7) ** 1.07 for r in range(len(words))))
        return cls(words, cum, tail, coined)

    def sample(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cum_weights, k=k)


# -- the vault ---------------------------------------------------------------------------------


@dataclass
class Topic:
    folder: str  # domain/topic
    words: list[str]
    tags: list[str]
    subfolders: list[str]


@dataclass
class Plan:
    """Where every entry goes and what it is about, decided before any text is written."""

    path: str  # domain/topic[/sub]/name.md
    topic: Topic
    title: str
    own: list[str]  # identifiers and coined words of this entry only
    language: str  # en, zh, ja, de
    links: list[int] = field(default_factory=list)


def _camel(parts: list[str]) -> str:
    return parts[0] + "".join(p.capitalize() for p in parts[1:])


def _identifier(rng: random.Random, vocab: Vocabulary) -> str:
    kind = rng.random()
    parts = [rng.choice(vocab.content) for _ in range(rng.choice((2, 2, 3)))]
    if kind < 0.35:
        return _camel(parts)
    if kind < 0.65:
        return "_".join(parts)
    if kind < 0.8:
        return f"{parts[0][:3].upper()}-{rng.randrange(100, 9999)}"
    if kind < 0.9:
        return "_".join(parts).upper()
    return _pseudo_words(rng, 1, set())[0] + rng.choice(("er", "ix", "ly", "on", "ant"))


def _slug(words: list[str]) -> str:
    return "_".join(w.lower() for w in words)


def _title_case(words: list[str]) -> str:
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def plan_vault(n: int, rng: random.Random, vocab: Vocabulary) -> list[Plan]:
    """Folders, titles, languages, identifiers and links of `n` entries."""
    topic_count = max(6, min(400, n // 300))
    topics: list[Topic] = []
    used_topic_names: set[str] = set()
    for i in range(topic_count):
        domain = DOMAINS[i % len(DOMAINS)] if i < len(DOMAINS) else rng.choice(DOMAINS)
        name = rng.choice(TECH)
        while f"{domain}/{name}" in used_topic_names:
            name = f"{rng.choice(TECH)}_{rng.choice(vocab.content)}"
        used_topic_names.add(f"{domain}/{name}")
        words = [name.split("_")[0], *rng.sample(vocab.content, 40)]
        subs = [rng.choice(TECH) for _ in range(rng.choice((0, 0, 1, 2, 3, 4)))]
        tags = [domain, name.split("_")[0], *rng.sample(words[1:12], 3)]
        topics.append(Topic(f"{domain}/{name}", words, tags, sorted(set(subs))))
    # Some topics are much bigger than others.
    topic_weights = list(itertools.accumulate(1.0 / (r + 1) ** 0.8 for r in range(topic_count)))
    plans: list[Plan] = []
    names: set[str] = set()
    for _ in range(n):
        topic = topics[bisect.bisect(topic_weights, rng.random() * topic_weights[-1])]
        folder = topic.folder
        if topic.subfolders and rng.random() < 0.5:
            folder += "/" + rng.choice(topic.subfolders)
        title_words = [rng.choice(topic.words) for _ in range(rng.randint(1, 3))]
        title_words += [rng.choice(vocab.content) for _ in range(rng.randint(1, 3))]
        stem = _slug(title_words)
        path = f"{folder}/{stem}.md"
        while path in names:
            stem = f"{stem}_{rng.randrange(2, 99)}"
            path = f"{folder}/{stem}.md"
        names.add(path)
        own = [_identifier(rng, vocab) for _ in range(rng.randint(2, 5))]
        roll = rng.random()
        language = "zh" if roll < 0.012 else "ja" if roll < 0.022 else "de" if roll < 0.03 else "en"
        plans.append(Plan(path, topic, _title_case(title_words), own, language))
    by_topic: dict[str, list[int]] = {}
    for i, plan in enumerate(plans):
        by_topic.setdefault(plan.topic.folder, []).append(i)
    for i, plan in enumerate(plans):
        siblings = by_topic[plan.topic.folder]
        for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 3, 4, 5))):
            pool = siblings if rng.random() < 0.7 and len(siblings) > 1 else range(n)
            target = rng.choice(pool)
            if target != i and target not in plan.links:
                plan.links.append(target)
    return plans


class Writer:
    """Renders planned entries as Markdown."""

    def __init__(self, rng: random.Random, vocab: Vocabulary, plans: list[Plan]) -> None:
        self.rng = rng
        self.vocab = vocab
        self.plans = plans

    # -- words ---------------------------------------------------------------------------------

    def words(self, plan: Plan, k: int) -> list[str]:
        """`k` words: Zipf background, with topic words and the entry's own terms mixed in."""
        rng = self.rng
        out = self.vocab.sample(rng, k)
        for i in rng.sample(range(k), min(k, round(k * 0.14))):
            out[i] = rng.choice(plan.topic.words)
        for i in rng.sample(range(k), min(k, round(k * 0.012 + rng.random() * 0.7))):
            out[i] = rng.choice(plan.own)
        return out

    def sentence(self, plan: Plan, k: int | None = None) -> str:
        rng = self.rng
        if plan.language == "zh" or plan.language == "ja":
            vocab = CHINESE if plan.language == "zh" else JAPANESE
            parts = rng.choices(vocab, k=k or rng.randint(5, 14))
            if rng.random() < 0.3:
                parts.insert(rng.randrange(len(parts)), f" {rng.choice(plan.own)} ")
            return "".join(parts) + "。"
        if plan.language == "de":
            parts = rng.choices(GERMAN, k=k or rng.randint(6, 18))
            return _title_case(parts) + "."
        words = self.words(plan, k or rng.randint(6, 22))
        if rng.random() < 0.06:
            words.insert(rng.randrange(len(words)), f"`{rng.choice(plan.own)}`")
        if rng.random() < 0.04:
            words.insert(rng.randrange(len(words)), str(rng.randrange(2, 5000)))
        return _title_case(words) + rng.choice((".", ".", ".", ".", "?", ";", "!"))

    def paragraph(self, plan: Plan, budget: int) -> tuple[str, int]:
        sentences, used = [], 0
        while used < budget:
            sentence = self.sentence(plan)
            sentences.append(sentence)
            used += len(sentence.split()) if plan.language not in {"zh", "ja"} else 10
        text = " ".join(sentences)
        if plan.links and self.rng.random() < 0.08:
            target = self.plans[self.rng.choice(plan.links)]
            text += f" See [[{target.path[:-3]}]]."
        return text, used

    # -- sections ------------------------------------------------------------------------------

    def narrative(self, plan: Plan, words: int) -> list[str]:
        rng = self.rng
        pieces = rng.randint(1, 8)
        share = max(8, words // pieces)
        out: list[str] = []
        used = 0
        while used < words:
            roll = rng.random()
            if roll < 0.18 and plan.language == "en":
                items = []
                for _ in range(rng.randint(2, 6)):
                    items.append(f"- {self.sentence(plan, rng.randint(4, 14))}")
                    used += 9
                    if rng.random() < 0.25:  # nested list
                        for _ in range(rng.randint(1, 3)):
                            items.append(f"  - {self.sentence(plan, rng.randint(3, 9))}")
                            used += 6
                out.append("\n".join(items))
            elif roll < 0.23 and plan.language == "en":
                columns = [rng.choice(plan.topic.words).capitalize() for _ in range(3)]
                rows = ["| " + " | ".join(columns) + " |", "|---|---|---|"]
                for _ in range(rng.randint(2, 7)):
                    cells = [" ".join(self.words(plan, rng.randint(1, 4))) for _ in range(3)]
                    rows.append("| " + " | ".join(cells) + " |")
                    used += 8
                out.append("\n".join(rows))
            elif roll < 0.28 and plan.language == "en":
                steps = [
                    f"{i}. {self.sentence(plan, rng.randint(4, 12))}"
                    for i in range(1, rng.randint(3, 6))
                ]
                used += 8 * len(steps)
                out.append("\n".join(steps))
            else:
                text, count = self.paragraph(plan, min(share, words - used + 5))
                out.append(text)
                used += count
        return out

    def snippet(self, plan: Plan) -> str:
        rng = self.rng
        language = rng.choice(CODE_LANGUAGES)
        name, other = rng.choice(plan.own), rng.choice(plan.topic.words)
        lines = [f"```{language}"]
        for _ in range(rng.randint(2, 12)):
            a, b = rng.choice(self.vocab.content), rng.choice(self.vocab.content)
            lines.append(f"{a}_{b} = {name.lower().replace('-', '_')}({other!r}, {b}={a!r})")
        lines.append("```")
        return "\n".join(lines)

    def timestamp(self) -> str:
        rng = self.rng
        day = rng.randrange(0, 700)
        moment = time.gmtime(1_730_000_000 + day * 86_400 + rng.randrange(86_400))
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", moment)

    def relation_line(self, target: Plan) -> str:
        rng = self.rng
        roll = rng.random()
        link_path = target.path[:-3]
        if roll < 0.1:
            link = f"[[{link_path.rsplit('/', 1)[-1]}]]"
        elif roll < 0.2:
            link = f"[[{link_path}|{target.title.lower()}]]"
        else:
            link = f"[[{link_path}]]"
        reason = " ".join(self.words(target, rng.randint(3, 10)))
        return f"- {link} - {reason}"

    def render(self, plan: Plan) -> str:
        rng = self.rng
        # Narrative words; frontmatter, Relations and Raw Concept add about 70 more.
        body_words = int(min(1400, max(15, rng.lognormvariate(math.log(140), 0.8))))
        created = self.timestamp()
        updated = max(created, self.timestamp())
        status = rng.choices([s for s, _ in STATUSES], weights=[w for _, w in STATUSES])[0]
        author = rng.choice(AUTHORS)
        summary = self.sentence(plan, rng.randint(8, 20)).rstrip(".?;!。")
        summary = summary.replace("`", "").replace(":", "")
        title = plan.title
        if plan.language in {"zh", "ja"}:
            title = self.sentence(plan, rng.randint(2, 4)).rstrip("。")
        tags = ", ".join(dict.fromkeys(plan.topic.tags[: rng.randint(2, 4)]))
        lines = [
            "---",
            f"title: {title}",
            f"summary: {summary}",
            f"tags: [{tags}]",
            f"status: {status}",
            f"created: {created}",
            f"updated: {updated}",
            f"author: {author}",
            "---",
            f"# {title}",
            "",
            "## Relations",
        ]
        lines += [self.relation_line(self.plans[t]) for t in plan.links]
        source = plan.topic.folder.replace("/", "_")
        lines += [
            "",
            "## Raw Concept",
            f"- Task: {self.sentence(plan, rng.randint(4, 10))}",
            f"- Changes: {self.sentence(plan, rng.randint(4, 10))}",
            f"- Source: src/{source}/{rng.choice(plan.own).lower()}.py; "
            f"conversation {updated[:10]}",
            f"- Author: {author}, {updated}",
            "",
            "## Narrative",
        ]
        for piece in self.narrative(plan, body_words):
            lines += [piece, ""]
        if rng.random() < 0.3:
            lines += ["## Snippets", self.snippet(plan), ""]
        return "\n".join(lines)


def generate(root: Path, n: int, seed: int, queries: int) -> dict[str, Any]:
    """Write the vault under `root/vault` and the benchmark queries to `root/queries.json`."""
    rng = random.Random(seed * 1_000_003 + n)
    vocab = Vocabulary.build(rng)
    plans = plan_vault(n, rng, vocab)
    writer = Writer(rng, vocab, plans)
    vault = root / "vault"
    made: set[Path] = set()
    total_bytes = 0
    for plan in plans:
        target = vault / plan.path
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        data = writer.render(plan).encode()
        total_bytes += len(data)
        with target.open("wb") as handle:
            handle.write(data)
    workload = {
        "tier2": make_queries(rng, vocab, plans, queries * 3),
        "warmup": make_queries(rng, vocab, plans, 10),
    }
    (root / "queries.json").write_text(json.dumps(workload, ensure_ascii=False))
    return {"files": len(plans), "bytes": total_bytes, "folders": len(made)}


def make_queries(
    rng: random.Random, vocab: Vocabulary, plans: list[Plan], count: int
) -> list[list[str]]:
    """[query, path of the entry it was built from] pairs; more than needed, the child filters."""
    english = [p for p in plans if p.language == "en"]
    out: list[list[str]] = []
    for _ in range(count):
        plan = rng.choice(english)
        distinctive = [*plan.own, *plan.title.lower().split(), *rng.sample(plan.topic.words, 3)]
        roll = rng.random()
        if roll < 0.45:
            words = rng.sample(distinctive, min(len(distinctive), rng.randint(2, 6)))
            text = " ".join(words)
        else:
            template = rng.choice(QUESTION_TEMPLATES)
            picks = rng.sample(distinctive, 3)
            text = template.format(a=picks[0], b=picks[1], c=picks[2])
        out.append([text, plan.path])
    return out
