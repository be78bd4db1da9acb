// Planning: how much time for a target rate, and a model outside its training saying so.

import assert from "node:assert/strict";
import { axeCheck, base, done, net, page, shot, test, visit } from "../harness.mjs";

await test("how much time for 95%: each method's least budget, then the slider takes it", async () => {
  for (const [w, h, name] of [[1280, 900, "compare-plan"], [390, 844, "compare-plan-phone"]]) {
    await page.setViewportSize({ width: w, height: h });
    await visit(name, `${base}/compare?net=${net}&m=let,dot,cdot`);
    await done();
    await page.click('[data-testid="plan"] summary');
    await page.selectOption('[data-testid="plan-target"]', "0.95");
    await page.click('[data-testid="plan-run"]');
    await page.waitForSelector('[data-testid="plan"][data-done]', { timeout: 120000 });
    assert.equal(await page.getAttribute('[data-testid="plan"]', "data-done"), "1", await page.textContent('[data-testid="plan-status"]'));
    assert.match(await page.textContent('[data-testid="plan-status"]'), /P\(on time\) ≥ 0\.95/);
    for (const m of ["let", "dot", "cdot"]) {
      const row = page.locator(`[data-testid="plan-table"] tr[data-method="${m}"]`);
      const budget = parseFloat(await page.textContent(`[data-testid="plan-budget-${m}"]`));
      const [lo, hi] = (await row.locator("td.ci").textContent()).split("–").map((x) => parseFloat(x));
      const rate = parseFloat(await row.locator("td.rate").textContent());
      assert.ok(lo <= budget && budget <= hi && rate >= 0.95, `${m}: ${budget} in [${lo}, ${hi}] at ${rate}`);
    }
    assert.match(await page.textContent('[data-testid="plan-budget-dot"]'), /its table: [0-9.]+/);
    // The pair's routes with their indices: BI = PTI / TTI − 1 by definition, PTI ≥ TTI ≥ 1.
    assert.ok(await page.locator('[data-testid="plan-routes"]').isVisible(), "route indices shown");
    const routeRows = page.locator('[data-testid="plan-routes"] tbody tr');
    assert.equal(await routeRows.count(), 3, "three routes");
    for (let k = 0; k < 3; k++) {
      const num = async (c) => parseFloat(await routeRows.nth(k).locator(`td.${c}`).textContent());
      const [tti, bi, pti] = [await num("tti"), (await num("bi")) / 100, await num("pti")]; // BI reads as a share: "14.4%"
      assert.ok(tti >= 1 && pti >= tti && Math.abs(bi - (pti / tti - 1)) < 0.005, `route ${k}: TTI ${tti}, BI ${bi}, PTI ${pti}`);
    }
    const gj = await (await page.request.get(base + await page.getAttribute('[data-testid="plan-routes-geojson"]', "href"))).json();
    assert.equal(gj.features.length, 3, "the routes download");
    const csv = (await (await page.request.get(base + await page.getAttribute('[data-testid="plan-routes-csv"]', "href"))).text()).trim().split("\n");
    assert.equal(csv.length, 4, "a CSV row per route");
    assert.match(csv[0], /planning_time_index/);
    for (const id of ["plan-table", "plan-routes"]) {
      const [sw, cw] = await page.locator(`[data-testid="${id}"]`).evaluate((t) => [t.scrollWidth, t.clientWidth]);
      assert.ok(sw <= cw + 1, `${name}: ${id} is ${sw} px in a ${cw}-px box`);
    }
    await axeCheck(`${name} (answered)`);
    await shot(name);
    // The button takes dot's budget whole (the slider widens where it must,
    // never clamps): the slider moves there, says so beside it on screen,
    // and the drive reruns at it.
    const factor = Number(await page.getAttribute('[data-testid="plan-use-dot"]', "data-factor"));
    await page.click('[data-testid="plan-use-dot"]');
    const slider = Number(await page.inputValue('[data-testid="factor"]'));
    assert.ok(Math.abs(slider - factor) < 1e-9, `slider ${slider}, dot's factor ${factor}`);
    assert.ok(Number(await page.getAttribute('[data-testid="factor"]', "max")) >= factor, "the slider reaches the budget");
    const used = page.locator('[data-testid="plan-used"]');
    assert.match(await used.textContent(), /dot's least budget for P\(on time\) ≥ 0\.95, [0-9.]+ min/);
    const ub = await used.boundingBox();
    // On a desktop the note beside the slider is in sight; on a phone the
    // page goes to the rerun's results (a screen below the slider).
    const seen = w < 600 ? await page.locator(".split table.results").boundingBox() : ub;
    assert.ok(seen && seen.y >= 0 && seen.y < h && seen.x >= 0 && seen.x + seen.width <= w + 1, `${name}: ${w < 600 ? "the results" : "the note beside the slider"} on screen: ${JSON.stringify(seen)}`);
    await page.waitForFunction((f) => new RegExp(`\\(${f} ×`).test(document.querySelector('[data-testid="status"]').textContent), slider.toFixed(2), { timeout: 60000 });
    await done();
  }
  await page.setViewportSize({ width: 1280, height: 900 });
});

// A trained model asked outside what its card covers says so beside its
// number, in words a phone shows (a hover title was the only sign): the
// five-node example's model covers A-E at 0.98–1.02 × LET.
await test("a model outside its training says so beside its number, on a phone too", async () => {
  for (const [w, h, name] of [[1280, 900, "compare-outside"], [390, 844, "live-outside-phone"]]) {
    await page.setViewportSize({ width: w, height: h });
    const live = name.startsWith("live");
    const url = live ? `${base}/live?net=twobranch&o=B&d=E&f=1.00&n=200&m=let,gpght` : `${base}/compare?net=twobranch&o=A&d=E&f=1.50&m=let,gpght`;
    await visit(name, url);
    await done();
    const note = page.locator('[data-testid="outside-gpght"]');
    await note.scrollIntoViewIfNeeded();
    assert.ok(await note.isVisible(), `${name}: no note beside gpght`);
    assert.match(await note.textContent(), live ? /outside gpght's training: .*B-E is not one of them.*not gpght's own number/ : /outside gpght's training range: .*1\.50 is outside.*not gpght's own number/);
    const box = await note.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= w + 1 && box.height >= 10, `${name}: the note lies off screen: ${JSON.stringify(box)}`);
    assert.equal(await page.locator('[data-testid="outside-let"]').count(), 0, "let is never outside");
    await shot(name);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
});
