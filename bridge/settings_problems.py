"""A settings error as one line a person can act on: which setting, where it came from, the fix.

pydantic's own text (`settings: Value error, ...`, `error parsing value for field "exclude"
from source "EnvSettingsSource"`) named neither the variable nor the file, and every error
ended "(flags, environment, or ~/.config/vault-bridge/config.toml)" even when that file did not
exist. Here each error names its real source: the flag, the variable with its value, or the key
in the config file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

ENV_PREFIX = "VAULT_BRIDGE_"

# What a JSON value of each structured setting looks like, for the variable's error.
_JSON_EXAMPLES = {
    "exclude": '\'["templates/**", "Archive/**"]\'',
    "review_rules": '\'["delete", "update_human"]\'',
    "status_names": '\'{"draft": "draft", "validated": "stable", "core": "core"}\'',
}
_BOUNDS = {
    "less_than_equal": ("le", "at most"),
    "greater_than_equal": ("ge", "at least"),
    "less_than": ("lt", "less than"),
    "greater_than": ("gt", "more than"),
}


def variable_value(name: str) -> tuple[str, str] | None:
    """(variable, value) of the `VAULT_BRIDGE_*` variable setting `name`, any case, or None."""
    wanted = f"{ENV_PREFIX}{name.upper()}"
    for variable, value in os.environ.items():
        if variable.upper() == wanted:
            return variable, value
    return None


def env_problem(message: str) -> str:
    """pydantic-settings' parse error for a variable that is not JSON, as one line."""
    match = re.search(r'field "(\w+)"', message)
    if match is None:
        return "a VAULT_BRIDGE_* variable holds a value that is not valid JSON"
    name = match.group(1)
    variable = f"{ENV_PREFIX}{name.upper()}"
    example = _JSON_EXAMPLES.get(name, "'...'")
    return (
        f"{variable} is not valid JSON: lists and mappings are JSON in environment variables, "
        f"for example {variable}={example}"
    )


def _source(name: str, given: Mapping[str, Any], config: Mapping[str, Any], path: Path) -> str:
    """Where the bad value of `name` came from, in the precedence the settings apply."""
    if name in given:
        return f"--{name.replace('_', '-')} {given[name]}"
    found = variable_value(name)
    if found is not None:
        return f"{found[0]}={found[1]}"
    if name in config:
        return f"`{name}` in {path}"
    return name


def _reason(error: Mapping[str, Any]) -> str:
    """pydantic's reason without its prefixes; a bound says the bound."""
    bound = _BOUNDS.get(str(error["type"]))
    ctx = error.get("ctx") or {}
    if bound is not None and bound[0] in ctx:
        return f"must be {bound[1]} {ctx[bound[0]]}"
    message = str(error["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    return message[:1].lower() + message[1:]


def validation_problem(
    exc: ValidationError, given: Mapping[str, Any], config: Mapping[str, Any], path: Path
) -> str:
    """Each invalid value with its source: `VAULT_BRIDGE_PORT=99999: must be at most 65535`."""
    parts = []
    for error in exc.errors():
        loc = error["loc"]
        if not loc:  # a check across settings: the message names them
            parts.append(_reason(error))
            continue
        parts.append(f"{_source(str(loc[0]), given, config, path)}: {_reason(error)}")
    return "invalid setting " + "; ".join(parts)
