// Opening a source in the workspace: at its block (`path#^id`) when it has an id, else at the
// block's line.

import type { App } from "obsidian";
import type { Excerpt } from "./api-types";
import { linkText } from "./render/query-result";

export function openNoteAt(app: App, path: string, block: Excerpt | null = null): Promise<void> {
  const text = linkText(path, block);
  if (block && !block.block_id && block.line !== null) {
    return app.workspace.openLinkText(text, "", false, { eState: { line: block.line } });
  }
  return app.workspace.openLinkText(text, "");
}
