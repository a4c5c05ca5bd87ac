"""The words the models read: the curation prompt (also handed to callers' own models) and the
answering prompts of query tiers 3 and 4."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bridge.core.operations import operation_schema
from bridge.llm.context import CurationContext
from bridge.query.models import Source

CURATE_SYSTEM = """\
You curate a knowledge base kept as an Obsidian vault of Markdown entries, a "context tree":
folders are the hierarchy, `domain/topic/entry.md` or `domain/topic/subtopic/entry.md`.
Read the new content and turn the knowledge worth keeping into operations on the tree.

Operations (JSON):
- ADD: a new entry at an unused path. Give title, summary (one sentence), tags, relations,
  raw_concept {task, changes, source}, narrative (Markdown) and snippets [{language, code}].
- UPDATE: change an existing entry; only the fields you give change (narrative and snippets
  replace their sections, relations are added, raw_concept lines are set). Copy its base_hash.
- UPSERT: UPDATE if the path exists, else ADD.
- MERGE: fold the entries in `merge_from` into `path` (duplicates); they are removed and links to
  them are rewritten. Use rarely.
- DELETE: remove an entry that is wrong or obsolete. Use rarely.
- MOVE: move an entry from `from` to the new `path` (a better folder or name); it keeps its
  content, history and status, and links to it are rewritten. No content fields.

Rules:
- Prefer updating a related entry over adding a near-duplicate. Reuse the existing folders.
- Paths are lower case words joined by `_`, with no `..`, spaces or special characters.
- Relations name other entries as `@domain/topic/entry.md` with a reason.
- Record provenance in raw_concept.source (file names, conversation and turn ids).
- Keep each entry about one thing; write narrative in plain, precise sentences.
- Say `impact: high` for changes that alter facts people rely on, `confidence: low` when unsure.

Reply with one JSON object and nothing else: {"operations": [ ... ]}.
If nothing is worth keeping, reply {"operations": []}."""

ANSWER_SYSTEM = """\
You answer questions from a memory of Markdown notes. Use only the excerpts and tool results you
are given. Cite each note you use as @path.md. If the memory does not hold the answer, say so in
one sentence. Be brief: answer first, then the citations."""

AGENT_SYSTEM = (
    ANSWER_SYSTEM
    + """
You may call tools to look further: search the memory, read an entry, follow its relations, or
list a folder. Call them only when the excerpts are not enough; then answer."""
)


@dataclass(frozen=True)
class CurationPrompt:
    """The prompt for a curating model, and the schema its reply must follow."""

    system: str
    user: str
    schema: dict[str, Any]

    def messages(self) -> list[dict[str, Any]]:
        """Chat messages for the bridge's own model: the schema rides in the system message."""
        system = f"{self.system}\n\nJSON schema of the reply:\n{json.dumps(self.schema)}"
        return [{"role": "system", "content": system}, {"role": "user", "content": self.user}]

    def text(self) -> str:
        """Everything as one document, for a caller's own model (`curate --prompt`)."""
        schema = json.dumps(self.schema, indent=2)
        schema_part = f"## JSON schema of the reply\n\n```json\n{schema}\n```\n"
        return f"{self.system}\n\n{self.user}\n\n{schema_part}"


def curation_prompt(content: str, context: CurationContext, part: str = "") -> CurationPrompt:
    """The prompt for curating `content` (one part of it when `part` says "part 2 of 3")."""
    heading = f"## New content{f' ({part})' if part else ''}"
    user = (
        f"## The tree (folders and entry titles)\n{context.outline}\n\n"
        f"## Related entries (with base_hash; relations as @path.md)\n{context.related_text()}\n\n"
        f"{heading}\n{content.strip()}\n"
    )
    return CurationPrompt(system=CURATE_SYSTEM, user=user, schema=operation_schema())


def excerpts_text(sources: Sequence[Source]) -> str:
    """Prefetched excerpts, each under its `@path.md` so the answer can cite it."""
    if not sources:
        return "(no excerpts)"
    blocks = []
    for source in sources:
        via = f" (related to @{source.related_from})" if source.related_from else ""
        excerpt = source.excerpt.strip() or "(no excerpt; read it with a tool)"
        blocks.append(f"### @{source.path} - {source.title}{via}\n{excerpt}")
    return "\n\n".join(blocks)


def answer_messages(query: str, sources: Sequence[Source], agentic: bool) -> list[dict[str, Any]]:
    """The first messages of a tier 3 (one call) or tier 4 (tool loop) answer."""
    system = AGENT_SYSTEM if agentic else ANSWER_SYSTEM
    user = f"## Excerpts from memory\n{excerpts_text(sources)}\n\n## Question\n{query.strip()}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
