"""The `fake` model: replies made here and returned through litellm's own mock path.

`llm_model = "fake"` lets a user try LLM curation and tiers 3-4 without any model service,
and lets tests drive the real CLI and HTTP paths: the reply goes through `litellm.completion`
with `mock_response`, so everything but the network is the real thing. The replies are honest
about being canned: curation files the content, verbatim, as one new draft entry under
`inbox/fake/`; an answer quotes the first excerpt and cites its note.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

FAKE_MODEL = "fake"
LITELLM_MODEL = "openai/fake-model"  # any provider/name: `mock_response` never calls it

_NEW_CONTENT = re.compile(r"^## New content[^\n]*\n(.*)\Z", re.DOTALL | re.MULTILINE)
_EXCERPT = re.compile(r"^### @(\S+\.md) - [^\n]*\n(.*?)(?=^### @|^## Question|\Z)", re.S | re.M)
_QUESTION = re.compile(r"^## Question\n(.*)\Z", re.DOTALL | re.MULTILINE)


def reply(messages: Sequence[dict[str, Any]]) -> str:
    """The canned reply to a curation or an answer conversation."""
    system = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
    user = next(
        (str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user"), ""
    )
    first_user = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
    if "JSON schema of the reply" in system or "## New content" in first_user:
        return _curation(first_user if "## New content" in first_user else user)
    return _answer(first_user)


def _curation(user: str) -> str:
    found = _NEW_CONTENT.search(user)
    content = (found.group(1) if found else user).strip()
    words = re.findall(r"[A-Za-z0-9]+", content)[:6] or ["note"]
    slug = "_".join(w.lower() for w in words)[:60]
    title = " ".join(words).capitalize()
    operation = {
        "type": "UPSERT",
        "path": f"inbox/fake/{slug}.md",
        "title": title,
        "narrative": content,
        "reason": "filed verbatim by the fake model",
        "raw_concept": {"task": "file content (fake model)", "source": "fake model"},
    }
    return json.dumps({"operations": [operation]})


def _answer(user: str) -> str:
    excerpt = _EXCERPT.search(user)
    question = _QUESTION.search(user)
    asked = question.group(1).strip() if question else "the question"
    if excerpt is None:
        return f"(fake model) The memory holds nothing I can quote about {asked!r}."
    path, text = excerpt.group(1), " ".join(excerpt.group(2).split())[:400]
    return f"(fake model) From @{path}: {text}"
