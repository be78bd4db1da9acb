// Adding a network: uploads shown as text, reading and building progress, problems in view, TNTP demand, OpenStreetMap and GMNS, map tiles.

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { base, bin, browser, done, page, ready, shot, shots, test, visit } from "../harness.mjs";

await test("an upload's node ids and description are shown as text, never as HTML", async () => {
  const meta = '<meta http-equiv="refresh" content="0;url=/about?pwned=1">';
  const bold = '<b class="injected">a</b>';
  const hostile = {
    format: "ontime-network", version: 1, name: "hostile", coordinates: "planar",
    description: `<h1 class="injected">described</h1>${meta}`,
    nodes: [{ id: bold, x: 0, y: 0 }, { id: meta, x: 1, y: 0 }, { id: "<i class=injected>c</i>", x: 2, y: 1 }],
    links: [{ from: bold, to: meta, mean: 2, variance: 1 }, { from: meta, to: "<i class=injected>c</i>", mean: 2, variance: 1 },
      { from: bold, to: "<i class=injected>c</i>", mean: 4.5, variance: 2 }],
    correlation: { model: "independent" },
  };
  await visit("add network", `${base}/networks/add`);
  await page.setInputFiles('[data-testid="import-files"]', [{ name: "hostile.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(hostile)) }]);
  await page.click('[data-testid="import-check"]');
  await ready();
  assert.equal(await page.locator(".injected").count(), 0, "markup in the preview");
  await page.fill('[data-testid="import-name"]', "hostile");
  await page.click('[data-testid="import-save"]');
  await ready();
  for (const u of ["/networks/hostile", "/compare?net=hostile", "/live?net=hostile&n=50&m=let", "/"]) {
    await visit(u, base + u);
    await page.waitForTimeout(300); // a refresh would have fired
    // (the page's own query may name the node: only a move to /about is a redirect)
    assert.equal(new URL(page.url()).pathname, new URL(base + u).pathname, `${u} redirected to ${page.url()}`);
    assert.equal(await page.locator(".injected").count(), 0, `${u}: uploaded markup became elements`);
  }
  await visit("network hostile", `${base}/networks/hostile`);
  const labels = await page.locator(".leaflet-tooltip").allTextContents();
  assert.ok(labels.some((t) => t.includes(bold)), `node labels show the id as text: ${labels.join(" | ")}`);
  const path = page.locator("#map path.leaflet-interactive").first();
  await path.hover({ force: true });
  const tips = await page.locator(".leaflet-tooltip").allTextContents();
  assert.ok(tips.some((t) => /link .*→/.test(t) && t.includes("<")), `link tooltip as text: ${tips.join(" | ")}`);
  const del = await page.request.post(`${base}/networks/hostile/delete`, { form: { confirm: "hostile" }, headers: { Origin: base } });
  assert.ok(del.ok(), `delete: ${del.status()}`);
});

// Issue 43: an upload is read and checked in a worker, for up to its limit:
// the form says so while it waits, and its button cannot send it twice.
// The submission is held in the page (Chromium closes when an intercepted
// request carries a file), so the note can be read for seconds.
await test("add a network: the form says it is reading the files while it waits", async () => {
  await visit("add network", `${base}/networks/add`);
  await page.evaluate(() => document.querySelector('[data-testid="import-form"]').addEventListener("submit", (e) => e.preventDefault()));
  await page.setInputFiles('[data-testid="import-files"]', [{ name: "pair.csv", mimeType: "text/csv", buffer: Buffer.from("From,To,Cost,Var\n1,2,10,4\n2,1,10,4\n") }]);
  await page.click('[data-testid="import-check"]');
  const note = page.locator('[data-testid="working"]');
  await page.waitForFunction(() => /… [1-9]\d* s/.test(document.querySelector('[data-testid="working"]')?.textContent || ""));
  assert.match(await note.textContent(), /^Sending and reading your files… \d+ s \(the dashboard stops after \d+ s of reading and checking\)$/);
  assert.equal(await page.locator('[data-testid="import-check"]').isDisabled(), true, "the button can send the files twice");
  assert.ok(await note.isVisible(), "the note is not in view");
  await shot("import-working");
});

// Issue 44: a network whose dense correlation takes a while to build is
// never an "Error" page: the import report names the cost and the quick
// alternative, and after Save the network's page shows its map and facts at
// once with a "being built, about N" notice and a progress bar that turns
// into a link when the model is ready. A ring of 1,600 links (seconds to
// build here); a seed of its own so that no cached factor serves it.
await test("add a network: a dense correlation's build shows the map at once, its cost and its progress", async () => {
  const n = 800;
  let links = "From,To,Cost,Var\n", nodes = "Node\tX\tY\t;\n";
  for (let i = 1; i <= n; i++) {
    const j = (i % n) + 1;
    links += `${i},${j},${1 + (i % 5)},1\n${j},${i},${1 + (j % 3)},1\n`;
    nodes += `${i}\t${Math.round(1000 * Math.cos((2 * Math.PI * i) / n))}\t${Math.round(1000 * Math.sin((2 * Math.PI * i) / n))}\t;\n`;
  }
  await visit("add network", `${base}/networks/add`);
  await page.selectOption('[data-testid="import-corr"]', "random-psd");
  await page.fill('[data-testid="import-corr-seed"]', String(Date.now() % 1e9));
  await page.setInputFiles('[data-testid="import-files"]', [{ name: "bigring.csv", mimeType: "text/csv", buffer: Buffer.from(links) },
    { name: "bigring_node.tntp", mimeType: "text/plain", buffer: Buffer.from(nodes) }]);
  await page.click('[data-testid="import-check"]');
  await page.waitForURL(/#import-report$/);
  await ready();
  assert.match(await page.locator('[data-testid="import-notes"]').textContent(), /random-psd is dense, so its link-time model over 1600 links takes about \d+ (s|min) to build on this machine.*spatial-factor correlation builds in seconds/);
  await page.fill('[data-testid="import-name"]', "bigring");
  await page.click('[data-testid="import-save"]');
  await page.waitForURL(/\/networks\/bigring$/);
  await ready();
  assert.equal(await page.locator("h1").textContent(), "Network bigring", "not an error page");
  const notice = page.locator('[data-testid="model-building"]');
  assert.ok(await notice.isVisible(), "no notice of the build");
  assert.match(await notice.textContent(), /being built, once, for everyone: about \d+ (s|min)/);
  assert.match(await page.locator('[data-testid="network-facts"]').textContent(), /800 nodes, 1,600 links/);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="network-map"] path.leaflet-interactive, [data-testid="network-map"] canvas').length > 0);
  await shot("network-building");
  await page.waitForFunction(() => document.querySelector('[data-testid="model-building"]').dataset.ready === "1");
  assert.match(await notice.textContent(), /ready: compare routes/);
  const del = await page.request.post(`${base}/networks/bigring/delete`, { form: { confirm: "bigring" }, headers: { Origin: base } });
  assert.ok(del.ok(), `delete: ${del.status()}`);
});

// A failed check lands on its report: the problems are in view, not below
// the fold of a page reloaded at its top.
await test("add a network: a rejected file's problems are in view", async () => {
  await visit("add network", `${base}/networks/add`);
  await page.fill('[data-testid="import-cv"]', "0.3");
  await page.setInputFiles('[data-testid="import-files"]', [{ name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from("From,To,Cost,Var\n1,2,ten,4\n") }]);
  await page.click('[data-testid="import-check"]');
  await ready();
  assert.equal(new URL(page.url()).hash, "#import-report");
  const top = await page.locator('[data-testid="import-problems"]').evaluate((el) => el.getBoundingClientRect().top);
  assert.ok(top >= 0 && top < 900, `the problems start at ${top} px`);
  assert.match(await page.locator('[data-testid="import-problems"]').textContent(), /bad\.csv/);
  assert.equal(await page.inputValue('[data-testid="import-cv"]'), "0.3", "the settings are kept");
});

// A demand table uploaded with a network draws its default OD pairs, and
// the report says so with each pair's trips (issue 46).
await test("add a network: a TNTP folder with its trips draws the OD pairs by demand", async () => {
  await visit("add network", `${base}/networks/add`);
  const head = "<NUMBER OF ZONES> 3\n<NUMBER OF NODES> 3\n<FIRST THRU NODE> 1\n<NUMBER OF LINKS> 4\n<END OF METADATA>\n\n~\tinit_node\tterm_node\tcapacity\tlength\tfree_flow_time\tb\tpower\tspeed\ttoll\tlink_type\t;\n";
  const links = [[1, 2], [2, 3], [3, 1], [2, 1]].map(([a, b]) => `\t${a}\t${b}\t1\t1\t5\t0.15\t4\t0\t0\t1\t;\n`).join("");
  const trips = "<NUMBER OF ZONES> 3\n<TOTAL OD FLOW> 60\n<END OF METADATA>\n\nOrigin \t1\n    1 :      0.0;     2 :    40.0;     3 :    10.0;\n\nOrigin \t3\n    1 :   10.0;\n";
  await page.setInputFiles('[data-testid="import-files"]', [{ name: "tri_net.tntp", mimeType: "text/plain", buffer: Buffer.from(head + links) },
    { name: "tri_trips.tntp", mimeType: "text/plain", buffer: Buffer.from(trips) }]);
  await page.click('[data-testid="import-check"]');
  await ready();
  const notes = await page.locator('[data-testid="import-notes"]').textContent();
  assert.match(notes, /demand: 3 pairs with trips between distinct nodes, 60 trips in all, from tri_trips\.tntp/);
  assert.match(notes, /OD pairs: .*1-2 \(40 trips\).*drawn in proportion to the demand's trips/);
  await shot("import-demand");
});

// Any city (issue 29): a small OpenStreetMap town uploaded through the
// page, then its GMNS export (node.csv, link.csv) uploaded as a second
// network. The pair reads back as the same network (same fingerprint, so
// the same sample pools): every method drives the same route with the same
// arrival on both.
const townOSM = `<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
 <node id="1" lat="0" lon="0"/><node id="2" lat="0" lon="0.004"/><node id="3" lat="0" lon="0.008"/>
 <node id="4" lat="0.004" lon="0"/><node id="5" lat="0.004" lon="0.004"/><node id="6" lat="0.004" lon="0.008"/>
 <node id="7" lat="0.007" lon="0.004"/>
 <way id="11"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/></way>
 <way id="12"><nd ref="4"/><nd ref="5"/><nd ref="6"/><tag k="highway" v="residential"/></way>
 <way id="13"><nd ref="1"/><nd ref="4"/><tag k="highway" v="residential"/></way>
 <way id="14"><nd ref="2"/><nd ref="5"/><tag k="highway" v="primary"/><tag k="maxspeed" v="50"/></way>
 <way id="15"><nd ref="3"/><nd ref="6"/><tag k="highway" v="residential"/></way>
 <way id="16"><nd ref="4"/><nd ref="7"/><nd ref="6"/><tag k="highway" v="secondary"/><tag k="maxspeed" v="70"/></way>
 <way id="17"><nd ref="5"/><nd ref="3"/><tag k="highway" v="tertiary"/><tag k="oneway" v="yes"/></way>
 <way id="18"><nd ref="1"/><nd ref="5"/><tag k="highway" v="residential"/></way>
 <way id="19"><nd ref="2"/><nd ref="6"/><tag k="highway" v="footway"/></way>
</osm>`;

await test("any city: upload an OpenStreetMap town and its GMNS pair, the same routes on both", async () => {
  const add = async (files, name, ods, pick, coords) => {
    await visit("add network", `${base}/networks/add`);
    await page.setInputFiles('[data-testid="import-files"]', files);
    await page.fill('[data-testid="import-ods"]', ods);
    if (coords) await page.selectOption('select[name="coords"]', coords);
    await page.click('[data-testid="import-check"]');
    await ready();
    assert.equal(await page.locator('[data-testid="import-problems"]').count(), 0, await page.locator("main").textContent());
    const notes = (await page.locator('[data-testid="import-notes"] li').allTextContents()).join("\n");
    if (pick) {
      // an OD pair picked on the preview map before saving (the keyboard
      // path of a click: type the node's id, Enter; origin, then destination)
      await page.locator('[data-testid="import-map"]').focus();
      for (const id of pick) {
        await page.keyboard.type(id);
        await page.keyboard.press("Enter");
        await page.waitForTimeout(1200); // typed ids end after a pause
      }
      assert.equal(await page.inputValue('[data-testid="save-ods"]'), "1-6, 6-1");
    }
    await page.fill('[data-testid="import-name"]', name);
    await page.click('[data-testid="import-save"]');
    await ready();
    assert.match(page.url(), new RegExp(`/networks/${name}$`));
    return notes;
  };
  const osmNotes = await add([{ name: "town.osm", mimeType: "application/xml", buffer: Buffer.from(townOSM) }], "town-osm", "1-6", ["6", "1"]);
  assert.match(osmNotes, /link shapes kept for drawing: 2 of/, osmNotes); // 7, the bend of the bypass, each way
  assert.match(osmNotes, /highway classes left out .*footway 1/, osmNotes);
  const osm = await (await page.request.get(`${base}/api/networks/town-osm`)).json();
  assert.equal(osm.nodes.length, 6);
  assert.deepEqual(osm.ods.map((o) => o.name), ["1-6", "6-1"], "the pair picked on the map was saved");
  const bent = osm.links.filter((l) => l.shape && l.shape.length === 1);
  assert.equal(bent.length, 2, "the bypass, both ways, drawn through its bend");
  await shot("network-town-osm");

  const file = async (f) => ({ name: f, mimeType: "text/csv", buffer: await (await page.request.get(`${base}/networks/town-osm/export?format=gmns&file=${f}`)).body() });
  // The town lies at (0°, 0°), where the automatic choice reads planar (it
  // is sea): the GMNS pair is imported as longitude/latitude, as a user
  // whose data sits there would choose.
  const gmnsNotes = await add([await file("node.csv"), await file("link.csv")], "town-gmns", "1-6, 6-1", null, "lonlat");
  assert.match(gmnsNotes, /GMNS: nodes from node.csv, links from link.csv/, gmnsNotes);
  const gmns = await (await page.request.get(`${base}/api/networks/town-gmns`)).json();
  assert.deepEqual(gmns.links, osm.links, "the GMNS pair is the same network");
  assert.deepEqual(gmns.ods, osm.ods);

  const drive = async (net) => {
    await page.goto(`${base}/compare?net=${net}&o=1&d=6&f=1.00&r=3&m=let,dot,cgr`);
    await ready();
    await done();
    const out = {};
    for (const m of ["let", "dot", "cgr"]) {
      const tr = page.locator(`[data-testid="result-${m}"]`);
      const steps = await page.locator("#steps li").allTextContents();
      out[m] = { outcome: await tr.getAttribute("data-outcome"), time: await tr.getAttribute("data-time"),
        rate: await tr.locator(".rate").textContent(), route: steps.filter((s) => s.startsWith(`${m}:`)).map((s) => s.split(" took")[0]) };
      assert.ok(out[m].route.length > 0, `${net} ${m} drove no link`);
    }
    return out;
  };
  const a = await drive("town-osm"), b = await drive("town-gmns");
  assert.deepEqual(b, a);
  console.log(`     town: let ${a.let.route.length} links, P(on time) let ${a.let.rate}, dot ${a.dot.rate}, cgr ${a.cgr.rate}`);
});

// A tile server named with --tiles (issue 29): a lon/lat network is drawn
// in Web Mercator on its tiles, at its real place. A second server with a
// tile server of our own (every tile one plain colour) draws the town; the
// tiles under every node are fetched, and node 1 (at 0° N, 0° E, a corner
// of four tiles at every zoom) sits on the corner of its tile.
await test("map tiles: a lon/lat network on the user's tile server", async () => {
  const { createServer } = await import("node:http");
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
  const asked = [];
  const tileServer = createServer((req, res) => {
    asked.push(req.url);
    res.writeHead(200, { "Content-Type": "image/png" });
    res.end(png);
  });
  await new Promise((r) => tileServer.listen(0, "127.0.0.1", r));
  const tileBase = `http://127.0.0.1:${tileServer.address().port}`;
  const dir = mkdtempSync(join(tmpdir(), "ontime-tiles-"));
  writeFileSync(join(dir, "town.osm"), townOSM);
  execFileSync(bin, ["networks", "add", "--state", dir, "--name", "town", join(dir, "town.osm")], { stdio: ["ignore", "ignore", "inherit"] });
  const second = spawn(bin, ["serve", "--addr", "127.0.0.1:0", "--warm=false", "--state", dir, "--tiles", `${tileBase}/{z}/{x}/{y}.png`, "--tiles-attribution", "plain tiles"], { stdio: ["ignore", "pipe", "inherit"] });
  const tp = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  tp.setDefaultTimeout(0);
  tp.setDefaultNavigationTimeout(0);
  try {
    const url2 = await new Promise((resolve, reject) => {
      let buf = "";
      second.stdout.on("data", (d) => {
        buf += d;
        const m = buf.match(/on (http:\/\/[^ ]+\/)/);
        if (m) resolve(m[1]);
      });
      setTimeout(() => reject(new Error("the second server did not start")), 30000);
    });
    const pageErrors = [];
    tp.on("pageerror", (e) => pageErrors.push(String(e)));
    tp.on("console", (m) => { if (m.type() === "error") pageErrors.push(m.text()); });
    await tp.goto(`${url2}networks/town`);
    await tp.waitForSelector("body[data-ready='1']");
    await tp.waitForSelector('[data-tiles="on"] img.leaflet-tile-loaded');
    await tp.waitForTimeout(500);
    assert.deepEqual(pageErrors, [], "the policy let the tiles in");
    assert.match(await tp.locator(".leaflet-control-attribution").textContent(), /plain tiles/);
    const tiles = asked.map((u) => u.match(/^\/(\d+)\/(\d+)\/(\d+)\.png$/)).filter(Boolean).map((m) => m.slice(1).map(Number));
    const z = Math.max(...tiles.map((t) => t[0]));
    const at = (lon, lat) => {
      const n = 2 ** z, r = (lat * Math.PI) / 180;
      return [Math.floor(((lon + 180) / 360) * n), Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)];
    };
    const got = new Set(tiles.filter((t) => t[0] === z).map((t) => `${t[1]}/${t[2]}`));
    for (const [lon, lat] of [[0, 0], [0.008, 0], [0.008, 0.004], [0, 0.004]]) { // nodes 1, 3, 6, 4
      assert.ok(got.has(at(lon, lat).join("/")), `no tile under (${lon}, ${lat}) at zoom ${z}: ${[...got].join(" ")}`);
    }
    const [x, y] = at(0, 0);
    const img = await tp.locator(`img.leaflet-tile[src="${tileBase}/${z}/${x}/${y}.png"]`).boundingBox();
    const label = await tp.locator(".node-label", { hasText: /^1$/ }).boundingBox();
    const dx = label.x + label.width / 2 - img.x, dy = label.y + label.height / 2 - img.y;
    assert.ok(Math.hypot(dx, dy) < 3, `node 1 is ${dx.toFixed(1)}, ${dy.toFixed(1)} px from its tile's corner`);
    await tp.screenshot({ path: shots ? join(shots, "network-town-tiles.png") : join(dir, "shot.png") });
  } finally {
    await tp.close();
    second.kill("SIGINT");
    tileServer.close();
  }
});

// The sketchpad (issue 28): draw a three-node network with the pointer, set
// a road's law and a correlation, run every method, export and save it.
