// Waiting for a background task of the bridge (`POST /v1/curate` answers with a task id).

import { BridgeError, type BridgeClient } from "./api";
import type { Task } from "./api-types";

export interface WaitOptions {
  intervalMs?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `/v1/tasks/{id}` until the task is done or failed; throws after `timeoutMs`. */
export async function waitForTask(
  client: BridgeClient,
  id: string,
  options: WaitOptions = {},
): Promise<Task> {
  const { intervalMs = 1000, timeoutMs = 10 * 60_000, sleep = realSleep, now = Date.now } = options;
  const deadline = now() + timeoutMs;
  for (;;) {
    const task = await client.task(id);
    if (task.state === "done" || task.state === "failed") return task;
    if (now() >= deadline) {
      throw new BridgeError(`The bridge is still working on task ${id}; try again later`, "timeout");
    }
    await sleep(intervalMs);
  }
}
