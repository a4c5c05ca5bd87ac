"""Settings: defaults, then `config.toml`, then `VAULT_BRIDGE_*` variables, then CLI flags.

The names are a public interface: cron lines and scripts use `VAULT_BRIDGE_VAULT`,
`VAULT_BRIDGE_STATE_DIR`, `VAULT_BRIDGE_HOST`, `VAULT_BRIDGE_PORT` and `VAULT_BRIDGE_LLM_MODEL`.
Every field must have a line in `docs/configuration.md` (a test checks it).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import Field, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from bridge.core.maturity import DEFAULT_STATUS_NAMES, Maturity, StatusMapping
from bridge.vault.ignore import DEFAULT_EXCLUDE, IgnoreRules

APP_NAME = "vault-bridge"


def config_file() -> Path:
    """Where the optional `config.toml` lives (`VAULT_BRIDGE_CONFIG` overrides it)."""
    explicit = os.environ.get("VAULT_BRIDGE_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


class Settings(BaseSettings):
    """Every knob of the bridge, with the default a new user should get."""

    model_config = SettingsConfigDict(env_prefix="VAULT_BRIDGE_", extra="ignore")

    vault: Path = Field(default_factory=Path.cwd, description="The vault folder.")
    state_dir: Path | None = Field(
        default=None,
        description="Index, state database and token; default: the user data dir per vault.",
    )
    host: str = Field(default="127.0.0.1", description="Address the API listens on.")
    port: int = Field(default=27182, ge=1, le=65535, description="Port the API listens on.")
    llm_model: str | None = Field(
        default=None, description="litellm model name; unset means no LLM."
    )
    exclude: list[str] = Field(
        default_factory=lambda: list(DEFAULT_EXCLUDE),
        description="Globs of vault paths that are not knowledge.",
    )
    max_note_bytes: int = Field(
        default=8 * 1024 * 1024, ge=1024, description="Notes larger than this are not indexed."
    )
    status_names: dict[Maturity, str] = Field(
        default_factory=lambda: dict(DEFAULT_STATUS_NAMES),
        description="The `status` word written for each maturity.",
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
    def ignore_rules(self) -> IgnoreRules:
        return IgnoreRules(tuple(self.exclude))

    @property
    def status_mapping(self) -> StatusMapping:
        return StatusMapping(self.status_names)


def load_settings(**overrides: Any) -> Settings:
    """Settings with CLI overrides applied; `None` overrides mean "not given"."""
    given = {k: v for k, v in overrides.items() if v is not None}
    return Settings(**given)
