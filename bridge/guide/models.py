"""The guide as data: what `GET /v1/guide` returns and what the Markdown guide is rendered from.

Everything an agent needs before its first curation, as values: the entry format (with a real
entry of the vault as the example), how relations are written, where new entries go, which
operations wait for a human and why, the folder outline with note counts and the most
important entries. Built by `bridge.guide.compose` from plain facts.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class FrontmatterKey(BaseModel):
    """A frontmatter key the bridge reads or writes."""

    key: str
    meaning: str
    written_by: str = Field(description="Who sets it: the operation field, or the bridge")


class Section(BaseModel):
    """A body section of an entry."""

    heading: str = Field(description="As written in the note, e.g. `## Raw Concept`")
    holds: str
    operation_field: str = Field(description="The operation field that fills it")


class ReviewRule(BaseModel):
    """One active rule of the review policy (`review_rules` setting)."""

    rule: str = Field(description="The setting's word, e.g. `update_human`")
    waits: str = Field(description="Which operations wait for a human")
    why: str


class FolderCount(BaseModel):
    """A folder of the vault and how many notes it holds."""

    path: str = Field(description="Folder path from the vault root, e.g. `engineering/auth`")
    depth: int = Field(description="1 for a top-level folder (a domain)")
    notes: int = Field(description="Notes in this folder and all its subfolders")


class Outline(BaseModel):
    """The folder tree with note counts, bounded for big vaults."""

    notes: int = Field(description="Notes in the whole vault")
    root_notes: int = Field(description="Notes directly at the vault root")
    max_depth: int = Field(description="Deepest folder level listed")
    folders_total: int = Field(description="Folders in the vault, at every depth")
    folders: list[FolderCount] = Field(description="Listed folders, parents before children")
    truncated: bool = Field(description="True when some folders are not listed")


class Placement(BaseModel):
    """Where new knowledge goes and how new names are written."""

    patterns: list[str]
    min_folders: int
    max_folders: int
    domains: list[FolderCount] = Field(description="The existing top-level folders")
    naming: list[str]
    not_notes: list[str] = Field(description="What the bridge does not read as knowledge")


class Conventions(BaseModel):
    """The vault's rules for entries, relations, placement, review and the lifecycle."""

    frontmatter: list[FrontmatterKey]
    sections: list[Section]
    relations: list[str]
    placement: Placement
    review: list[ReviewRule]
    review_high_impact: bool = Field(
        description="Applied `impact: high` changes are listed as reviews a human can undo"
    )
    statuses: dict[str, str] = Field(description="Maturity -> the `status` word in notes")
    lifecycle: list[str]
    uses: list[str]


class ExampleEntry(BaseModel):
    """A whole entry file to copy the shape from."""

    source: Literal["vault", "built_in"] = Field(
        description="`vault`: a real note of this vault; `built_in`: the vault has none yet"
    )
    path: str
    why: str = Field(description="Why this entry was chosen")
    text: str = Field(description="The note's text, byte for byte as in the vault")


class TopEntry(BaseModel):
    """One of the most important notes (DESIGN section 4: used and updated the most)."""

    path: str
    title: str
    summary: str
    status: str | None
    importance: float


class DialectGuide(BaseModel):
    """Which tool's conventions the vault follows, and a real note that shows them."""

    name: str = Field(description="`obsidian`, `logseq`, `dendron` or `foam`")
    described: str = Field(description="The dialect with its configuration")
    rules: list[str] = Field(description="How notes are written in it, as the bridge writes them")
    sample: ExampleEntry | None = Field(
        None, description="A real note of the vault in its dialect (None: none fits)"
    )


class Guide(BaseModel):
    """Everything an agent should read before it curates this vault."""

    vault: str = Field(description="The vault folder's name")
    notes: int
    conventions: Conventions
    dialect: DialectGuide
    example: ExampleEntry
    outline: Outline
    top: list[TopEntry] = Field(description="The most important notes, most important first")
