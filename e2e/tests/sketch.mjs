// The sketchpad: draw, run every method, export and save; messages beside their controls.

import { readFileSync } from "node:fs";
import assert from "node:assert/strict";
import { base, page, parseCSV, ready, shot, test, visit } from "../harness.mjs";

await test("sketchpad: draw three crossings, run every method, export and save", async () => {
  await visit("sketchpad", `${base}/networks/draw`);
  assert.ok(await page.locator('[data-testid="sketch-svg"] .sketch-node').count() >= 3, "opens on the example");
  await page.click('[data-testid="sketch-clear"]');
  const box = await page.locator("#sketch").boundingBox();
  const at = (x, y) => [box.x + (x * box.width) / 600, box.y + (y * box.height) / 400];
  for (const [x, y] of [[100, 250], [300, 80], [500, 250], [302, 82]]) await page.mouse.click(...at(x, y)); // the last is too close: no stacked crossing
  const drag = async (a, b) => {
    await page.mouse.move(...at(...a));
    await page.mouse.down();
    await page.mouse.move(...at(...b), { steps: 6 });
    await page.mouse.up();
  };
  await drag([100, 250], [300, 80]);
  await drag([300, 80], [500, 250]);
  await drag([100, 250], [500, 250]);
  assert.equal(await page.textContent('[data-testid="sketch-count"]'), "3 crossings, 6 roads.");
  // Select the direct road A → C on the drawing and make it short but spread.
  await page.locator('#sketch [data-link="A>C"] .hit').click({ force: true });
  assert.equal(await page.inputValue('[data-testid="link-from"]'), "A");
  await page.fill('[data-testid="link-mean"]', "4");
  await page.locator('[data-testid="link-mean"]').dispatchEvent("change");
  await page.fill('[data-testid="link-sd"]', "3");
  await page.locator('[data-testid="link-sd"]').dispatchEvent("change");
  await page.selectOption('[data-testid="corr-a"]', "A>B");
  await page.selectOption('[data-testid="corr-b"]', "B>C");
  await page.fill('[data-testid="corr-rho"]', "0.9");
  await page.click('[data-testid="corr-set"]');
  await page.selectOption('[data-testid="trip-o"]', "A");
  await page.selectOption('[data-testid="trip-d"]', "C");
  await page.click('[data-testid="sketch-run"]');
  await page.waitForSelector('[data-testid="sketch-row-clairvoyant"] [data-testid="sketch-rate"]');
  const rows = await page.locator(".sketch-results tbody tr").evaluateAll((trs) => trs.map((tr) => [tr.dataset.method, tr.querySelector('[data-testid="sketch-rate"]')?.textContent, tr.querySelector('[data-testid="sketch-reason"]')?.textContent]));
  const rate = Object.fromEntries(rows.filter((r) => r[1]).map((r) => [r[0], Number(r[1])]));
  assert.ok(Object.keys(rate).length >= 10, `rates: ${JSON.stringify(rows)}`);
  for (const [m, r] of Object.entries(rate)) assert.ok(r <= rate.clairvoyant + 1e-9, `${m} ${r} above the clairvoyant bound ${rate.clairvoyant}`);
  // LET takes the direct road (4 min on average): its rate is Φ((4.4 − 4)/3) within sampling error.
  const phi = (z) => 0.5 * (1 + Math.sign(z) * Math.sqrt(1 - Math.exp((-2 * z * z) / Math.PI))); // Pólya's approximation (error < 0.003)
  const p = phi(0.4 / 3);
  assert.ok(Math.abs(rate.let - p) < 4 * Math.sqrt((p * (1 - p)) / 2000) + 0.003, `let ${rate.let}, exact ${p.toFixed(3)}`);
  assert.match(rows.find((r) => r[0] === "gpght")[2], /save the sketch/);
  // The budget slider reruns without a click.
  const before = await page.textContent('[data-testid="sketch-summary"]');
  await page.locator('[data-testid="trip-f"]').fill("1.5");
  await page.waitForFunction((b) => document.querySelector('[data-testid="sketch-summary"]').textContent !== b && /budget 6\.00 min/.test(document.querySelector('[data-testid="sketch-summary"]').textContent), before);
  // Exports: JSON with the explicit covariance, CSV with every road.
  const [json] = await Promise.all([page.waitForEvent("download"), page.click('[data-testid="sketch-json"]')]);
  const net = JSON.parse(readFileSync(await json.path(), "utf8"));
  assert.equal(net.nodes.length, 3);
  assert.equal(net.links.length, 6);
  const ab = net.links.findIndex((l) => l.from === "A" && l.to === "B"), bc = net.links.findIndex((l) => l.from === "B" && l.to === "C");
  assert.equal(net.correlation.model, "explicit");
  assert.ok(Math.abs(net.correlation.covariance[ab][bc] - 0.9) < 1e-12, `covariance ${net.correlation.covariance[ab][bc]}`);
  const [csv] = await Promise.all([page.waitForEvent("download"), page.click('[data-testid="sketch-csv"]')]);
  const csvRows = parseCSV(readFileSync(await csv.path(), "utf8"));
  assert.deepEqual(csvRows[0], ["From", "To", "Cost", "Var"]);
  assert.equal(csvRows.length, 7);
  await shot("sketchpad");
  // Save: the upload's check, then the network is stored like any other.
  await page.fill('[data-testid="sketch-name"]', "drawn");
  await page.click('[data-testid="sketch-save-button"]');
  await ready();
  await page.click('[data-testid="import-save"]');
  await ready();
  assert.match(page.url(), /\/networks\/drawn$/);
  const stored = await (await page.request.get(`${base}/api/networks/drawn`)).json();
  assert.equal(stored.nodes.length, 3);
  const del = await page.request.post(`${base}/networks/drawn/delete`, { form: { confirm: "drawn" }, headers: { Origin: base } });
  assert.ok(del.ok(), `delete: ${del.status()}`);
});

// Issue 44: the sketchpad says what went wrong, and what it is doing, beside
// the control that was used: each message visible on the screen.
await test("sketchpad: every message shows beside its control", async () => {
  await visit("sketchpad", `${base}/networks/draw`);
  const shows = async (where, re) => {
    const el = page.locator(`[data-testid="sketch-status-${where}"]`);
    await page.waitForFunction(([w, src]) => new RegExp(src).test(document.querySelector(`[data-testid="sketch-status-${w}"]`).textContent), [where, re.source]);
    assert.ok(await el.isVisible(), `${where}: the message is hidden`);
    await el.scrollIntoViewIfNeeded();
    const r = await el.boundingBox();
    assert.ok(r.height > 0 && r.width > 40, `${where}: the message has ${r.width}×${r.height} px`);
  };
  await page.selectOption('[data-testid="corr-a"]', { index: 0 });
  await page.selectOption('[data-testid="corr-b"]', { index: 1 });
  await page.fill('[data-testid="corr-rho"]', "2");
  await page.click('[data-testid="corr-set"]');
  await shows("corr", /ρ is from −1 to 1, not 2/);
  await shot("sketch-status-rho");
  await page.selectOption('[data-testid="corr-b"]', { index: 0 });
  await page.click('[data-testid="corr-set"]');
  await shows("corr", /Pick two different roads/);
  await page.locator('#sketch [data-link] .hit').first().click({ force: true });
  await page.fill('[data-testid="link-mean"]', "-3");
  await page.locator('[data-testid="link-mean"]').dispatchEvent("change");
  await shows("link", /mean time must be positive/);
  await page.click('[data-testid="sketch-run"]');
  await shows("trip", /Running every method|Done: /);
  await shows("trip", /Done: /);
  await page.click('[data-testid="sketch-clear"]');
  await page.click('[data-testid="sketch-save-button"]');
  await shows("save", /Draw at least one road before saving/);
  assert.match(page.url(), /\/networks\/draw$/, "nothing was sent");
});
