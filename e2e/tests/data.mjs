// A network's data page: observed times uploaded with it, each link's times against its law.

import assert from "node:assert/strict";
import { axeCheck, base, page, ready, shot, test, visit } from "../harness.mjs";

await test("observed times uploaded with a network are fitted; its data page shows a link's times against its law", async () => {
  await visit("add network", `${base}/networks/add`);
  // 120 days of skewed times on the four links of a two-route grid
  let obs = "from,to,observation,time\n";
  for (let d = 0; d < 120; d++) {
    [[1, 2], [2, 4], [1, 3], [3, 4]].forEach(([a, b], i) => {
      obs += `${a},${b},${d},${(8 + 3 * Math.exp(Math.sin(d * (i + 3) + i))).toFixed(3)}\n`;
    });
  }
  await page.setInputFiles('[data-testid="import-files"]', [{ name: "probed.csv", mimeType: "text/csv",
    buffer: Buffer.from("From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n") }]);
  await page.setInputFiles('[data-testid="import-observations"]', [{ name: "probes.csv", mimeType: "text/csv", buffer: Buffer.from(obs) }]);
  await page.click('[data-testid="import-check"]');
  await ready();
  assert.match(await page.locator('[data-testid="import-report"]').textContent(), /fitted to probes\.csv \(480 rows, 120 observations\): 4 links observed/);
  await page.fill('[data-testid="import-name"]', "probed");
  await page.click('[data-testid="import-save"]');
  await ready();
  await page.click('[data-testid="data-page-link"]');
  await ready();
  await axeCheck("data page");
  await page.selectOption('[data-testid="fit-link-select"]', "3");
  await page.click('[data-testid="fit-link-form"] button');
  await ready();
  // Each figure is drawn (loaded, as wide as its column) for the link picked.
  for (const id of ["fit-histogram", "fit-qq", "fit-correlation"]) {
    const img = page.locator(`[data-testid="${id}"]`);
    await img.evaluate((el) => el.complete || new Promise((r) => { el.onload = r; }));
    const [natural, shown] = await img.evaluate((el) => [el.naturalWidth, el.getBoundingClientRect().width]);
    assert.ok(natural > 0 && shown >= 300, `${id}: ${natural} px drawn, ${shown} px shown`);
  }
  assert.match(await page.locator('[data-testid="fit-histogram"]').getAttribute("src"), /link=3$/);
  // A link picked on the map shows that link (the map's link paths first, then its nodes).
  await page.locator('[data-testid="fit-map"] path.leaflet-interactive').first().click({ force: true });
  await page.waitForURL(/\?link=1$/);
  await ready();
  assert.match(await page.locator('[data-testid="fit-qq"]').getAttribute("src"), /link=1$/);
  const csv = await (await page.request.get(`${base}/networks/probed/data/links.csv`)).text();
  assert.equal(csv.trim().split("\n").length, 5, csv);
  await shot("fit-data");
});
