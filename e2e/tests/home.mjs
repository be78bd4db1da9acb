// The home page: the networks, and the story told without a click.

import assert from "node:assert/strict";
import { base, checkDownloads, page, shot, test, visit } from "../harness.mjs";

await test("home lists the networks", async () => {
  await visit("home", base + "/");
  assert.equal(await page.locator('[data-testid="network-twobranch"]').count(), 1);
  assert.equal(await page.locator('[data-testid="network-ringtown"]').count(), 1);
  await shot("home");
});

// The visitor's sixty seconds: without a click, the home page shows ontime's
// own town with two routes, their probabilities of arriving on time and
// their distributions with the budget marked; the budget slider moves the
// answer, and the numbers are the engine's (/api/story).
await test("home tells the story without a click; the budget slider moves the answer", async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await visit("home", base + "/");
  const story = await (await page.request.get(`${base}/api/story`)).json();
  assert.ok(story.routes.length >= 2, "the story has two routes");
  assert.equal(await page.locator("#story-map path.leaflet-interactive").count() > 0, true, "the map is drawn");
  assert.equal(await page.locator('[data-testid^="story-route-"]').count(), 2, "two routes at the opening budget");
  assert.equal(await page.locator('[data-testid="story-budget-line"]').count(), 1, "the budget is marked");
  assert.equal(await page.locator(".route-label").count(), 2, "the two routes are named on the map");
  const fig = await page.locator('[data-testid="story-dist-svg"]').boundingBox();
  assert.ok(fig.y + fig.height <= 800, `the distributions end at ${fig.y + fig.height} px, below the fold of a 1280×800 screen`);
  const k = story.factors.indexOf(story.factor);
  const p1 = Number(await page.locator('[data-testid="story-p-1"]').textContent());
  assert.equal(p1.toFixed(3), story.routes[story.best[k]].on_time[k].toFixed(3), "P is the engine's");
  // Loosen the budget to the end of the slider by keyboard: the answer moves.
  await page.locator('[data-testid="story-budget"]').focus();
  await page.keyboard.press("End");
  const last = story.factors.length - 1;
  const out = await page.locator('[data-testid="story-budget-out"]').textContent();
  assert.match(out, new RegExp((story.factors[last] * story.let_time).toFixed(2)));
  assert.equal(await page.locator('[data-testid^="story-route-"]').count(), 2, "both routes shown at every budget");
  const p0 = Number(await page.locator('[data-testid="story-p-0"]').textContent());
  assert.equal(p0.toFixed(3), story.routes[0].on_time[last].toFixed(3));
  // Drag the budget line on the figure to its left end: the slider and the
  // readout follow the pointer.
  const box = await page.locator('[data-testid="story-dist-svg"]').boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 2, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  assert.equal(await page.locator('[data-testid="story-budget"]').inputValue(), "0", "dragged to the lowest budget");
  assert.match(await page.locator('[data-testid="story-budget-out"]').textContent(), new RegExp((story.factors[0] * story.let_time).toFixed(2)));
  assert.equal(await page.locator('[data-testid^="story-route-"]').count(), 2, "both routes shown when the fastest is also the most reliable");
  // Drive 100 trips at a watched pace: each lands on time or late, and the
  // counts are the engine's trips against the budget.
  await page.locator('[data-testid="trips-speed"]').selectOption({ label: "250 a second" });
  await page.locator('[data-testid="drive-100"]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="story-trips"]').dataset.driven === "100");
  const budget0 = story.factors[0] * story.let_time;
  const pair = [0, story.best[0] || story.other];
  for (const [i, r] of pair.entries()) {
    const on = Number(await page.locator(`[data-testid="trips-on-${i}"]`).textContent());
    const late = Number(await page.locator(`[data-testid="trips-late-${i}"]`).textContent());
    assert.equal(on + late, 100, "every trip lands in a bin");
    assert.equal(on, story.routes[r].trips.slice(0, 100).filter((t) => t <= budget0).length, `route ${i}'s on-time count is the engine's`);
  }
  assert.equal(await page.locator('[data-testid="trips-svg"] circle').count(), 200, "a dot per trip and route");
  // Step one more; play, then pause: the count moves, then stops.
  await page.locator('[data-testid="trips-step"]').click();
  assert.equal(await page.locator('[data-testid="story-trips"]').getAttribute("data-driven"), "101");
  assert.match(await page.locator('[data-testid="trips-last"]').textContent(), /^Day 101 of the pool's 1,000: A /);
  await page.locator('[data-testid="trips-speed"]').selectOption({ label: "10 a second" });
  await page.locator('[data-testid="trips-play"]').click();
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="story-trips"]').dataset.driven) > 102);
  await page.locator('[data-testid="trips-play"]').click();
  const paused = await page.locator('[data-testid="story-trips"]').getAttribute("data-driven");
  await page.waitForTimeout(400);
  assert.equal(await page.locator('[data-testid="story-trips"]').getAttribute("data-driven"), paused, "paused");
  // Moving the budget counts the same trips again against the new budget.
  await page.locator('[data-testid="story-budget"]').focus();
  await page.keyboard.press("End");
  assert.equal(await page.locator('[data-testid="story-trips"]').getAttribute("data-driven"), paused, "the trips stay when the budget moves");
  await page.setViewportSize({ width: 1280, height: 900 });
  await checkDownloads("story-distribution");
  await shot("home-story");
});
