// The teaching view: predict a branch, then the slider flips the choice.

import assert from "node:assert/strict";
import { base, checkDownloads, done, page, ready, shot, test, visit } from "../harness.mjs";

await test("teaching view: predict a branch, then moving the slider flips the choice", async () => {
  await visit("teach", `${base}/teach/history`);
  assert.equal(await page.locator('[data-testid="branches"]').isVisible(), false, "the probabilities wait for a prediction");
  assert.equal(await page.locator('[data-testid="five-node"] svg').count(), 1, "the five-node network is drawn");
  await page.locator('[data-testid="predict-choice-1"]').check();
  await page.locator('[data-testid="predict-lock"]').click();
  assert.equal(await page.locator('[data-testid="branches"]').isVisible(), true, "revealed");
  assert.match(await page.locator('[data-testid="predict-verdict"]').textContent(), /better branch is B→D|tie/);
  assert.equal(await page.locator('[data-testid="five-node-chosen"]').isVisible(), true, "the chosen branch drawn thick");
  assert.ok(!/ontime train|run `/.test(await page.locator('[data-testid="choice-learned"]').textContent()), "no command line");
  const slider = page.locator('[data-testid="observed"]');
  for (const [x, want] of [["4.2", "B→C"], ["5.8", "B→D"]]) {
    await slider.fill(x);
    await page.waitForFunction((v) => document.body.dataset.observed === v, String(Number(x)));
    assert.equal(await page.locator('[data-testid="choice-optimum"]').getAttribute("data-choice"), want);
    assert.equal(await page.locator('[data-testid="choice-nohist"]').getAttribute("data-choice"), "B→C");
  }
  await page.locator('[data-testid="score-run"]').click();
  await done();
  await checkDownloads("teach-score", ["csv"]);
  await shot("teach");
  await page.goto(`${base}/teach/history?nohist=1`);
  await ready();
  for (const x of ["4.2", "5.8"]) {
    await slider.fill(x);
    await page.waitForFunction((v) => document.body.dataset.observed === v, String(Number(x)));
    assert.equal(await page.locator('[data-testid="choice-nohist"]').getAttribute("data-choice"), "B→C");
  }
  await page.locator('[data-testid="score-run"]').click();
  await done();
  await shot("teach-nohistory");
});

// The compare page opens on a comparison: its defaults (ringtown's first
// pair at the budget where the answers differ) make the methods differ,
// and each shows its P(on time).
