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
  },
});
