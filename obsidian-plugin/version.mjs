// One version for the whole project: the Python package's (pyproject.toml, with
// bridge/__init__.py beside it) is the source, and the plugin's files follow it.
//
//   node version.mjs            write it into package.json, package-lock.json, manifest.json,
//                               and add "<version>": "<minAppVersion>" to versions.json
//   node version.mjs --check    change nothing; exit 1 listing every file out of step
//   node version.mjs 0.2.0      first set pyproject.toml's and bridge/__init__.py's version
//                               lines (the only files outside obsidian-plugin/ it writes), then
//                               as with no argument
//
// Versions are plain x.y.z: what Obsidian compares to offer updates and what PEP 440 and
// semver both read the same way.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..");
const PYPROJECT = join(repo, "pyproject.toml");
const PY_INIT = join(repo, "bridge", "__init__.py");
const VERSION = /^\d+\.\d+\.\d+$/;
const INIT_LINE = /^__version__[ \t]*=[ \t]*"([^"]*)"[ \t]*$/m;

const show = (path) => relative(process.cwd(), path) || path;

/** The `version = "..."` line of pyproject.toml's [project] table: its index and value. */
function projectVersionLine(lines) {
  let table = "";
  for (const [index, line] of lines.entries()) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) table = header[1].trim();
    const value = /^\s*version\s*=\s*"([^"]*)"\s*$/.exec(line);
    if (table === "project" && value) return { index, value: value[1] };
  }
  throw new Error(`${show(PYPROJECT)} has no version = "..." line in [project]`);
}

/** The project's version, as pyproject.toml says. */
export function pythonVersion() {
  const { value } = projectVersionLine(readFileSync(PYPROJECT, "utf8").split("\n"));
  if (!VERSION.test(value)) throw new Error(`${show(PYPROJECT)}: version ${value} is not x.y.z, which Obsidian's manifest needs`);
  return value;
}

function initVersion() {
  const match = INIT_LINE.exec(readFileSync(PY_INIT, "utf8"));
  if (!match) throw new Error(`${show(PY_INIT)} has no __version__ = "..." line`);
  return match[1];
}

/** Rewrites the two Python version lines, touching nothing else in either file. */
function setPythonVersion(version) {
  const lines = readFileSync(PYPROJECT, "utf8").split("\n");
  const { index } = projectVersionLine(lines);
  lines[index] = lines[index].replace(/"[^"]*"/, `"${version}"`);
  writeFileSync(PYPROJECT, lines.join("\n"));
  const init = readFileSync(PY_INIT, "utf8");
  initVersion(); // fails before writing when the line is missing
  writeFileSync(PY_INIT, init.replace(INIT_LINE, `__version__ = "${version}"`));
}

/** A JSON file with the indent and final newline it was written with. */
function readJson(path) {
  const text = readFileSync(path, "utf8");
  const indent = /^[ \t]+(?=")/m.exec(text)?.[0] ?? "  ";
  return { path, data: JSON.parse(text), write: (data) => writeFileSync(path, JSON.stringify(data, null, indent) + (text.endsWith("\n") ? "\n" : "")) };
}

/** Each plugin file: what it says now, and the same data with `version` in it. */
function pluginFiles(version) {
  const manifest = readJson(join(here, "manifest.json"));
  const minApp = manifest.data.minAppVersion;
  return [
    { file: readJson(join(here, "package.json")), says: (d) => d.version, set: (d) => ({ ...d, version }) },
    {
      file: readJson(join(here, "package-lock.json")),
      says: (d) => (d.version === d.packages?.[""]?.version ? d.version : `${d.version} / ${d.packages?.[""]?.version}`),
      set: (d) => ({ ...d, version, packages: { ...d.packages, "": { ...d.packages[""], version } } }),
    },
    { file: manifest, says: (d) => d.version, set: (d) => ({ ...d, version }) },
    {
      file: readJson(join(here, "versions.json")),
      says: (d) => (version in d ? `${version}: ${d[version]}` : `no ${version}`),
      set: (d) => ({ ...d, [version]: minApp }),
      want: `${version}: ${minApp}`,
    },
  ].map((entry) => ({ ...entry, now: entry.says(entry.file.data), want: entry.want ?? version }));
}

/** Every file out of step with pyproject.toml, as "file: says X, not Y"; empty when none. */
export function versionProblems() {
  const version = pythonVersion();
  const problems = [];
  if (initVersion() !== version) problems.push(`${show(PY_INIT)}: says ${initVersion()}, not ${version}`);
  for (const { file, now, want } of pluginFiles(version)) if (now !== want) problems.push(`${show(file.path)}: says ${now}, not ${want}`);
  return problems;
}

/** Writes pyproject.toml's version into the plugin's files; returns the files it changed. */
export function syncVersions() {
  const changed = [];
  for (const { file, now, want, set } of pluginFiles(pythonVersion())) {
    if (now === want) continue;
    file.write(set(file.data));
    changed.push(show(file.path));
  }
  return changed;
}

function main(args) {
  if (args[0] === "--check") {
    const problems = versionProblems();
    if (problems.length === 0) return console.log(`versions in step: ${pythonVersion()}`);
    console.error(
      `versions out of step with ${show(PYPROJECT)} (${pythonVersion()}): \`npm run version:sync\` sets the plugin's files, ` +
        `\`node version.mjs ${pythonVersion()}\` the Python lines too`,
    );
    for (const problem of problems) console.error(`  ${problem}`);
    process.exitCode = 1;
    return;
  }
  if (args.length > 1 || (args[0] !== undefined && !VERSION.test(args[0]))) {
    console.error("usage: node version.mjs [--check | x.y.z]");
    process.exitCode = 2;
    return;
  }
  if (args[0] !== undefined) {
    setPythonVersion(args[0]);
    console.log(`${show(PYPROJECT)}, ${show(PY_INIT)}: ${args[0]}`);
  }
  const changed = syncVersions();
  console.log(changed.length ? `${changed.join(", ")}: ${pythonVersion()}` : `plugin files already at ${pythonVersion()}`);
  if (initVersion() !== pythonVersion()) {
    console.error(`${show(PY_INIT)} says ${initVersion()}: run \`node version.mjs ${pythonVersion()}\` to set both Python lines`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`version: ${error.message}`);
    process.exitCode = 1;
  }
}
