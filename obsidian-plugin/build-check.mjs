// Is main.js the production build of the current sources? The e2e test and the release both
// refuse one that is missing, older than a source, or a development build.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Why `pluginDir/main.js` cannot be used, or null when it is current. */
export function bundleProblem(pluginDir) {
  const bundle = join(pluginDir, "main.js");
  const rebuild = "run `npm run build` in obsidian-plugin/ (or `make plugin`)";
  if (!existsSync(bundle)) return `main.js is missing: ${rebuild}`;
  const built = statSync(bundle).mtimeMs;
  const inputs = [...sources(join(pluginDir, "src")), join(pluginDir, "esbuild.config.mjs"), join(pluginDir, "tsconfig.json")];
  const newer = inputs.filter((path) => statSync(path).mtimeMs > built).map((path) => relative(pluginDir, path));
  if (newer.length > 0) return `main.js is older than ${newer.join(", ")}: ${rebuild}`;
  // `npm run dev` writes the same file with an inline source map, for Obsidian's dev tools only.
  if (readFileSync(bundle, "utf8").includes("sourceMappingURL=data:")) return `main.js is a development build (npm run dev): ${rebuild}`;
  return null;
}
