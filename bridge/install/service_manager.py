"""Loading, unloading and asking about the service through the platform's manager
(`systemctl --user`, `launchctl`, `schtasks`): the calls for each platform, and running them.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import assert_never

from bridge.install.executable import Platform
from bridge.install.service_spec import ServiceSpec

MANAGER_TIMEOUT = 30.0
SYSTEMD_STATES = {"active", "inactive", "failed", "activating", "deactivating", "reloading"}


@dataclass(frozen=True)
class Step:
    """One manager call; `required=False` for calls that may fail harmlessly (stop if running)."""

    argv: tuple[str, ...]
    required: bool = True
    fallback: tuple[str, ...] | None = None  # tried when `argv` fails (older launchctl)


@dataclass(frozen=True)
class Ran:
    """What one manager call did; `returncode` None: it could not be run at all."""

    argv: tuple[str, ...]
    returncode: int | None
    output: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def _gui(spec: ServiceSpec) -> tuple[str, str]:
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return f"gui/{uid}", f"gui/{uid}/{spec.label}"


def manager(platform: Platform) -> str:
    """The program that loads services on `platform`."""
    match platform:
        case "linux":
            return "systemctl"
        case "macos":
            return "launchctl"
        case "windows":
            return "schtasks"
        case _:
            assert_never(platform)


def load_steps(spec: ServiceSpec, platform: Platform, path: Path, restart: bool) -> list[Step]:
    """Register, enable and start the service; `restart` also restarts a running old version."""
    match platform:
        case "linux":
            unit = f"{spec.name}.service"
            steps = [
                Step(("systemctl", "--user", "daemon-reload")),
                Step(("systemctl", "--user", "enable", "--now", unit)),
            ]
            if restart:
                steps.append(Step(("systemctl", "--user", "try-restart", unit)))
            return steps
        case "macos":
            domain, target = _gui(spec)
            return [
                Step(("launchctl", "bootout", target), required=False),  # an old version
                Step(("launchctl", "enable", target), required=False),
                Step(
                    ("launchctl", "bootstrap", domain, str(path)),
                    fallback=("launchctl", "load", "-w", str(path)),
                ),
            ]
        case "windows":
            return [  # /Run: the logon trigger would wait for the next logon
                Step(("schtasks", "/Create", "/TN", spec.name, "/XML", str(path), "/F")),
                Step(("schtasks", "/Run", "/TN", spec.name)),
            ]
        case _:
            assert_never(platform)


def unload_steps(spec: ServiceSpec, platform: Platform, path: Path) -> list[Step]:
    """Stop and unregister the service (each may fail when it is not loaded: that is fine)."""
    match platform:
        case "linux":
            return [
                Step(("systemctl", "--user", "disable", "--now", f"{spec.name}.service"), False)
            ]
        case "macos":
            target = _gui(spec)[1]
            fallback = ("launchctl", "unload", "-w", str(path))
            return [Step(("launchctl", "bootout", target), False, fallback)]
        case "windows":
            return [
                Step(("schtasks", "/End", "/TN", spec.name), False),
                Step(("schtasks", "/Delete", "/TN", spec.name, "/F"), False),
            ]
        case _:
            assert_never(platform)


def status_step(spec: ServiceSpec, platform: Platform) -> tuple[str, ...]:
    match platform:
        case "linux":
            return ("systemctl", "--user", "is-active", f"{spec.name}.service")
        case "macos":
            return ("launchctl", "print", _gui(spec)[1])
        case "windows":
            return ("schtasks", "/Query", "/TN", spec.name, "/FO", "LIST", "/V")
        case _:
            assert_never(platform)


def manager_state(platform: Platform, ran: Ran) -> str:
    """`active`, `inactive`, `not loaded` or `unknown`, from the status call's answer."""
    if ran.returncode is None:
        return "unknown"
    match platform:
        case "linux":  # is-active prints the state; without a user bus it prints an error
            words = ran.output.split()
            return words[0] if words and words[0] in SYSTEMD_STATES else "unknown"
        case "macos":
            if not ran.ok:
                return "not loaded"
            return "active" if re.search(r"state = running", ran.output) else "inactive"
        case "windows":
            if not ran.ok:
                return "not loaded"
            return "active" if re.search(r"\bRunning\b", ran.output) else "inactive"
        case _:
            assert_never(platform)


def run(argv: tuple[str, ...]) -> Ran:
    """Run a manager call (no shell, a timeout); a missing program is `returncode` None."""
    program = shutil.which(argv[0])
    if program is None:
        return Ran(argv, None, f"{argv[0]} not found on PATH")
    try:
        done = subprocess.run(
            [program, *argv[1:]],
            capture_output=True,
            text=True,
            timeout=MANAGER_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Ran(argv, None, str(exc))
    return Ran(argv, done.returncode, (done.stdout + done.stderr).strip())


def run_steps(steps: list[Step]) -> tuple[bool, list[Ran]]:
    """Run `steps` in order, stopping at the first required one that fails (after its fallback)."""
    done: list[Ran] = []
    for step in steps:
        ran = run(step.argv)
        done.append(ran)
        if not ran.ok and step.fallback is not None and ran.returncode is not None:
            ran = run(step.fallback)
            done.append(ran)
        if step.required and not ran.ok:
            return False, done
    return True, done


def command_line(argv: tuple[str, ...] | list[str], platform: Platform) -> str:
    """`argv` as the user would type it in that platform's shell."""
    if platform == "windows":
        return subprocess.list2cmdline(argv)
    return shlex.join(argv)


def log_hint(spec: ServiceSpec, platform: Platform) -> str:
    """Where the service's output can be read."""
    match platform:
        case "linux":
            return f"journalctl --user -u {spec.name}.service -f"
        case "macos":
            return str(spec.log_file)
        case "windows":
            return "not kept: Task Scheduler drops a task's output (its History tab shows runs)"
        case _:
            assert_never(platform)
