// The front end's linter (npm run lint, part of make test): eslint's
// recommended rules on the page scripts (browser), their tests and the
// browser tests (node).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["assets/", "node_modules/"] },
  js.configs.recommended,
  {
    files: ["web/src/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
  },
  {
    files: ["web/test/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
  {
    // The browser tests run in node and hand functions to the page.
    files: ["e2e/**/*.mjs"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node, ...globals.browser } },
  },
  {
    rules: {
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
];
