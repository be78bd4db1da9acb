// The Live page: rates stream and the plots appear; its tables fit.

import assert from "node:assert/strict";
import { base, checkDownloads, done, net, page, shot, test, visit } from "../harness.mjs";

await test("live reliability: rates stream, plots appear", async () => {
  await visit("live", `${base}/live?net=${net}&n=2000&m=let,dot,cgr`);
  await done();
  for (const id of ["plot-histogram", "plot-cdf", "plot-curve"]) {
    assert.equal(await page.locator(`[data-testid="${id}"] svg`).count(), 1, id);
    await checkDownloads(id);
  }
  const rate = Number(await page.locator('[data-testid="rate-cgr"]').getAttribute("data-rate"));
  assert.ok(rate > 0 && rate < 1, `cgr rate ${rate}`);
  assert.equal(await page.locator('[data-testid="progress"]').evaluate((p) => p.value), 1);
  assert.match(await page.textContent('[data-testid="budget-minutes"]'), /^T = [0-9.]+ min/);
  assert.equal(await page.locator('[data-testid="live-map"] .leaflet-interactive, [data-testid="live-map"] canvas').count() > 0, true, "Live has the map");
  await shot("live");
  // Moving the budget reruns without a click; the charts stay (marked as
  // the previous run's) and Stop keeps them and the table.
  const before = await page.textContent('[data-testid="status"]');
  await page.locator('[data-testid="factor"]').fill("0.90");
  await page.waitForFunction((b) => document.querySelector('[data-testid="status"]').textContent !== b && /0\.90 ×/.test(document.querySelector('[data-testid="status"]').textContent), before);
  assert.equal(await page.locator("#plots.stale figure").count(), 3, "the previous charts stay, marked");
  await page.click('[data-testid="stop"]');
  assert.equal(await page.locator("#plots figure").count(), 3, "Stop keeps the charts");
  assert.ok(await page.locator('[data-testid="rate-cgr"]').count() === 1, "Stop keeps the table");
  // The progress bar counts the curve's replays: it stands below 1 until
  // the run's end, then at 1 (no silent wait after 100%).
  await visit("live", `${base}/live?net=${net}&n=2000&m=let,dot,cgr`);
  const seen = [];
  await page.exposeFunction("__progressSeen", (v, done) => seen.push([v, done]));
  await page.evaluate(() => new MutationObserver(() => window.__progressSeen(document.querySelector("#progress").value, document.body.dataset.done || "")).observe(document.querySelector("#progress"), { attributes: true }));
  await done();
  const early = seen.filter(([v, d]) => v >= 1 && d === "");
  assert.ok(early.length <= 1, `the bar at 100% before the end: ${JSON.stringify(seen.slice(-5))}`);
});

// The result tables fit their half of a 1280-px screen, every method shown.
await test("compare and live tables fit at 1280 px", async () => {
  // (the planners: a learner's first use trains it for minutes, and the
  // table's width is its columns and the longest code, "clairvoyant")
  const all = "let,dot,cdot,cgr,fma,mlr,bestpath,condrule,clairvoyant";
  for (const u of [`/compare?net=${net}&m=${all}`, `/live?net=${net}&n=100&m=${all}`]) {
    await visit(u, base + u);
    await done();
    const [sw, cw] = await page.locator(".split table.results").evaluate((t) => [t.scrollWidth, t.clientWidth]);
    assert.ok(sw <= cw + 1, `${u}: the table is ${sw} px in a ${cw}-px box`);
  }
});

// "How much time must I allow?": the plan box answers for the form's pair
// and methods, each budget inside its interval at a rate reaching the
// target; a row's button moves the budget slider there and the comparison
// reruns at it. Looked at on a desktop and on a phone.
