// The models and about pages.

import assert from "node:assert/strict";
import { base, net, page, ready, shot, test, visit } from "../harness.mjs";

await test("models and about pages", async () => {
  await visit("models", `${base}/models`);
  await shot("models");
  // Issue 44: on a phone the Models page folds every card but the network
  // asked for (it was 22,110 px tall with all of them open).
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/models`);
    await ready();
    const tall = await page.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(tall < 4000, `the Models page is ${tall} px tall on a phone`);
    await page.goto(`${base}/models?net=${net}`);
    await ready();
    assert.equal(await page.locator(`[data-testid="model-more-${net}"]`).evaluate((d) => d.open), true, "the network asked for is folded");
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  await visit("about", `${base}/about`);
  await shot("about");
});

// Speed here is measured and printed, not asserted (targets live in
// benchmarks and the issue note); what is asserted is how the map is built.
// cityMap checks a big network's map: one canvas with every link drawn, no
// element per link, a tooltip under the pointer, an OD pair picked by
// typing node numbers; it prints first paint and frames per second.
