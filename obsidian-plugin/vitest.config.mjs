// Unit tests run in happy-dom with `obsidian` replaced by the small shim in test/.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: { obsidian: fileURLToPath(new URL("./test/obsidian-shim.ts", import.meta.url)) },
  },
  test: {
    environment: "happy-dom",
    include: ["test/**/*.test.ts"],
    // A test here takes milliseconds and waits only on promises and zero-delay timers, but the
    // timeout counts wall time: CI once stalled 5 s (vitest's default) in a test that takes
    // 30 ms everywhere else, under CPU load too. A hang still fails, 30 s later.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
