// A network's page: its map drawn whole, OD pairs picked by clicks, and the map as one Tab stop with keys inside it.

import assert from "node:assert/strict";
import { base, net, page, ready, shot, test, visit } from "../harness.mjs";

await test(`network view of ${net}: every link drawn, clicking picks an OD`, async () => {
  await visit(`network ${net}`, `${base}/networks/${net}`);
  const api = await (await page.request.get(`${base}/api/networks/${net}`)).json();
  const paths = await page.locator("#map path.leaflet-interactive").count();
  assert.equal(paths, api.links.length + api.nodes.length, "one path per link and per node");
  const nodes = page.locator("#map path.leaflet-interactive");
  // Nodes are drawn after links; the destination is the sixth node, or the
  // last where the network is smaller.
  const dest = Math.min(5, api.nodes.length - 1);
  await nodes.nth(api.links.length + 0).click({ force: true });
  await nodes.nth(api.links.length + dest).click({ force: true });
  const href = await page.locator('[data-testid="compare-link"]').getAttribute("href");
  assert.match(href, new RegExp(`o=${api.nodes[0].id}&d=${api.nodes[dest].id}`));
  // The same by keyboard: the map is one widget; N steps through the
  // nodes, Enter picks.
  await page.locator("#map").focus();
  for (const key of ["n", "Enter", "n", "n", "Enter"]) await page.keyboard.press(key);
  const keyed = await page.locator('[data-testid="compare-link"]').getAttribute("href");
  assert.match(keyed, new RegExp(`o=${api.nodes[0].id}&d=${api.nodes[2].id}`), "origin and destination picked by keyboard");
  assert.match(await page.locator('[data-testid="map-announce"]').textContent(), new RegExp(`picked node ${api.nodes[2].id}`));
  // Typing a node's id goes to it; after Enter, the next digits name the
  // next node.
  for (const i of [3, 4]) {
    await page.keyboard.type(String(api.nodes[i].id));
    await page.keyboard.press("Enter");
    assert.match(await page.locator('[data-testid="map-announce"]').textContent(), new RegExp(`picked node ${api.nodes[i].id}$`));
  }
  assert.match(await page.locator('[data-testid="compare-link"]').getAttribute("href"), new RegExp(`o=${api.nodes[3].id}&d=${api.nodes[4].id}`));
  await page.selectOption('[data-testid="color-by"]', "cv");
  await shot("network");
});

// Realization r of a comparison is the first of test pool r, so
// `ontime bench --pools r+1 --pool-size 1` scores the same one.

await test("a map is one Tab stop, with keys inside it", async () => {
  for (const [url, id] of [[`/compare?net=${net}`, "compare-map"], [`/networks/${net}`, "network-map"], [`/live?net=${net}`, "live-map"]]) {
    await page.goto(base + url);
    await ready();
    const map = page.locator(`[data-testid="${id}"]`);
    await map.locator("path.leaflet-interactive").first().waitFor();
    await map.focus();
    assert.equal(await page.evaluate((t) => document.activeElement === document.querySelector(`[data-testid="${t}"]`), id), true, `${url}: the map takes focus`);
    assert.ok((await map.getAttribute("aria-label") || "").length > 5, `${url}: the map is named`);
    const stops = await map.locator("path.leaflet-interactive").evaluateAll((ps) => ps.filter((p) => p.tabIndex >= 0).length);
    assert.equal(stops, 0, `${url}: ${stops} paths inside the map are Tab stops`);
    // Tab leaves the map, past at most its two named zoom buttons.
    const passed = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press("Tab");
      const at = await page.evaluate((t) => {
        const a = document.activeElement;
        return document.querySelector(`[data-testid="${t}"]`).contains(a) ? { name: a.getAttribute("aria-label") || "", control: !!a.closest(".leaflet-control") } : null;
      }, id);
      if (!at) break;
      assert.ok(at.control && at.name, `${url}: Tab stopped on an unnamed element inside the map`);
      passed.push(at.name);
    }
    assert.ok(passed.length <= 2, `${url}: Tab stayed inside the map: ${passed}`);
    await map.focus();
    await page.keyboard.press("n");
    await page.waitForFunction(() => /^node /.test(document.querySelector('[data-testid="map-announce"]')?.textContent || ""));
  }
});

// Issue 44: on a phone the numbers that matter are on the screen: after a
// run, every method's P(on time) on Compare and Live, the home trips'
// share and P and their caption, each within the 390 px and not clipped;
// no page scrolls sideways once its charts have drawn.
