// The Benchmarks page: the published results, then a job in the background.

import assert from "node:assert/strict";
import { base, checkFile, done, net, page, parseCSV, shot, test, visit } from "../harness.mjs";

await test("benchmark page opens on the published results, then runs a job in the background", async () => {
  await visit("bench", `${base}/bench?net=${net}`);
  assert.equal(await page.locator('[data-testid="published-note"]').count(), 1, "published results on arrival");
  assert.ok(await page.locator('[data-testid="summary-table"] td').count() > 0);
  for (const [id, kind] of [["download-summary-csv", "csv"], ["download-csv", "csv"]]) {
    const href = await page.locator(`[data-testid="${id}"]`).getAttribute("href");
    checkFile(href, kind, Buffer.from(await (await page.request.get(base + href)).body()));
  }
  const href = await page.locator('[data-testid="download-json"]').getAttribute("href");
  assert.equal((await (await page.request.get(base + href)).json()).network, net);
  assert.match(await (await page.request.get(base + await page.locator('[data-testid="download-tex"]').getAttribute("href"))).text(), /\\begin\{tabular\}/);
  await shot("bench-published");
  await visit("bench", `${base}/bench?net=twobranch`);
  await page.fill('[data-testid="bench-methods"]', "let,condrule");
  await page.fill('[data-testid="bench-budgets"]', "0.95,1.05");
  await page.fill('[data-testid="bench-pools"]', "2");
  await page.fill('[data-testid="bench-size"]', "1000");
  await page.click('[data-testid="bench-run"]');
  await done();
  assert.equal(await page.locator('[data-testid="summary-table"]').count(), 1);
  // Issue 44: the figure draws what the tests say and nothing more: no
  // line joins a method's points across budgets (lines read as a ranking),
  // one ≈ box for each budget with two or more methods tied with the best,
  // and it uses the page's width.
  const chart = page.locator('[data-testid="bench-chart"]').last();
  const src = await chart.getAttribute("src");
  const svg = await (await page.request.get(base + src)).text();
  const polylines = [...svg.matchAll(/ d="([^"]*)"/g)].map((m) => m[1]).filter((d) => (d.match(/L/g) || []).length >= 2 && !/Z$/.test(d));
  assert.deepEqual(polylines, [], "the chart joins points with lines");
  const rows = parseCSV(await (await page.request.get(base + src.replace(/\.svg$/, ".csv"))).text());
  const head = rows[0];
  const tiedAt = {};
  for (const r of rows.slice(1)) if (r[head.indexOf("od")] === "all" && r[head.indexOf("mark")] === "tied") tiedAt[r[head.indexOf("budget")]] = (tiedAt[r[head.indexOf("budget")]] || 0) + 1;
  const groups = Object.values(tiedAt).filter((n) => n >= 2).length;
  assert.equal((svg.match(/≈|&#8776;/g) || []).length - (groups > 0 ? 1 : 0), groups, `≈ boxes for ${JSON.stringify(tiedAt)}`);
  const width = await chart.evaluate((img) => img.getBoundingClientRect().width);
  assert.ok(width >= 900, `the chart is ${width} px wide on a 1280-px page`);
  await shot("bench");
});
