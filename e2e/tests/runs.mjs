// Compare and Live at their edges: an empty method list, any pair, a run replaced before its stream opens, Drive after a new pair.

import assert from "node:assert/strict";
import { base, done, net, page, test } from "../harness.mjs";

await test("compare and live: an empty method list, any pair's budget, results on the first screen", async () => {
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const [path, results] of [["compare", "results"], ["live", "rates"]]) {
      await page.goto(`${base}/${path}?net=${net}`);
      await done();
      const top = await page.locator(`[data-testid="${results}"]`).evaluate((el) => el.getBoundingClientRect().top);
      assert.ok(top < 600, `${path}: the results start at ${top} px on an 800-px screen`);
      const nodes = await page.locator('[data-testid="origin"] option').evaluateAll((os) => os.map((o) => o.value));
      const pairs = await (await page.request.get(`${base}/api/networks/${net}`)).json();
      const bench = new Set((pairs.ods || []).map((od) => `${od.origin}-${od.destination}`));
      const [o, d] = [nodes[nodes.length - 1], nodes[0]];
      assert.ok(!bench.has(`${o}-${d}`), `${o}-${d} is a benchmark pair`);
      await page.selectOption('[data-testid="origin"]', o);
      await page.selectOption('[data-testid="dest"]', d);
      assert.match(await page.textContent('[data-testid="budget-minutes"]'), /^T = [0-9.]+ min \(LET [0-9.]+\)$/, `${path}: no budget in minutes for ${o}-${d}`);
      await page.click('[data-testid="methods-choice"] summary');
      const ticked = page.locator('[data-testid="methods-choice"] input[name="m"]:checked');
      while (await ticked.count()) await ticked.first().uncheck();
      assert.equal(await page.textContent('[data-testid="methods-chosen"]'), "none");
      await page.locator(path === "compare" ? '[data-testid="run"]' : '[data-testid="run"], [data-testid="live-run"]').first().click();
      await page.waitForFunction(() => document.body.dataset.done === "error");
      await page.waitForTimeout(400); // past a pair's scheduled rerun (250–300 ms), which Drive cancels
      assert.match(await page.textContent('[data-testid="status"]'), /no method chosen: tick at least one/, `${path}: an empty method list`);
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

// CI at 67bb174: a run replaced before its stream opened wrote "The
// stream failed; is the server running?" over the new run's status (the
// closed socket's error event asked the server about the old request).
// Here the first run is replaced in the same task, so its socket is always
// still connecting when it closes.
await test("a run replaced before its stream opens leaves the new run's status", async () => {
  for (const path of ["compare", "live"]) {
    await page.goto(`${base}/${path}?net=${net}`);
    await done();
    await page.click('[data-testid="methods-choice"] summary');
    const said = await page.evaluate(async () => {
      const form = document.querySelector("#run-form");
      const seen = [];
      new MutationObserver(() => seen.push(document.querySelector('[data-testid="status"]').textContent))
        .observe(document.querySelector('[data-testid="status"]'), { childList: true, characterData: true, subtree: true });
      form.requestSubmit();
      form.querySelectorAll('input[name="m"]').forEach((c) => { c.checked = false; });
      form.requestSubmit();
      await new Promise((r) => setTimeout(r, 1500));
      return seen;
    });
    const last = said[said.length - 1] || "";
    assert.match(last, /no method chosen: tick at least one/, `${path}: the status after the second run: ${JSON.stringify(said)}`);
    assert.ok(!said.some((t) => /failed/.test(t)), `${path}: the replaced run spoke: ${JSON.stringify(said)}`);
  }
});

// CI at c0e7350: on Compare a pair picked then Drive pressed at once ran
// twice: the pick's scheduled rerun (250 ms) still fired after Drive and
// wrote "Computing…" over Drive's answer. Drive now cancels it: one run.
await test("Drive right after a new pair is the one run", async () => {
  for (const path of ["compare", "live"]) {
    await page.goto(`${base}/${path}?net=${net}`);
    await done();
    const said = await page.evaluate(async () => {
      const form = document.querySelector("#run-form");
      const status = document.querySelector('[data-testid="status"]');
      const seen = [];
      new MutationObserver(() => seen.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
      const o = form.querySelector('[name="o"]');
      o.value = o.options[o.options.length - 1].value;
      o.dispatchEvent(new Event("change", { bubbles: true }));
      form.querySelectorAll('input[name="m"]').forEach((c) => { c.checked = false; });
      form.requestSubmit();
      await new Promise((r) => setTimeout(r, 1200));
      return seen;
    });
    const runs = said.filter((t) => /^(Computing|Starting)/.test(t)).length;
    assert.equal(runs, 1, `${path}: ${runs} runs started: ${JSON.stringify(said)}`);
    assert.match(said[said.length - 1] || "", /no method chosen: tick at least one/, `${path}: ${JSON.stringify(said)}`);
  }
});

// Issue 44: a map is one Tab stop: Tab reaches the map, then leaves it past
// its named zoom buttons (each link path was a Tab stop that panned the
// map: 79 on Sioux Falls), and inside it the keys step through the nodes.
