// The status-bar line: connected or not, how many reviews wait, and, only while the bridge is
// embedding the vault, how far it got.

import type { SemanticStatus } from "../api-types";

export interface BridgeState {
  connected: boolean;
  pending: number;
  error: string | null;
  /** The dense channel as `/v1/status` shows it; absent from bridges older than the channel. */
  semantic?: SemanticStatus | null;
}

const count = new Intl.NumberFormat("en-US");

/** True while the bridge is embedding notes: the only semantic state the status bar shows. */
export function embedding(state: BridgeState): boolean {
  return state.connected && state.semantic?.state === "embedding";
}

/** `memory: embedding 1,234/6,571`: notes with all their vectors, of all the notes; before the
 * first is embedded, the pass that reads every note's language (`memory: reading 812/6,571`). */
export function embeddingText(semantic: SemanticStatus): string {
  const total = semantic.embedded + semantic.pending;
  const known = semantic.languages_known;
  if (semantic.embedded === 0 && known !== undefined && known < total) {
    return `memory: reading ${count.format(known)}/${count.format(total)}`;
  }
  return `memory: embedding ${count.format(semantic.embedded)}/${count.format(total)}`;
}

export function statusBarText(state: BridgeState): string {
  if (!state.connected) return "Vault Bridge: not connected";
  const noun = state.pending === 1 ? "review" : "reviews";
  const head = state.pending === 0 ? "Vault Bridge: connected" : `Vault Bridge: ${state.pending} pending ${noun}`;
  return embedding(state) && state.semantic ? `${head} · ${embeddingText(state.semantic)}` : head;
}

export function statusBarTitle(state: BridgeState): string {
  if (!state.connected) return state.error ?? "The bridge is not reachable";
  const title = "Connected to Vault Bridge. Click to open the review queue.";
  if (!embedding(state) || !state.semantic) return title;
  return `${title}\nEmbedding notes with ${state.semantic.model ?? "the sentence encoder"}: related notes and search by meaning fill in as it goes.`;
}
