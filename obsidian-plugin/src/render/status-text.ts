// The status-bar line: connected or not, and how many reviews wait.

export interface BridgeState {
  connected: boolean;
  pending: number;
  error: string | null;
}

export function statusBarText(state: BridgeState): string {
  if (!state.connected) return "Vault Bridge: not connected";
  if (state.pending === 0) return "Vault Bridge: connected";
  const noun = state.pending === 1 ? "review" : "reviews";
  return `Vault Bridge: ${state.pending} pending ${noun}`;
}

export function statusBarTitle(state: BridgeState): string {
  if (!state.connected) return state.error ?? "The bridge is not reachable";
  return "Connected to Vault Bridge. Click to open the review queue.";
}
