"""Settings: defaults, then `config.toml`, then `VAULT_BRIDGE_*` variables, then CLI flags.

The names are a public interface: cron lines and scripts use `VAULT_BRIDGE_VAULT`,
`VAULT_BRIDGE_STATE_DIR`, `VAULT_BRIDGE_HOST`, `VAULT_BRIDGE_PORT` and `VAULT_BRIDGE_LLM_MODEL`.
Every field must have a line in `docs/configuration.md` (a test checks it).
"""

from __future__ import annotations

import difflib
import hashlib
import os
import tomllib
from collections.abc import Mapping
from datetime import time
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import Field, PrivateAttr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from bridge.core.dialect import Dialect, note_roots, tool_files
from bridge.core.lifecycle import LifecycleParams
from bridge.core.maturity import DEFAULT_STATUS_NAMES, Maturity, StatusMapping
from bridge.core.review_policy import DEFAULT_RULES, ReviewPolicy, ReviewRule
from bridge.lifecycle.scheduler import parse_decay_time
from bridge.settings_problems import ENV_PREFIX, env_problem, validation_problem
from bridge.vault.dialects import load_dialect
from bridge.vault.ignore import DEFAULT_EXCLUDE, IgnoreRules, check_patterns

APP_NAME = "vault-bridge"
# The product's variables that are not settings: the config file's path, and the name a service
# carries in its own environment (`SERVICE_ENV` in bridge/install/service_spec.py).
OTHER_VARIABLES = frozenset({"VAULT_BRIDGE_CONFIG", "VAULT_BRIDGE_SERVICE"})


def user_cache_dir() -> Path:
    """This user's cache of what is derived from installed files (the language model
    unpacked, the bundled model's graph) or downloaded (fastembed's models): one per
    machine, shared by every vault."""
    return Path(platformdirs.user_cache_dir(APP_NAME))


def config_file() -> Path:
    """Where the optional `config.toml` lives (`VAULT_BRIDGE_CONFIG` overrides it)."""
    explicit = os.environ.get("VAULT_BRIDGE_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


class Settings(BaseSettings):
    """Every knob of the bridge, with the default a new user should get."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")
    # Which rule chose the vault (`load_settings`): shown by `status`.
    _vault_rule: str = PrivateAttr(default="given by the caller")

    vault: Path = Field(default_factory=Path.cwd, description="The vault folder.")
    state_dir: Path | None = Field(
        default=None,
        description="Index, state database and token; default: the user data dir per vault.",
    )
    host: str = Field(default="127.0.0.1", description="Address the API listens on.")
    port: int = Field(
        default=27182, ge=0, le=65535, description="Port the API listens on (0: any free port)."
    )
    answer_threads: int = Field(
        default=1, ge=1, le=64, description="Threads that answer questions, off the event loop."
    )
    llm_model: str | None = Field(
        default=None,
        description="litellm model name; unset means no LLM; `fake` answers without a service.",
    )
    llm_api_base: str | None = Field(
        default=None, description="Base URL of the model server (Ollama, LM Studio, vLLM...)."
    )
    llm_api_key_env: str | None = Field(
        default=None, description="Name of the environment variable that holds the API key."
    )
    exclude: list[str] = Field(
        default_factory=lambda: list(DEFAULT_EXCLUDE),
        description="Gitignore patterns of vault paths that are not knowledge (any case).",
    )
    max_note_bytes: int = Field(
        default=8 * 1024 * 1024, ge=1024, description="Notes larger than this are not indexed."
    )
    status_names: dict[Maturity, str] = Field(
        default_factory=lambda: dict(DEFAULT_STATUS_NAMES),
        description="The `status` word written for each maturity.",
    )
    dialect: Literal["auto", "obsidian", "logseq", "dendron", "foam"] = Field(
        default="auto",
        description="Which tool's conventions the vault follows; `auto` reads its config files.",
    )

    @field_validator("vault", "state_dir", mode="after")
    @classmethod
    def _expand(cls, value: Path | None) -> Path | None:
        return value.expanduser() if value is not None else None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # CLI flags arrive as init arguments and win; the TOML file is the lowest layer.
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=config_file()),
        )

    # -- derived values -------------------------------------------------------------------

    @property
    def vault_rule(self) -> str:
        """Which rule chose the vault: `--vault`, the variable, the config file, or the cwd."""
        return self._vault_rule

    @property
    def vault_path(self) -> Path:
        return self.vault.resolve()

    @property
    def vault_id(self) -> str:
        """A short, stable id of the vault: its state lives under this name."""
        return hashlib.sha256(str(self.vault_path).encode()).hexdigest()[:12]

    @property
    def state_path(self) -> Path:
        """The state dir, outside the vault so sync and git never see caches (DESIGN 7)."""
        if self.state_dir is not None:
            return self.state_dir.resolve()
        return Path(platformdirs.user_data_dir(APP_NAME)) / self.vault_id

    @property
    def vault_dialect(self) -> Dialect:
        """The vault's dialect: the setting, or detected from the tool's files (`auto`).

        Read again on each call: a vault may gain `logseq/config.edn` between two commands.
        """
        return load_dialect(self.vault_path, self.dialect)

    def ignore_rules_for(self, dialect: Dialect) -> IgnoreRules:
        """The `exclude` patterns, the dialect's own files and where its notes live."""
        return IgnoreRules(tuple(self.exclude), tool_files(dialect), note_roots(dialect))

    @property
    def status_mapping(self) -> StatusMapping:
        return StatusMapping(self.status_names)

    # -- lifecycle (DESIGN section 4; docs/lifecycle.md) -----------------------------------

    decay_time: str = Field(
        default="03:00", description="Local time (HH:MM) of the daily decay run inside `serve`."
    )
    lifecycle_initial_importance: float = Field(default=50.0, ge=0, le=1000)
    lifecycle_access_bonus: float = Field(default=3.0, ge=0)
    lifecycle_update_bonus: float = Field(default=5.0, ge=0)
    lifecycle_max_importance: float = Field(default=100.0, gt=0, le=1000)
    lifecycle_daily_decay: float = Field(default=0.995, gt=0, le=1)
    lifecycle_recency_days: float = Field(default=30.0, gt=0)
    lifecycle_promote_validated: float = Field(default=65.0, ge=0)
    lifecycle_promote_core: float = Field(default=85.0, ge=0)
    lifecycle_demote_core: float = Field(default=60.0, ge=0)
    lifecycle_demote_validated: float = Field(default=35.0, ge=0)
    lifecycle_stale_importance: float = Field(default=35.0, ge=0)
    lifecycle_stale_recency: float = Field(default=0.1, ge=0, le=1)

    @field_validator("exclude", mode="after")
    @classmethod
    def _check_exclude(cls, value: list[str]) -> list[str]:
        check_patterns(value)
        return value

    @field_validator("decay_time", mode="after")
    @classmethod
    def _check_decay_time(cls, value: str) -> str:
        parse_decay_time(value)
        return value.strip()

    @field_validator("embed_model", mode="after")
    @classmethod
    def _check_embed_model(cls, value: str) -> str:
        name = value.strip()
        if name.lower() == "off" or name == "all-MiniLM-L6-v2":
            return name
        prefix, sep, rest = name.partition(":")
        if sep and prefix in ("fastembed", "litellm") and rest.strip():
            return name
        raise ValueError(
            "must be all-MiniLM-L6-v2 (the bundled model), fastembed:<model>, "
            "litellm:<model> or off"
        )

    @model_validator(mode="after")
    def _check_lifecycle(self) -> Settings:
        # Fail at load time, naming the rule, rather than at the first decay run at 03:00.
        self.lifecycle_params  # noqa: B018  (constructing the params validates them)
        return self

    @property
    def decay_clock(self) -> time:
        """`decay_time` as a time of day."""
        return parse_decay_time(self.decay_time)

    @property
    def lifecycle_params(self) -> LifecycleParams:
        """The AKL constants from the `lifecycle_*` settings."""
        prefix = "lifecycle_"
        values = {
            name.removeprefix(prefix): getattr(self, name)
            for name in type(self).model_fields
            if name.startswith(prefix)
        }
        return LifecycleParams(**values)

    # -- ranking and query tiers (DESIGN sections 3 and 5; docs/query.md) ------------------

    # The ranking settings a user has a reason to change (docs/configuration.md, "Ranking"):
    # `rank_*` are `RankingParams` fields of the same name (without the prefix);
    # `runtime.engine_params` maps the others. The names are public: keep them stable.
    rank_importance_weight: float = Field(default=0.2, ge=0)
    rank_recency_weight: float = Field(default=0.6, ge=0)
    rank_maturity_weight: float = Field(default=0.2, ge=0)
    rank_lifecycle_tolerance: float = Field(default=0.05, ge=0, le=1)
    # At least 1 (1: no boost): below it the named speaker's own turns sink, and 0 would wipe
    # them from every answer.
    rank_speaker_boost: float = Field(default=1.6, ge=1)
    tier_direct_confidence: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Confidence that the first source answers from which tier 2 answers "
        "without an LLM (default: the fitted one); lower answers directly more often, and "
        "wrongly more often.",
    )
    tier_one_call_confidence: float = Field(
        default=0.2,
        ge=0,
        le=1,
        description="Confidence from which one LLM call (tier 3) answers; below it, the "
        "agentic loop (tier 4) searches further.",
    )
    ood_confidence: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Confidence under which a question is answered 'Nothing in memory' "
        "(default: the fitted one); a question one note holds every word of never is.",
    )
    query_budget_words: int = Field(default=500, ge=10, le=100_000)
    query_llm_budget_words: int = Field(default=1500, ge=10, le=100_000)
    query_answer_words: int = Field(default=120, ge=10, le=100_000)
    cache_size: int = Field(default=1024, ge=0)
    cache_fuzzy_jaccard: float = Field(default=0.6, gt=0, le=1)

    # -- the dense channel (DESIGN 3, "Meaning, not only words"; docs/configuration.md) --------

    embed_model: str = Field(
        default="all-MiniLM-L6-v2",
        description="Sentence encoder of the dense channel: the bundled `all-MiniLM-L6-v2`, "
        "`fastembed:<model>`, `litellm:<model>`, or `off`.",
    )
    embed_languages: list[str] | None = Field(
        default=None,
        description="Languages (ISO codes) the model embeds; default: the model's own "
        '(English for the bundled one); `["*"]` for any.',
    )
    embed_api_base: str | None = Field(
        default=None, description="Base URL of a `litellm:` embedding server (Ollama...)."
    )
    embed_api_key_env: str | None = Field(
        default=None, description="Environment variable holding a `litellm:` model's API key."
    )
    embed_model_path: Path | None = Field(
        default=None,
        description="A folder holding a `fastembed:` model's files: loaded from there, "
        "nothing downloaded.",
    )
    embed_cache_dir: Path | None = Field(
        default=None, description="Where fastembed keeps the models it downloads."
    )
    embed_threads: int = Field(
        default=1, ge=1, le=64, description="Cores the background embedding may use."
    )
    embed_int8_kernels: bool = Field(
        default=False,
        description="Run the bundled model on integer kernels: less memory and time per "
        "question, vectors slightly moved (the ranking with them; bench/embed_graphs.py).",
    )
    embed_passage_words: int = Field(default=160, ge=10, le=2000)
    embed_passages_per_note: int = Field(default=32, ge=1, le=10_000)
    dense_duplicate_min: float = Field(default=0.84, ge=0, le=1)
    dense_other_language: float = Field(default=0.5, ge=0, le=1)

    # -- live watching (docs/watching.md) ------------------------------------------------------

    debounce_ms: int = Field(
        default=300,
        ge=0,
        le=10_000,
        description="Quiet time after a file event before the watcher re-indexes (ms).",
    )

    # -- curation, review and the LLM (DESIGN section 6; docs/curation.md) -------------------

    git_commit: bool = Field(
        default=False,
        description="Commit each applied curation batch when the vault is a git repository.",
    )
    review_rules: list[ReviewRule] = Field(
        default_factory=lambda: list(DEFAULT_RULES),
        description="Which operations wait for a human before they are applied.",
    )
    review_high_impact: bool = Field(
        default=True,
        description="List applied high-impact operations as reviews that can still be rejected.",
    )
    # On by default: only `_index.md` notes that already hold the overview markers are ever
    # written, and only between them, so a vault without markers sees no change at all.
    overviews_on_curate: bool = Field(
        default=True,
        description="After each curation batch, refresh the overview region of the touched "
        "folders' `_index.md` (docs/overviews.md).",
    )
    llm_timeout_seconds: float = Field(default=60.0, gt=0, le=3600)
    llm_budget_seconds: float = Field(default=300.0, gt=0, le=36_000)
    # An answer is awaited by a person (or an agent's turn): a hung provider must not hold it
    # for minutes, as retries of a long timeout would. A curation runs as a task.
    llm_query_budget_seconds: float = Field(default=20.0, gt=0, le=3600)
    llm_retries: int = Field(default=2, ge=0, le=10)
    llm_correction_rounds: int = Field(default=3, ge=0, le=10)
    llm_part_chars: int = Field(default=12_000, ge=1000, le=1_000_000)
    llm_agent_rounds: int = Field(default=8, ge=1, le=50)

    @property
    def review_policy(self) -> ReviewPolicy:
        """The review policy from `review_rules` and `review_high_impact`."""
        return ReviewPolicy.of(self.review_rules, self.review_high_impact)


class SettingsUnusableError(ValueError):
    """Settings that cannot be used, in one line naming the setting, its source and the fix."""


# The vault's own marker: `init` vaults and Obsidian vaults have `.obsidian/`; a folder the
# user picked by hand can hold `.vault-bridge` (written by `init` too).
VAULT_MARKERS = (".obsidian", ".vault-bridge")
NO_VAULT = (
    "no vault given, and the current directory ({cwd}) is not one (it holds no .obsidian/ or "
    ".vault-bridge); say which vault with --vault PATH, VAULT_BRIDGE_VAULT=PATH, or "
    '`vault = "PATH"` in {config}'
)


def is_vault(folder: Path) -> bool:
    """True when `folder` looks like a vault (Obsidian's folder or the bridge's marker)."""
    return any((folder / marker).exists() for marker in VAULT_MARKERS)


def _config_keys(path: Path) -> dict[str, Any]:
    """The config file's table, checked: it must parse and name only known settings."""
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise SettingsUnusableError(f"{path}: not valid TOML ({exc})") from exc
    except OSError as exc:
        raise SettingsUnusableError(f"{path}: cannot read it ({exc})") from exc
    known = set(Settings.model_fields)
    for key in data:
        if key not in known:
            close = difflib.get_close_matches(key, sorted(known), n=1)
            hint = f"; did you mean `{close[0]}`?" if close else " (no setting has a similar name)"
            raise SettingsUnusableError(f"{path}: unknown setting `{key}`{hint}")
    return data


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """A warning for each `VAULT_BRIDGE_*` variable that names no setting, with the closest name.

    Trigger: a typo such as `VAULT_BRIDGE_PROT=1`. Why: pydantic-settings ignores it, so the port
    silently stays the default. Outcome: a warning, not the config file's error: a shell may
    hold variables meant for another version of the bridge.
    """
    names = sorted(Settings.model_fields) + [
        v.removeprefix(ENV_PREFIX).lower() for v in OTHER_VARIABLES
    ]
    warnings = []
    for variable in sorted(environ):
        upper = variable.upper()  # pydantic-settings matches names case-insensitively
        if not upper.startswith(ENV_PREFIX):
            continue
        name = upper.removeprefix(ENV_PREFIX).lower()
        if name in names:
            continue
        close = difflib.get_close_matches(name, names, n=1)
        hint = (
            f"; did you mean {ENV_PREFIX}{close[0].upper()}?"
            if close
            else " (no setting has a similar name)"
        )
        warnings.append(f"{variable} is not a setting and is ignored{hint}")
    return warnings


def load_settings(**overrides: Any) -> Settings:
    """Settings as the CLI loads them; `None` overrides mean "not given".

    Stricter than `Settings()`: a config file named by `VAULT_BRIDGE_CONFIG` must exist, the
    config file may name only known settings, every error is one `SettingsUnusableError` line, and
    with no vault given the current directory is used only when it looks like one. The rule
    that chose the vault is kept in `vault_rule`.
    """
    given = {k: v for k, v in overrides.items() if v is not None}
    path = config_file()
    explicit = os.environ.get("VAULT_BRIDGE_CONFIG")
    if explicit and not path.is_file():
        raise SettingsUnusableError(f"VAULT_BRIDGE_CONFIG names {path}, which does not exist")
    config = _config_keys(path)
    if "vault" in given:
        rule = "--vault"
    elif os.environ.get("VAULT_BRIDGE_VAULT"):
        rule = "VAULT_BRIDGE_VAULT"
    elif "vault" in config:
        rule = f"`vault` in {path}"
    else:
        cwd = Path.cwd()
        if not is_vault(cwd):
            raise SettingsUnusableError(NO_VAULT.format(cwd=cwd, config=path))
        given["vault"] = cwd
        rule = "the current directory (it holds .obsidian/ or .vault-bridge)"
    try:
        settings = Settings(**given)
    except SettingsError as exc:
        raise SettingsUnusableError(env_problem(str(exc))) from exc
    except ValidationError as exc:
        raise SettingsUnusableError(validation_problem(exc, given, config, path)) from exc
    settings._vault_rule = rule
    vault, state = settings.vault_path, settings.state_path
    if state == vault or vault in state.parents:
        raise SettingsUnusableError(
            f"the state dir {state} is inside the vault {vault}: sync tools and git would see "
            "the index and the token; choose a folder outside it (--state-dir, state_dir)"
        )
    return settings
