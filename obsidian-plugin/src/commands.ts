// The palette commands: ask, open the review queue, show related notes, curate the active note,
// show its lifecycle.

import { Notice, type App, type Plugin, type TFile } from "obsidian";
import { BridgeError, errorMessage } from "./api";
import type { BridgeHost } from "./hub";
import { openNoteAt } from "./open-note";
import { renderCurateResult } from "./render/curate-result";
import { renderLifecycle } from "./render/lifecycle";
import { waitForTask, type WaitOptions } from "./tasks";
import { AskModal } from "./views/ask-modal";
import { InfoModal } from "./views/info-modal";

/** Who curation from Obsidian is recorded as (the bridge prefixes `agent:`). */
export const CURATE_AUTHOR = "obsidian";

export const NO_LLM_TEXT =
  "Curating needs an LLM and this bridge has none. Set `llm_model` in the bridge's settings " +
  "(docs/configuration.md), or let an agent curate with its own model through `/v1/curate/prompt`.";

export interface CommandContext {
  plugin: Plugin;
  host: BridgeHost;
  openReviewQueue: () => Promise<void>;
  openRelatedNotes: () => Promise<void>;
}

function activeNote(app: App): TFile | null {
  const file = app.workspace.getActiveFile();
  return file && file.extension === "md" ? file : null;
}

export async function curateNote(
  app: App,
  host: BridgeHost,
  file: TFile,
  wait: WaitOptions = {},
): Promise<void> {
  const client = host.client();
  const content = await app.vault.cachedRead(file);
  let taskId: string;
  try {
    taskId = (await client.curate(content, CURATE_AUTHOR)).task_id;
  } catch (error) {
    const noLlm = error instanceof BridgeError && error.code === "no_llm";
    new Notice(noLlm ? `${NO_LLM_TEXT}\n(${error.message})` : errorMessage(error), 10_000);
    return;
  }
  const working = new Notice(`Vault Bridge: curating ${file.basename}…`, 0);
  try {
    const task = await waitForTask(client, taskId, wait);
    if (task.state === "failed" || !task.result) {
      new Notice(`Curation failed: ${task.error ?? "no result"}`, 10_000);
      return;
    }
    const result = task.result;
    new InfoModal(app, `Curated ${file.path}`, (container) =>
      renderCurateResult(container, result, (path) => void openNoteAt(app, path)),
    ).open();
  } catch (error) {
    new Notice(errorMessage(error), 10_000);
  } finally {
    working.hide();
  }
}

export async function showLifecycle(app: App, host: BridgeHost, file: TFile): Promise<void> {
  try {
    const lifecycle = await host.client().lifecycle(file.path);
    new InfoModal(app, `Lifecycle of ${file.basename}`, (container) =>
      renderLifecycle(container, lifecycle),
    ).open();
  } catch (error) {
    new Notice(errorMessage(error), 8_000);
  }
}

export function registerCommands(ctx: CommandContext): void {
  const { plugin, host } = ctx;
  const app = plugin.app;
  plugin.addCommand({
    id: "ask-memory",
    name: "Ask memory",
    callback: () => new AskModal(app, host).open(),
  });
  plugin.addCommand({
    id: "open-review-queue",
    name: "Open review queue",
    callback: () => void ctx.openReviewQueue(),
  });
  plugin.addCommand({
    id: "show-related-notes",
    name: "Show related notes",
    callback: () => void ctx.openRelatedNotes(),
  });
  plugin.addCommand({
    id: "curate-note",
    name: "Curate this note",
    checkCallback: (checking) => {
      const file = activeNote(app);
      if (!file) return false;
      if (!checking) void curateNote(app, host, file);
      return true;
    },
  });
  plugin.addCommand({
    id: "show-lifecycle",
    name: "Show lifecycle of this note",
    checkCallback: (checking) => {
      const file = activeNote(app);
      if (!file) return false;
      if (!checking) void showLifecycle(app, host, file);
      return true;
    },
  });
}
