// A real `vault-bridge serve` on a temp vault made by `vault-bridge init`, for the e2e test.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The CLI of the repository's virtualenv (`make setup` creates it); E2E_VAULT_BRIDGE overrides. */
export function cliPath(repo) {
  const cli = process.env.E2E_VAULT_BRIDGE ?? join(repo, ".venv", "bin", "vault-bridge");
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`make setup\` in ${repo} first`);
  return cli;
}

/** Settings from the environment only: no user config.toml, no user data dir. */
function isolatedEnv(tmp) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("VAULT_BRIDGE_")) delete env[key];
  // An explicit config file must exist: this empty one sets nothing.
  env.VAULT_BRIDGE_CONFIG = join(tmp, "empty-config.toml");
  writeFileSync(env.VAULT_BRIDGE_CONFIG, "");
  env.XDG_DATA_HOME = join(tmp, "xdg-data");
  env.XDG_CONFIG_HOME = join(tmp, "xdg-config");
  return env;
}

export function initVault(repo, tmp) {
  const vault = join(tmp, "vault");
  execFileSync(cliPath(repo), ["init", vault], { env: isolatedEnv(tmp), stdio: "pipe" });
  return vault;
}

/** Starts `serve` and waits for /v1/health; returns {url, token, stop, output}. */
export async function startBridge(repo, tmp, vault) {
  const cli = cliPath(repo);
  const stateDir = join(tmp, "state");
  mkdirSync(stateDir, { recursive: true });
  const port = await freePort();
  const env = { ...isolatedEnv(tmp), VAULT_BRIDGE_HOST: "127.0.0.1", VAULT_BRIDGE_PORT: String(port) };
  const help = execFileSync(cli, ["serve", "--help"], { env, encoding: "utf8" });
  const args = ["serve", "--vault", vault, "--state-dir", stateDir];
  if (help.includes("--port")) args.push("--port", String(port));
  const child = spawn(cli, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on("exit", resolve));

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`vault-bridge serve exited (${child.exitCode}):\n${output}`);
    try {
      const response = await fetch(`${url}/v1/health`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      throw new Error(`vault-bridge serve did not answer /v1/health at ${url} within 90 s:\n${output}`);
    }
    await sleep(250);
  }
  const discovery = JSON.parse(readFileSync(join(stateDir, "bridge.json"), "utf8"));
  const token = readFileSync(join(stateDir, "token"), "utf8").trim();
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { url, token, stateDir, discovery, stop, output: () => output };
}
