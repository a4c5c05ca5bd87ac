// The plugin's release, as Obsidian's community plugins ship:
//
//   node release.mjs [OUT]     (npm run release; OUT defaults to ../dist/)
//
// writes OUT/vault-bridge-obsidian-<version>.zip, holding one folder `vault-bridge/` with
// main.js, manifest.json and styles.css (what a person unzips into .obsidian/plugins/), and the
// same three files loose in OUT/obsidian-plugin/ (the assets a GitHub release attaches, which
// BRAT and Obsidian's updater download one by one). It refuses a missing, stale or development
// main.js, and versions out of step (version.mjs).

import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { deflateRawSync } from "node:zlib";
import { bundleProblem } from "./build-check.mjs";
import { pythonVersion, versionProblems } from "./version.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const FILES = ["main.js", "manifest.json", "styles.css"];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** MS-DOS date and time (local, 2 s steps), as zip headers hold them. */
function dosDateTime(date) {
  const year = Math.max(date.getFullYear(), 1980);
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | Math.floor(date.getSeconds() / 2),
    day: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

/**
 * A zip archive (PKWARE APPNOTE: local headers, central directory, end record) of `entries`,
 * each {name, data: Buffer | null for a folder, mtime: Date}. Names are UTF-8, files deflated,
 * Unix permissions 644 for files and 755 for folders.
 */
export function zip(entries) {
  const parts = [];
  const central = [];
  let offset = 0;
  for (const { name, data, mtime } of entries) {
    const folder = data === null;
    const raw = folder ? Buffer.alloc(0) : data;
    const packed = folder ? raw : deflateRawSync(raw, { level: 9 });
    const nameBytes = Buffer.from(name, "utf8");
    const { time, day } = dosDateTime(mtime);
    const fields = { method: folder ? 0 : 8, time, day, crc: crc32(raw), packed: packed.length, size: raw.length };

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate, folders)
    local.writeUInt16LE(0x0800, 6); // the name is UTF-8
    local.writeUInt16LE(fields.method, 8);
    local.writeUInt16LE(fields.time, 10);
    local.writeUInt16LE(fields.day, 12);
    local.writeUInt32LE(fields.crc, 14);
    local.writeUInt32LE(fields.packed, 18);
    local.writeUInt32LE(fields.size, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    parts.push(local, nameBytes, packed);

    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0 (so the mode below is read)
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(fields.method, 10);
    entry.writeUInt16LE(fields.time, 12);
    entry.writeUInt16LE(fields.day, 14);
    entry.writeUInt32LE(fields.crc, 16);
    entry.writeUInt32LE(fields.packed, 20);
    entry.writeUInt32LE(fields.size, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    // extra and comment lengths, disk number, internal attributes: all 0
    const mode = folder ? 0o040755 : 0o100644;
    entry.writeUInt32LE(((mode << 16) | (folder ? 0x10 : 0)) >>> 0, 38);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

function release(out) {
  const stale = bundleProblem(here);
  if (stale) throw new Error(stale);
  const problems = versionProblems();
  if (problems.length > 0) throw new Error(`versions out of step (npm run version:check):\n  ${problems.join("\n  ")}`);
  const version = pythonVersion();
  const { id } = JSON.parse(readFileSync(join(here, "manifest.json"), "utf8"));

  const loose = join(out, "obsidian-plugin");
  rmSync(loose, { recursive: true, force: true });
  mkdirSync(loose, { recursive: true });
  const entries = [{ name: `${id}/`, data: null, mtime: statSync(join(here, "manifest.json")).mtime }];
  for (const name of FILES) {
    const path = join(here, name);
    copyFileSync(path, join(loose, name));
    entries.push({ name: `${id}/${name}`, data: readFileSync(path), mtime: statSync(path).mtime });
  }
  const archive = join(out, `vault-bridge-obsidian-${version}.zip`);
  writeFileSync(archive, zip(entries));
  const show = (path) => relative(process.cwd(), path) || path;
  console.log(`${show(archive)}: ${id}/ with ${FILES.join(", ")} (${statSync(archive).size} bytes)`);
  console.log(`${show(loose)}/: ${FILES.join(", ")}, the release's assets`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    release(resolve(process.argv[2] ?? join(here, "..", "dist")));
  } catch (error) {
    console.error(`release: ${error.message}`);
    process.exitCode = 1;
  }
}
