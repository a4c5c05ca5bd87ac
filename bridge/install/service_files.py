"""The service file of each platform: where it goes, its bytes, and whether it is ours.

Three small writers turn a `ServiceSpec` into a systemd user unit (Linux), a launchd agent
(macOS) and a Task Scheduler task (Windows), built with plistlib and ElementTree so quoting is
the libraries' job, except systemd's command line, quoted here per its rules. Every file
carries a marker, so `uninstall` deletes only what `install` wrote.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import plistlib
import re
import subprocess
import xml.etree.ElementTree as ET
from io import BytesIO
from pathlib import Path
from typing import assert_never

from bridge.install.executable import Platform
from bridge.install.service_spec import MARKER, RESTART_SECONDS, SERVICE_ENV, ServiceSpec

TASK_NS = "http://schemas.microsoft.com/windows/2004/02/mit/task"
TASK_RESTART_COUNT = 60  # Task Scheduler retries at most once a minute: an hour of retries


def service_file(spec: ServiceSpec, platform: Platform) -> Path:
    """Where the platform's manager (or, on Windows, `schtasks /XML`) reads the service from."""
    match platform:
        case "linux":
            config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
            return Path(config) / "systemd" / "user" / f"{spec.name}.service"
        case "macos":
            return Path.home() / "Library" / "LaunchAgents" / f"{spec.label}.plist"
        case "windows":  # the Task Scheduler keeps its own copy; this one is for uninstall
            return spec.state_dir / f"{spec.name}.xml"
        case _:
            assert_never(platform)


def render(spec: ServiceSpec, platform: Platform) -> bytes:
    """The service file's bytes for `platform`."""
    match platform:
        case "linux":
            return render_systemd(spec).encode()
        case "macos":
            return render_launchd(spec)
        case "windows":
            return render_task(spec)
        case _:
            assert_never(platform)


def as_text(data: bytes, platform: Platform) -> str:
    """The file as text, for `--print` (the task XML is UTF-16)."""
    return data.decode("utf-16" if platform == "windows" else "utf-8")


def is_ours(path: Path, platform: Platform) -> bool:
    """True when `path` holds our marker, so uninstall may delete it; unreadable means no."""
    try:
        data = path.read_bytes()
        match platform:
            case "linux":
                head = data.decode().splitlines()[:3]
                return any(line.startswith(f"# {MARKER}") for line in head)
            case "macos":
                env = plistlib.loads(data).get("EnvironmentVariables")
                return isinstance(env, dict) and SERVICE_ENV in env
            case "windows":
                source = ET.fromstring(data).find(
                    f"{{{TASK_NS}}}RegistrationInfo/{{{TASK_NS}}}Source"
                )
                return source is not None and source.text == MARKER
            case _:
                assert_never(platform)
    except (OSError, ValueError, ET.ParseError, plistlib.InvalidFileException, AttributeError):
        return False


def systemd_word(arg: str) -> str:
    """One argument of an Exec line, quoted per systemd.service(5) "Command lines".

    Quotes keep spaces in one word; `\\` and `"` are C-escaped inside them; specifiers are
    expanded even inside quotes, so `%` becomes `%%`, and so do variables: `$` becomes `$$`.
    """
    out = []
    for char in arg:
        if char in '\\"':
            out.append("\\" + char)
        elif char in "%$":
            out.append(char * 2)
        elif ord(char) < 0x20 or char == "\x7f":
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def render_systemd(spec: ServiceSpec) -> str:
    """A systemd user unit (`systemctl --user`): WantedBy default.target starts it at login."""
    # A description must not end in a backslash (a line continuation) nor hold a newline.
    description = re.sub(r"[\x00-\x1f\x7f]", "?", spec.description).rstrip("\\")
    sections = {
        "Unit": [("Description", description.replace("%", "%%")), ("After", "network.target")],
        "Service": [
            ("Type", "simple"),
            ("ExecStart", " ".join(systemd_word(a) for a in spec.argv)),
            ("Environment", " ".join(systemd_word(f"{k}={v}") for k, v in spec.environment)),
            ("Restart", "on-failure"),
            ("RestartSec", str(RESTART_SECONDS)),
        ],
        "Install": [("WantedBy", "default.target")],
    }
    lines = [f"# {MARKER}; `vault-bridge service uninstall` removes it."]
    for section, keys in sections.items():
        lines += ["", f"[{section}]", *(f"{key}={value}" for key, value in keys)]
    return "\n".join(lines) + "\n"


def render_launchd(spec: ServiceSpec) -> bytes:
    """A launchd agent: started at login (RunAtLoad), started again after a non-zero exit."""
    agent: dict[str, object] = {
        "Label": spec.label,
        "ProgramArguments": list(spec.argv),
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "ThrottleInterval": RESTART_SECONDS,
        "EnvironmentVariables": dict(spec.environment),
    }
    if spec.log_file is not None:
        agent["StandardOutPath"] = agent["StandardErrorPath"] = str(spec.log_file)
    return plistlib.dumps(agent, sort_keys=False)


def windows_user() -> str:
    """`DOMAIN\\user` on Windows (what a LogonTrigger names), the login name elsewhere."""
    domain, user = os.environ.get("USERDOMAIN"), os.environ.get("USERNAME")
    if domain and user:
        return f"{domain}\\{user}"
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name at all: the task then fires for any user
        return ""


def render_task(spec: ServiceSpec, user: str | None = None) -> bytes:
    """A Task Scheduler 1.2 task, UTF-16 with its BOM as `schtasks /Create /XML` reads it.

    Starts at this user's logon, never time-limited (PT0S), not stopped on battery, restarted
    once a minute after a failure. Arguments are quoted for CommandLineToArgvW (list2cmdline).
    """
    ET.register_namespace("", TASK_NS)
    user = windows_user() if user is None else user

    def add(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        element = ET.SubElement(parent, f"{{{TASK_NS}}}{tag}", attrs)
        element.text = text
        return element

    task = ET.Element(f"{{{TASK_NS}}}Task", {"version": "1.2"})
    info = add(task, "RegistrationInfo")
    add(info, "Description", f"{spec.description} ({spec.vault}).")
    add(info, "Source", MARKER)
    add(info, "URI", f"\\{spec.name}")
    trigger = add(add(task, "Triggers"), "LogonTrigger")
    add(trigger, "Enabled", "true")
    if user:
        add(trigger, "UserId", user)
    principal = add(add(task, "Principals"), "Principal", id="Author")
    if user:
        add(principal, "UserId", user)
    add(principal, "LogonType", "InteractiveToken")
    add(principal, "RunLevel", "LeastPrivilege")
    settings = add(task, "Settings")
    for tag, value in [
        ("MultipleInstancesPolicy", "IgnoreNew"),
        ("DisallowStartIfOnBatteries", "false"),
        ("StopIfGoingOnBatteries", "false"),
        ("AllowHardTerminate", "true"),
        ("StartWhenAvailable", "true"),
        ("RunOnlyIfNetworkAvailable", "false"),
        ("AllowStartOnDemand", "true"),
        ("Enabled", "true"),
        ("Hidden", "false"),
        ("RunOnlyIfIdle", "false"),
        ("WakeToRun", "false"),
        ("ExecutionTimeLimit", "PT0S"),
        ("Priority", "7"),
    ]:
        add(settings, tag, value)
    idle = add(settings, "IdleSettings")
    add(idle, "StopOnIdleEnd", "false")
    add(idle, "RestartOnIdle", "false")
    restart = add(settings, "RestartOnFailure")
    add(restart, "Interval", "PT1M")  # the schema's minimum
    add(restart, "Count", str(TASK_RESTART_COUNT))
    action = add(add(task, "Actions", Context="Author"), "Exec")
    add(action, "Command", subprocess.list2cmdline(spec.argv[:1]))
    add(action, "Arguments", subprocess.list2cmdline(spec.argv[1:]))
    ET.indent(task)
    out = BytesIO()
    ET.ElementTree(task).write(out, encoding="utf-16", xml_declaration=True)
    return out.getvalue()


def remove(path: Path) -> bool:
    """Delete `path`; False when it was already gone."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
        return True
    return False
