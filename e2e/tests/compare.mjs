// The Compare page: every outcome equals ontime bench on the realization, and it opens on methods that differ.

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import { base, bin, data, done, haveSFN, net, page, ready, shot, test, visit } from "../harness.mjs";

await test(`compare on ${net}: every method's outcome equals ontime bench on that realization`, async () => {
  const od = haveSFN ? ["2", "15"] : ["22", "28"];
  const methods = haveSFN ? ["let", "dot", "cgr", "cdot", "gpght"] : ["let", "dot", "cgr", "bestpath"];
  const r = 4;
  await visit("compare", `${base}/compare?net=${net}&o=${od[0]}&d=${od[1]}&f=1.05&r=${r}&m=${methods.join(",")}`);
  await done();
  const shown = {};
  for (const m of methods) {
    const row = page.locator(`[data-testid="result-${m}"]`);
    shown[m] = await row.getAttribute("data-outcome");
    const ms = Number(await page.locator(`[data-testid="latency-${m}"]`).textContent());
    assert.ok(ms >= 0 && Number.isFinite(ms), `${m}: decision latency ${ms}`);
  }
  const out = execFileSync(bin, ["bench", "--network", net, "--methods", methods.join(","), "--ods", od.join("-"), "--budgets", "1.05",
    "--pools", String(r + 1), "--pool-size", "1", "--format", "json", "--quiet"], { env: process.env }).toString();
  const rep = JSON.parse(out);
  for (const m of methods) {
    const s = rep.summary.find((x) => x.method === m && x.budget === 1.05);
    const want = s.pool_means[r] === 1 ? "on-time" : "late";
    assert.equal(shown[m], want, `${m}: page says ${shown[m]}, bench ${want}`);
  }
  const first = Number(await page.evaluate(() => document.body.dataset.firstStepMs));
  console.log(`     first step ${first} ms after the request; outcomes ${JSON.stringify(shown)}`);
  // The drives download as the page showed them: one route per method, its
  // outcome the row's, its last node the destination.
  assert.ok(await page.locator('[data-testid="route-downloads"]').isVisible(), "download links after the drive");
  const gj = await (await page.request.get(base + await page.getAttribute('[data-testid="routes-geojson"]', "href"))).json();
  assert.equal(gj.features.length, methods.length, "a route per method");
  for (const f of gj.features) {
    const p = f.properties;
    assert.equal(p.on_time ? "on-time" : "late", shown[p.method], `${p.method}: file says on time ${p.on_time}`);
    if (p.on_time) assert.equal(p.nodes[p.nodes.length - 1], od[1], `${p.method} ends at ${p.nodes.at(-1)}`);
  }
  if (haveSFN) {
    const gpx = await (await page.request.get(base + await page.getAttribute('[data-testid="routes-gpx"]', "href"))).text();
    assert.equal((gpx.match(/<trk>/g) || []).length, methods.length, "a GPX track per method");
  } else {
    assert.equal(await page.locator('[data-testid="routes-gpx"]').count(), 0, "no GPX off the globe");
  }
  await shot("compare");
});

if (data && existsSync(join(data, "tntp", "Anaheim_net.tntp"))) {
  await test("anaheim: a comparison of every non-learned method animates smoothly", async () => {
    await visit("network anaheim", `${base}/networks/anaheim`);
    await page.goto(`${base}/compare?net=anaheim&o=96&d=161&f=1.00&r=1&m=let,dot,cdot,cgr,fma,mlr,bestpath,gpght,clairvoyant`);
    await ready();
    await done(); // the first use solves DOT's tables (unless warm)
    // Measure the second comparison: frames drawn per second while it streams.
    await page.evaluate(() => {
      window.__frames = 0;
      const tick = () => { window.__frames++; if (!document.body.dataset.done) requestAnimationFrame(tick); };
      delete document.body.dataset.done;
      document.querySelector("#new-realization").click();
      window.__t0 = performance.now();
      requestAnimationFrame(tick);
    });
    await done();
    const fps = await page.evaluate(() => window.__frames / ((performance.now() - window.__t0) / 1000));
    console.log(`     anaheim comparison: ${fps.toFixed(1)} frames/s while streaming`);
    await shot("compare-anaheim");
  });
}

if (data && existsSync(join(data, "tntp", "berlin-mitte-center_net.tntp"))) {
  await test("add a network: upload the Berlin files, see the report and map, save, drive a comparison", async () => {
    await visit("add network", `${base}/networks/add`);
    const tntp = join(data, "tntp");
    await page.setInputFiles('[data-testid="import-files"]', [join(tntp, "berlin-mitte-center_net.tntp"), join(tntp, "berlin-mitte-center_node.tntp")]);
    await page.click('[data-testid="import-check"]');
    await ready();
    const notes = await page.locator('[data-testid="import-notes"] li').allTextContents();
    assert.ok(notes.some((n) => n.includes("zero time")), `notes: ${notes}`);
    assert.ok(notes.some((n) => n.includes("zone centroids")), `notes: ${notes}`);
    assert.equal(await page.locator('[data-testid="import-problems"]').count(), 0);
    const preview = await page.locator("#map path.leaflet-interactive").count();
    assert.ok(preview > 871, `preview map draws ${preview} paths`);
    await shot("add-network");
    await page.fill('[data-testid="import-name"]', "berlin");
    await page.click('[data-testid="import-save"]');
    await ready();
    assert.match(page.url(), /\/networks\/berlin$/);
    const api = await (await page.request.get(`${base}/api/networks/berlin`)).json();
    assert.equal(await page.locator("#map path.leaflet-interactive").count(), api.links.length + api.nodes.length);
    await shot("network-berlin");
    const [o, d] = api.ods[0].name.split("-");
    await page.goto(`${base}/compare?net=berlin&o=${o}&d=${d}&f=1.00&r=0&m=let,dot,cdot,cgr,bestpath,clairvoyant`);
    await ready();
    await done();
    for (const m of ["let", "dot", "cdot", "cgr", "bestpath", "clairvoyant"]) {
      const outcome = await page.locator(`[data-testid="result-${m}"]`).getAttribute("data-outcome");
      assert.ok(outcome === "on-time" || outcome === "late", `${m}: ${outcome}`);
    }
    await shot("compare-berlin");
    // A file with problems is refused with every one listed, and nothing is stored.
    await visit("add network", `${base}/networks/add`);
    await page.setInputFiles('[data-testid="import-files"]', [{ name: "bad.csv", mimeType: "text/csv",
      buffer: Buffer.from("From,To,Cost,Var\n1,2,3,1\n1,1,3,1\n2,3,x,1\n2,4,1,-1\n") }]);
    await page.click('[data-testid="import-check"]');
    await ready();
    const probs = await page.locator('[data-testid="import-problems"] li').allTextContents();
    assert.equal(probs.length, 3, probs.join(" | "));
    assert.ok(probs.some((p) => p.startsWith("bad.csv:3: field From/To")), probs.join(" | "));
    assert.equal(await page.locator('[data-testid="import-save"]').count(), 0);
    const list = await (await page.request.get(`${base}/api/networks`, { headers: { Accept: "application/json" } })).json();
    // (the city, when its data is here, and the generated grid were stored
    // before the server started)
    assert.deepEqual(list.filter((n) => n.stored && !["chicago", "grid250k"].includes(n.name)).map((n) => n.name), ["berlin"]);
  });
}


await test("compare opens on a comparison whose methods differ, each with P(on time)", async () => {
  await visit("compare", `${base}/compare?net=ringtown`);
  await done();
  const rows = page.locator('[data-testid^="result-"]');
  const links = new Set(), rates = [];
  for (let i = 0; i < await rows.count(); i++) {
    const row = rows.nth(i);
    if (await row.getAttribute("data-outcome") === "unavailable") continue;
    links.add(await row.locator(".links").textContent());
    rates.push(Number(await row.locator(".rate").textContent()));
  }
  assert.ok(links.size >= 2, `the methods drove the same number of links: ${[...links]}`);
  assert.ok(rates.length >= 2 && rates.every((r) => r >= 0 && r <= 1), `rates ${rates}`);
  assert.ok(new Set(rates).size >= 2, `every method has the same P(on time): ${rates}`);
  // Drive the days P(on time) was counted on: 100 trips land as 100 dots
  // per method, on time plus late; all 1,000 give each method's P exactly.
  const trips = page.locator('[data-testid="compare-trips"]');
  await trips.locator('[data-testid="trips-speed"]').selectOption({ label: "all at once" });
  await trips.locator('[data-testid="drive-100"]').click();
  await page.waitForFunction(() => document.querySelector("#trips-panel").dataset.driven === "100");
  for (let i = 0; i < rates.length; i++) {
    const on = Number(await trips.locator(`[data-testid="trips-on-${i}"]`).textContent());
    const late = Number(await trips.locator(`[data-testid="trips-late-${i}"]`).textContent());
    assert.equal(on + late, 100, `method ${i}: ${on} + ${late} trips`);
  }
  assert.equal(await trips.locator("svg circle").count(), 100 * rates.length, "a dot per trip and method");
  assert.equal(await trips.locator('[data-testid="drive-rest"]').textContent(), "Drive the rest (900)");
  await trips.locator('[data-testid="drive-rest"]').click();
  await page.waitForFunction(() => document.querySelector("#trips-panel").dataset.driven === "1000");
  for (let i = 0; i < rates.length; i++) {
    assert.equal(Number(await trips.locator(`[data-testid="trips-share-${i}"]`).textContent()), rates[i], `method ${i}'s share of the 1,000 days is its P`);
  }
  // A clicked row shows its route and greys the others.
  const first = page.locator('#result-rows tr.pickable').first();
  await first.click();
  assert.equal(await first.getAttribute("data-selected"), "1");
  const grey = await page.evaluate(() => [...document.querySelectorAll("#map path.leaflet-interactive")].filter((p) => p.getAttribute("stroke") === "#999").length);
  assert.ok(grey > 0, "the other routes are greyed");
  // A new pair reruns at once, without pressing Drive.
  const status0 = await page.locator("#status").textContent();
  const d = page.locator('[name="d"]');
  const other = await d.evaluate((s) => [...s.options].map((o) => o.value).find((v) => v !== s.value && v !== document.querySelector('[name="o"]').value));
  await d.selectOption(other);
  await page.waitForFunction((s0) => document.body.dataset.done === "1" && document.querySelector("#status").textContent !== s0, status0);
  assert.match(await page.locator("#status").textContent(), new RegExp(`OD \\S+-${other}\\b`));
});

// The lessons: each asks first and reveals after the answer is locked;
// each figure responds to its one control; each opens where its point
// shows; the arrow keys step from one lesson to the next; presentation
// mode fits a projector's screen; a printed lesson is a handout.
