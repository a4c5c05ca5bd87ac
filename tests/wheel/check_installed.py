"""The built wheel, installed the way a user installs it, on a vault a person already has.

    python tests/wheel/check_installed.py dist/vault_bridge-<version>-py3-none-any.whl

`make install-check` (part of `make test`) runs this after `make dist`. It creates a fresh
virtual environment outside the checkout, installs the wheel with pip (dependencies from the
package index), and drives the *installed* `vault-bridge` with a private HOME: `--version`,
`setup` twice on a copy of tests/fixtures/lived-in-vault, `mcp-config` for every client,
`service --print` for every platform, `serve` answering /v1/health, and `init` of a new vault.
The copy of the vault must end with nothing changed but `.obsidian/plugins/vault-bridge/` and
`.obsidian/community-plugins.json`. Every failure says which step and what it saw.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "lived-in-vault"
PLUGIN = ".obsidian/plugins/vault-bridge"
ALLOWED = {f"{PLUGIN}/main.js", f"{PLUGIN}/manifest.json", f"{PLUGIN}/styles.css"}
ENABLED = ".obsidian/community-plugins.json"
CLIENTS = ("claude-code", "cursor", "claude-desktop", "vscode")
PLATFORMS = ("linux", "macos", "windows")
CEILING = 300.0  # seconds a step may take before it counts as stuck (as in tests/conftest.py)


class InstallCheckError(AssertionError):
    """One step of the installed product did not do what a user expects."""


def step(text: str) -> None:
    print(f"install-check: {text}", flush=True)


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise InstallCheckError(message)


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def changed(before: dict[str, tuple[bytes, int]], after: dict[str, tuple[bytes, int]]) -> set[str]:
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


class Installed:
    """The installed command run as a user would: private HOME, cwd outside the checkout."""

    def __init__(self, venv: Path, home: Path) -> None:
        bindir = venv / ("Scripts" if os.name == "nt" else "bin")
        self.exe = bindir / ("vault-bridge.exe" if os.name == "nt" else "vault-bridge")
        self.home = home
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VAULT_BRIDGE_", "XDG_"))}
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local" / "share"),
            PATH=os.pathsep.join([str(bindir), "/usr/bin", "/bin"]),
        )
        self.env = env

    def run(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.exe), *args],
            cwd=self.home,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=CEILING,
            check=False,
        )
        if ok and done.returncode != 0:
            raise InstallCheckError(
                f"`vault-bridge {' '.join(args)}` exited {done.returncode}:\n"
                f"{done.stdout}\n{done.stderr}"
            )
        return done

    def json(self, *args: str) -> dict[str, object]:
        out = json.loads(self.run(*args, "--json").stdout)
        expect(isinstance(out, dict), f"`{' '.join(args)} --json` printed {out!r}")
        return out  # type: ignore[no-any-return]


def install(wheel: Path, work: Path) -> Path:
    venv = work / "venv"
    step(f"fresh venv at {venv}; pip install {wheel.name} (dependencies from the index)")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--progress-bar",
            "off",
            str(wheel),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return venv


def check_version(cli: Installed, wheel: Path) -> None:
    version = wheel.name.split("-")[1]
    out = cli.run("--version").stdout.strip()
    expect(out == f"vault-bridge {version}", f"--version printed {out!r}, wheel is {version}")
    step(f"  {out}")


def check_setup(cli: Installed, vault: Path, wheel: Path) -> None:
    before = snapshot(vault)
    report = cli.json("setup", "--vault", str(vault))
    after = snapshot(vault)
    diff = changed(before, after)
    expect(diff == ALLOWED | {ENABLED}, f"setup changed {sorted(diff)}")
    with zipfile.ZipFile(wheel) as archive:
        for name in ("main.js", "manifest.json", "styles.css"):
            shipped = archive.read(f"bridge/_plugin/{name}")
            expect(
                (vault / PLUGIN / name).read_bytes() == shipped,
                f"{PLUGIN}/{name} is not the plugin the wheel ships",
            )
            built = ROOT / "obsidian-plugin" / name
            expect(shipped == built.read_bytes(), f"the wheel's {name} is not today's build")
    enabled = json.loads((vault / ENABLED).read_text())
    expect(enabled == ["dataview", "obsidian-git", "vault-bridge"], f"enabled list {enabled}")
    notes = report["notes"]
    # 7: Templates/Daily.md is a template, left out by the default `templates/**` in any case.
    expect(isinstance(notes, dict) and notes.get("notes") == 7, f"setup counted {notes}")
    step(f"  setup installed the plugin; the vault holds {notes}; problems {report['problems']}")
    again = cli.json("setup", "--vault", str(vault))
    expect(again["changed"] == [] and snapshot(vault) == after, "a second setup wrote files")
    step("  a second setup changed nothing")


def check_mcp_config(cli: Installed, vault: Path) -> None:
    for client in CLIENTS:
        out = cli.run("mcp-config", "--client", client, "--vault", str(vault)).stdout
        expect(str(cli.exe) in out, f"mcp-config {client} does not name {cli.exe}:\n{out}")
        expect(str(vault) in out, f"mcp-config {client} does not name the vault:\n{out}")
    project = cli.home / "project"
    project.mkdir()
    cursor = project / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.write_text(json.dumps({"mcpServers": {"other": {"command": "/bin/other"}}}))
    cli.run(
        "mcp-config",
        "--client",
        "cursor",
        "--scope",
        "project",
        "--project",
        str(project),
        "--vault",
        str(vault),
        "--write",
    )
    servers = json.loads(cursor.read_text())["mcpServers"]
    expect(servers.get("other") == {"command": "/bin/other"}, f"--write lost an entry: {servers}")
    ours = [s for name, s in servers.items() if name != "other"]
    expect(
        len(ours) == 1 and ours[0]["command"] == str(cli.exe) and str(vault) in ours[0]["args"],
        f"--write added {ours}",
    )
    step(f"  mcp-config for {', '.join(CLIENTS)}; --write merged beside another server")


def check_service(cli: Installed, vault: Path) -> None:
    for platform in PLATFORMS:
        out = cli.run(
            "service", "install", "--print", "--platform", platform, "--vault", str(vault)
        ).stdout
        expect("serve" in out and str(vault) in out, f"service --print {platform}:\n{out}")
    expect(not (cli.home / ".config" / "systemd").exists(), "service --print wrote a file")
    step(f"  service --print for {', '.join(PLATFORMS)}")


def check_serve(cli: Installed, vault: Path, state: Path) -> None:
    process = subprocess.Popen(
        [str(cli.exe), "serve", "--vault", str(vault), "--port", "0", "--state-dir", str(state)],
        cwd=cli.home,
        env=cli.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + CEILING
        port = None
        while port is None and time.monotonic() < deadline and process.poll() is None:
            try:
                port = json.loads((state / "bridge.json").read_text()).get("port") or None
            except (OSError, ValueError):
                time.sleep(0.2)
        expect(port is not None, f"serve never said where it listens: {process.poll()}")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=CEILING) as reply:
            health = json.loads(reply.read())
        expect(health.get("status") == "ok", f"/v1/health said {health}")
        step(f"  serve answered /v1/health on port {port}: {health}")
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=CEILING)
        except subprocess.TimeoutExpired:
            process.kill()
            raise


def check_init(cli: Installed, work: Path) -> None:
    fresh = work / "fresh-vault"
    cli.run("init", str(fresh))
    expect((fresh / "Welcome.md").is_file(), "init did not copy the packaged template")
    expect((fresh / PLUGIN / "main.js").is_file(), "init did not install the packaged plugin")
    step("  init made a vault from the packaged template, with the plugin")


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_file():
        print(__doc__)
        return 2
    wheel = Path(argv[0]).resolve()
    with tempfile.TemporaryDirectory(prefix="vault-bridge-install-") as tmp:
        work = Path(tmp)
        venv = install(wheel, work)
        home = work / "home"
        home.mkdir()
        cli = Installed(venv, home)
        vault = home / "My Notes"
        shutil.copytree(FIXTURE, vault)
        original = snapshot(vault)
        try:
            check_version(cli, wheel)
            check_setup(cli, vault, wheel)
            check_mcp_config(cli, vault)
            check_service(cli, vault)
            check_serve(cli, vault, work / "state")
            check_init(cli, work)
            diff = changed(original, snapshot(vault))
            expect(diff == ALLOWED | {ENABLED}, f"after every step the vault differs in {diff}")
        except InstallCheckError as exc:
            print(f"install-check: FAILED: {exc}", file=sys.stderr)
            return 1
    step("passed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
