// The browser tests: the harness (a server with its own state, Chromium,
// the checks every page gets) and the tests, one file per page in
// e2e/tests, run in this order. `node e2e/run.mjs BIN`; E2E_ONLY=text runs
// the tests whose names hold it.
import assert from "node:assert/strict";
import { axeViolations, browser, errors, external, failed, server, test } from "./harness.mjs";

for (const name of ["home", "network", "compare", "teaching", "lessons", "live", "plan", "bench", "data", "train", "add", "sketch", "pages", "city", "runs", "phone"]) {
  await import(`./tests/${name}.mjs`);
}

await test("no external requests, no script errors", async () => {
  assert.deepEqual(external, []);
  assert.deepEqual(errors, []);
});

await test("no serious or critical axe-core violation on any page visited", async () => {
  assert.deepEqual(axeViolations, []);
});

await browser.close();
server.kill("SIGINT");
console.log(failed ? `e2e: ${failed} failed` : "e2e: all passed");
process.exit(failed ? 1 : 0);
