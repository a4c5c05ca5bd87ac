// A small stand-in for the `obsidian` module over plain DOM. Vitest aliases `obsidian` to this
// file, and the e2e page hands it to the built main.js as `require("obsidian")`, so the plugin
// runs unchanged outside the app. It records what the real app would do (notes opened,
// notices, plugin data) and holds no timers of its own.

export * from "./shim/app";
export * from "./shim/plugin";
export * from "./shim/ui";
