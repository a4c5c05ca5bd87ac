// The app's transport: Obsidian's `requestUrl` (no CORS preflight, works on mobile too).

import { requestUrl } from "obsidian";
import type { RequestFn } from "./api";

export const obsidianRequest: RequestFn = async (request) => {
  const response = await requestUrl({
    url: request.url,
    method: request.method,
    headers: request.headers,
    body: request.body,
    // Error answers carry the bridge's `{error: {code, message}}`: read them, don't throw.
    throw: false,
  });
  return { status: response.status, text: response.text };
};
