// Browser end-to-end tests: playwright-core drives Debian's chromium against
// the real server (bin/ontime serve). With SCREENSHOTS=DIR it also saves a
// screenshot of every page there (make screenshots).
//
//   node e2e/run.mjs [path/to/ontime]
import { chromium } from "playwright-core";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";

const bin = process.argv[2] || "bin/ontime";
const data = process.env.ONTIME_DATA || "";
const haveSFN = data && existsSync(join(data, "tntp", "SiouxFalls_net.tntp"));
// E2E_WITHOUT_DATA=1 runs the newcomer's path on purpose (.ci/run does, once
// without the data directory); otherwise CI must have the data.
const withoutData = process.env.E2E_WITHOUT_DATA === "1";
if (withoutData && data) {
  console.error("e2e: E2E_WITHOUT_DATA=1 but ONTIME_DATA is set; unset it");
  process.exit(1);
}
if (!haveSFN) {
  const why = "the Sioux Falls benchmark files (set ONTIME_DATA)";
  if (process.env.CI && !withoutData) {
    console.error(`e2e: needs ${why}`);
    process.exit(1);
  }
  console.log(`e2e: ${why} missing, testing the built-in example only`);
}
// A city (Chicago Regional, 39,018 links), imported into the server's state
// directory before it starts, for the map and comparison at that size.
const cityFile = data && join(data, "tntp", "ChicagoRegional_net.tntp");
const haveCity = cityFile && existsSync(cityFile);
if (!haveCity && process.env.CI && !withoutData) {
  console.error("e2e: needs ChicagoRegional_net.tntp in the data directory");
  process.exit(1);
}
// The large cases (a city's comparison: 43 s of a ten-minute make test)
// run where ONTIME_LARGE_TESTS=1: CI and make verify set it.
const large = process.env.ONTIME_LARGE_TESTS === "1";
const shots = process.env.SCREENSHOTS || "";
if (shots) mkdirSync(shots, { recursive: true });

// writeGrid writes a w × w street grid as a link CSV and a TNTP node file
// in dir (means 0.5 to 2 min, σ = 0.3 μ) and returns their paths.
function writeGrid(dir, w) {
  const links = ["From,To,Cost,Var"], nodes = ["Node\tX\tY\t;"];
  const id = (x, y) => y * w + x + 1;
  const mean = (a, b) => 0.5 + ((a * 7 + b * 13) % 16) / 10;
  const both = (a, b, c) => links.push(`${a},${b},${c},${(0.09 * c * c).toFixed(4)}`, `${b},${a},${c},${(0.09 * c * c).toFixed(4)}`);
  for (let y = 0; y < w; y++) {
    for (let x = 0; x < w; x++) {
      nodes.push(`${id(x, y)}\t${x * 100}\t${y * 100}\t;`);
      if (x + 1 < w) both(id(x, y), id(x + 1, y), mean(x, y));
      if (y + 1 < w) both(id(x, y), id(x, y + 1), mean(y, x + 3));
    }
  }
  const files = [join(dir, "grid250k.csv"), join(dir, "grid250k_node.tntp")];
  writeFileSync(files[0], links.join("\n") + "\n");
  writeFileSync(files[1], nodes.join("\n") + "\n");
  return files;
}

// The server on a free port, with a state directory of its own; its first
// line says where.
const state = mkdtempSync(join(tmpdir(), "ontime-e2e-"));
if (haveCity) execFileSync(bin, ["networks", "add", "--state", state, "--name", "chicago", cityFile], { stdio: ["ignore", "ignore", "inherit"] });
// A network at ontime's size limit, generated (no data needed): a 250 × 250
// street grid, links both ways, 249,000 links, imported as a user would.
const gridFiles = writeGrid(mkdtempSync(join(tmpdir(), "ontime-grid-")), 250);
const gridImport = Date.now();
execFileSync(bin, ["networks", "add", "--state", state, "--name", "grid250k", ...gridFiles], { stdio: ["ignore", "ignore", "inherit"] });
console.log(`e2e: imported a generated grid of 249,000 links in ${Date.now() - gridImport} ms`);
const server = spawn(bin, ["serve", "--addr", "127.0.0.1:0", "--step-delay", "30ms", "--state", state], { stdio: ["ignore", "pipe", "inherit"] });
const base = await new Promise((resolve, reject) => {
  let buf = "";
  server.stdout.on("data", (d) => {
    buf += d;
    const m = buf.match(/on (http:\/\/[^ ]+\/)/);
    if (m) resolve(m[1].replace(/\/$/, ""));
  });
  server.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  setTimeout(() => reject(new Error("server did not start in 30 s")), 30000);
});

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
// Waits are for events, never for a time: a loaded machine makes a test
// slower, not red (a training job at nice 10 behind two busy processes
// took minutes). One guard stops a run that hangs: E2E_LIMIT_MINUTES
// (default 60) for the whole run, as go test's -timeout does, naming the
// test it was in.
page.setDefaultTimeout(0);
page.setDefaultNavigationTimeout(0);
let current = "start";
const limit = Number(process.env.E2E_LIMIT_MINUTES || 60);
setTimeout(() => {
  console.log(`FAIL ${current}: the browser tests ran past ${limit} min (E2E_LIMIT_MINUTES), stopped`);
  server.kill("SIGKILL");
  process.exit(1);
}, limit * 60000).unref();
const external = [];
page.on("request", (r) => {
  if (!r.url().startsWith(base) && !r.url().startsWith("data:") && !r.url().startsWith(`blob:${base}`)) external.push(r.url());
});
const errors = [];
// Every page visited is checked with axe-core (npm) in the page itself:
// serious or critical violations are collected and fail the last test.
const axeSource = readFileSync(new URL("../node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
const axeViolations = [];
async function axeCheck(name) {
  await page.evaluate(axeSource); // evaluate, not a script tag: the pages' CSP allows no inline script
  const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id} at ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`));
  for (const f of found) axeViolations.push(`${name} (${page.url().replace(base, "")}): ${f}`);
}
async function visit(name, url) {
  await page.goto(url);
  await ready();
  await axeCheck(name);
}
page.on("pageerror", (e) => errors.push(String(e)));

let failed = 0;
async function test(name, fn) {
  // E2E_ONLY=text runs the tests whose names hold it (while working on one)
  if (process.env.E2E_ONLY && !name.includes(process.env.E2E_ONLY)) return;
  const t0 = Date.now();
  current = name;
  try {
    await fn();
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.stack || e}`);
  }
}
async function shot(name) {
  if (shots) await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}
const ready = () => page.waitForSelector("body[data-ready='1']");
// done waits for the page's run to end and fails, with the page's status
// line, when it ended other than done (an error, a stop): waiting for
// done alone hung the suite on an error until E2E_LIMIT_MINUTES.
async function done() {
  await page.waitForSelector("body[data-done]");
  const how = await page.getAttribute("body", "data-done");
  if (how === "1") return;
  // read at once: a locator would wait (without a timeout) for a status line a page may not have
  const said = await page.evaluate(() => document.querySelector("#status")?.textContent);
  throw new Error(`the page's run ended "${how}": ${said || "(no status line)"}`);
}

// A figure's downloads (buttons id-svg, id-png, id-csv): each file is saved
// and must parse as what it says it is.
async function checkDownloads(id, kinds = ["svg", "png", "csv"]) {
  for (const kind of kinds) {
    const [dl] = await Promise.all([page.waitForEvent("download"), page.locator(`[data-testid="${id}-${kind}"]`).click()]);
    checkFile(`${id}.${kind}`, kind, readFileSync(await dl.path()));
  }
}
function checkFile(name, kind, buf) {
  const text = buf.toString("utf8");
  if (kind === "svg") {
    assert.match(text, /^(<\?xml[^>]*>\s*)?(<!--[^]*?-->\s*)*<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/, `${name}: an SVG document`);
    assert.match(text, /<\/svg>\s*$/, `${name}: a whole SVG`);
  } else if (kind === "png") {
    assert.deepEqual([...buf.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], `${name}: PNG signature`);
    assert.ok(buf.readUInt32BE(16) >= 300 && buf.readUInt32BE(20) >= 150, `${name}: ${buf.readUInt32BE(16)}×${buf.readUInt32BE(20)} px`);
  } else {
    const rows = parseCSV(text);
    assert.ok(rows.length >= 2 && rows[0].length >= 2, `${name}: a header and data`);
    for (const r of rows) assert.equal(r.length, rows[0].length, `${name}: every row has ${rows[0].length} fields: ${r}`);
    assert.ok(rows.slice(1).some((r) => r.some((c) => c !== "" && Number.isFinite(Number(c)))), `${name}: numbers`);
  }
}
// parseCSV reads RFC 4180 CSV (quoted fields may hold commas and quotes).
function parseCSV(text) {
  const rows = [];
  let row = [], field = "", quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") { row.push(field); field = ""; }
    else if (c === "\n") { row.push(field); rows.push(row); row = []; field = ""; }
    else if (c !== "\r") field += c;
  }
  if (field !== "" || row.length) { row.push(field); rows.push(row); }
  return rows;
}

// Without the data, ontime's own generated town (ringtown) is the map.
const net = haveSFN ? "sfn" : "ringtown";

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
await test("lessons: predict, then reveal; each figure follows its control; arrow keys step between lessons", async () => {
  await visit("lessons", `${base}/teach`);
  assert.equal(await page.locator('[data-testid^="lesson-"]').count(), 6);
  for (const slug of ["mean", "budget", "adapt", "data", "learning"]) {
    await visit(`lesson ${slug}`, `${base}/teach/${slug}`);
    const figure = page.locator('[data-testid="lesson-figure"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="lesson-figure"]').innerHTML.length > 0);
    assert.equal(await page.locator('[data-testid="predict-result"]').isVisible(), false, `${slug}: the answer waits for a prediction`);
    assert.equal(await page.locator('[data-testid="exercise-answer"]').count() >= 2, true, `${slug}: two exercises`);
    const before = await figure.innerHTML();
    await page.locator('[data-testid="lesson-control"]').focus();
    await page.keyboard.press("Home");
    await page.waitForFunction((b) => document.querySelector('[data-testid="lesson-figure"]').innerHTML !== b, before);
    if (slug === "mean") assert.equal(await page.locator('[data-testid="lesson-p-0"]').isVisible(), false, "P hidden before the answer");
    if (await page.locator('[data-testid="predict-choice-0"]').count()) await page.locator('[data-testid="predict-choice-0"]').check();
    await page.locator('[data-testid="predict-lock"]').click();
    assert.ok((await page.locator('[data-testid="predict-verdict"]').textContent()).length > 20, `${slug}: a verdict on the prediction`);
    assert.ok((await page.locator('[data-testid="lesson-answer"]').textContent()).length > 40, `${slug}: an answer`);
    assert.equal(await page.locator('[data-testid="predict-lock"]').isDisabled(), true, `${slug}: the answer is locked`);
    if (slug === "mean") assert.equal(await page.locator('[data-testid="lesson-p-0"]').isVisible(), true, "P shown after the answer");
    if (slug === "mean" || slug === "budget") {
      // The sampled trips come with the answer: 100 driven land as 100
      // per route, and the slider recounts them against its budget.
      const trips = page.locator('[data-testid="lesson-trips"]');
      assert.equal(await trips.isVisible(), true, `${slug}: trips shown with the answer`);
      await trips.locator('[data-testid="trips-speed"]').selectOption({ label: "all at once" });
      await trips.locator('[data-testid="drive-100"]').click();
      await page.waitForFunction(() => document.querySelector('[data-testid="lesson-trips"] [data-driven]').dataset.driven === "100");
      const count = async () => Promise.all([0, 1].map(async (i) => Number(await trips.locator(`[data-testid="trips-on-${i}"]`).textContent())));
      const low = await count();
      for (let i = 0; i < 2; i++) assert.equal(low[i] + Number(await trips.locator(`[data-testid="trips-late-${i}"]`).textContent()), 100);
      await page.locator('[data-testid="lesson-control"]').focus();
      await page.keyboard.press("End");
      const high = await count();
      assert.ok(high.every((v, i) => v >= low[i]) && high.some((v, i) => v > low[i]), `${slug}: a larger budget counts more trips on time: ${low} → ${high}`);
    }
    if (slug === "learning") assert.equal(await page.locator('[data-testid="lesson-ylabel"]').textContent(), "change in validation P(on time)");
    if (slug === "data") {
      // Skew shows: the route's histogram (with the answer) marks a mean above its median.
      assert.equal(await page.locator('[data-testid="lesson-skew"]').isVisible(), true, "data: the route's histogram with the answer");
      assert.match(await page.locator('[data-testid="lesson-answer"]').textContent(), /its mean [\d.]+ min is above its median/);
    }
    const text = await page.locator("main").textContent();
    assert.ok(!/ontime (train|bench|serve)|run `/.test(text), `${slug}: no command line on a teaching page`);
    await checkDownloads(`lesson-${slug}`);
    await shot(`lesson-${slug}`);
  }
  // The adapt lesson opens at the budget of its grid where adapting gains most.
  await visit("lesson adapt", `${base}/teach/adapt`);
  const gaps = [];
  for (const f of [0.9, 0.95, 1, 1.05, 1.1, 1.15, 1.2]) {
    const a = await (await page.request.get(`${base}/api/lessons/adapt?f=${f}`)).json();
    const best = (role) => Math.max(...Object.keys(a.rates).filter((m) => a.roles[m] === role).map((m) => a.rates[m]));
    gaps.push([f, best("adaptive") - best("fixed")]);
  }
  const open = gaps.reduce((b, g) => (g[1] > b[1] ? g : b));
  assert.equal(await page.locator('[data-testid="lesson-out"]').textContent(), `${open[0].toFixed(2)} ×`, `opens where adapting gains most: ${JSON.stringify(gaps)}`);
  assert.ok(open[1] > 0.01, `the point is visible where it opens: ${JSON.stringify(gaps)}`);
  // Presentation mode: every lesson fits a 1280×800 and a 1920×1080 screen.
  for (const [w, h] of [[1280, 800], [1920, 1080]]) {
    await page.setViewportSize({ width: w, height: h });
    for (const slug of ["mean", "budget", "adapt", "history", "data", "learning"]) {
      await page.goto(`${base}/teach/${slug}?present=1`);
      await ready();
      const tall = await page.evaluate(() => document.documentElement.scrollHeight);
      assert.ok(tall <= h + 1, `presentation of ${slug} is ${tall} px tall on a ${w}×${h} screen`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await visit("lesson mean", `${base}/teach/mean?present=1`);
  await page.locator("h1").click();
  await page.keyboard.press("ArrowRight");
  await page.waitForURL(/\/teach\/budget\?present=1$/);
  assert.equal(await page.evaluate(() => document.body.classList.contains("present")), true);
  await ready();
  await shot("lesson-present");
  // The handout: printed, a lesson has no navigation, its answers open.
  await visit("lesson mean (print)", `${base}/teach/mean`);
  await page.emulateMedia({ media: "print" });
  await page.waitForFunction(() => !document.querySelector('[data-testid="predict-result"]').hidden);
  assert.equal(await page.locator("header.top").isVisible(), false, "no navigation on the handout");
  assert.equal(await page.locator('[data-testid="lesson-p-0"]').isVisible(), true, "the numbers on the handout");
  for (const a of await page.locator('[data-testid="exercise-answer"] p').all()) assert.equal(await a.isVisible(), true, "the exercises' answers open on the handout");
  const pdf = await page.pdf({ format: "A4", printBackground: true });
  assert.ok(pdf.length > 20000 && pdf.subarray(0, 5).toString() === "%PDF-", `a PDF handout (${pdf.length} bytes)`);
  if (shots) {
    writeFileSync(join(shots, "lesson-handout.pdf"), pdf);
    await page.screenshot({ path: join(shots, "lesson-handout.png"), fullPage: true });
    // The handout as paper shows it: each PDF page an image to look at
    // (poppler's pdftoppm, installed by make setup).
    const r = spawnSync("pdftoppm", ["-png", "-r", "50", join(shots, "lesson-handout.pdf"), join(shots, "lesson-handout-page")]);
    if (r.status !== 0) console.log(`     (the handout's pages were not turned into images: ${r.error || r.stderr})`);
  }
  await page.emulateMedia({ media: "screen" });
});

// Issue 44: locking an answer reveals the verdict where the student was
// looking: nothing is inserted above the question (the trips once went
// above the figure and pushed the verdict 500–600 px down), on a laptop and
// a projector's screen, in both lessons that drive trips.
await test("lessons: the verdict appears where the student was looking", async () => {
  try {
    for (const [w, h] of [[1280, 800], [1920, 1080]]) {
      await page.setViewportSize({ width: w, height: h });
      for (const slug of ["mean", "budget", "adapt"]) { // (lesson 4 is the teaching view: its own test)
        for (const present of ["", "?present=1"]) {
          await page.goto(`${base}/teach/${slug}${present}`);
          await ready();
          await page.waitForFunction(() => document.querySelector('[data-testid="lesson-figure"]').innerHTML.length > 0);
          if (await page.locator('[data-testid="predict-choice-0"]').count()) await page.locator('[data-testid="predict-choice-0"]').check();
          const lock = page.locator('[data-testid="predict-lock"]');
          await lock.scrollIntoViewIfNeeded();
          const before = await lock.evaluate((el) => el.getBoundingClientRect().top);
          await lock.click();
          // lessons 1 and 2 draw their trips on Lock; 3 has none
          if (slug === "mean" || slug === "budget") await page.locator('[data-testid="lesson-trips"]').waitFor({ state: "attached" });
          else await page.locator('[data-testid="predict-verdict"]').waitFor({ state: "visible" });
          const after = await lock.evaluate((el) => el.getBoundingClientRect().top);
          const verdict = await page.locator('[data-testid="predict-verdict"]').evaluate((el) => { const r = el.getBoundingClientRect(); return [r.top, r.bottom]; });
          const where = `${slug}${present} at ${w}×${h}`;
          // Lesson 3's verdict fell below the fold: the page moves
          // just enough to show it; the first two's stays still.
          if (slug === "mean" || slug === "budget") assert.ok(Math.abs(after - before) < 2, `${where}: the Lock button moved from ${before} to ${after} px`);
          assert.ok(verdict[0] >= 0 && verdict[1] <= h + 1, `${where}: the verdict is at ${verdict[0]}–${verdict[1]} px, off a ${h}-px screen`); // (scrolled to the edge: within a pixel's fraction)
          if (w === 1280 && present) await shot(`lesson-${slug}-present-revealed`);
        }
      }
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

// Issue 44: lesson 3's bars are readable after the reveal: each rate on
// one line, each bar's cell wide enough to compare, on screen, projector,
// paper and a phone.
await test("lessons: lesson 3's rates read on one line beside bars that can be compared", async () => {
  try {
    for (const [w, h, mode, minBar] of [[1280, 800, "", 150], [1280, 800, "?present=1", 150], [1280, 800, "print", 150], [390, 844, "", 60]]) {
      await page.setViewportSize({ width: w, height: h });
      await page.goto(`${base}/teach/adapt${mode === "print" ? "" : mode}`);
      await ready();
      await page.waitForFunction(() => document.querySelector('[data-testid="lesson-figure"]').innerHTML.length > 0);
      if (mode === "print") await page.emulateMedia({ media: "print" });
      else {
        if (await page.locator('[data-testid="predict-choice-0"]').count()) await page.locator('[data-testid="predict-choice-0"]').check();
        await page.locator('[data-testid="predict-lock"]').click();
      }
      await page.locator('[data-testid="lesson-bars"]').waitFor();
      const cells = await page.evaluate(() => [...document.querySelectorAll('[data-testid^="lesson-rate-"]')].map((td) => {
        const r = document.createRange();
        r.selectNodeContents(td);
        const lines = new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size;
        return { text: td.textContent, lines, bar: td.nextElementSibling.getBoundingClientRect().width };
      }));
      const where = `${w}×${h} ${mode || "screen"}`;
      assert.ok(cells.length >= 3, `${where}: ${cells.length} bars`);
      for (const c of cells) {
        assert.equal(c.lines, 1, `${where}: the rate ${c.text} wraps over ${c.lines} lines`);
        assert.ok(c.bar >= minBar, `${where}: the bar beside ${c.text} has ${Math.round(c.bar)} px`);
      }
      if (mode === "print") await page.emulateMedia({ media: "screen" });
      else await shot(`lesson-adapt-bars-${w}${mode ? "-present" : ""}`);
    }
  } finally {
    await page.emulateMedia({ media: "screen" });
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

// Issue 44 (minors): lesson 4's slide has the others' type; handouts leave
// out what paper cannot use; a locked answer stays the locked setting's;
// lesson 5 hides its axis's span until the lock; lesson 4's score bars
// spread the rates over their own span, with the optimum marked.
await test("lessons: slide type, handouts, locked answers, hidden scales, score bars", async () => {
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    const px = async (sel) => parseFloat(await page.locator(sel).first().evaluate((el) => getComputedStyle(el).fontSize));
    await page.goto(`${base}/teach/mean?present=1`);
    await ready();
    const slide = await px(".lesson .predict-question");
    await page.goto(`${base}/teach/history?present=1`);
    await ready();
    const four = await px(".teach-lesson .predict");
    assert.ok(four >= slide - 0.5, `lesson 4's question is ${four} px against ${slide} px on lesson 1`);
    await page.setViewportSize({ width: 1280, height: 900 });
    // A locked answer: moving the slider leaves the question as locked, and says so.
    await page.goto(`${base}/teach/mean`);
    await ready();
    await page.waitForFunction(() => document.querySelector('[data-testid="lesson-figure"]').innerHTML.length > 0);
    await page.locator('[data-testid="predict-choice-0"]').check();
    await page.locator('[data-testid="predict-lock"]').click();
    const question = await page.textContent('[data-testid="lesson-question-text"]');
    await page.locator('[data-testid="lesson-control"]').focus();
    await page.keyboard.press("End");
    assert.equal(await page.textContent('[data-testid="lesson-question-text"]'), question, "the locked question was rewritten");
    assert.ok(await page.locator('[data-testid="predict-moved"]').isVisible(), "no word that the setting moved");
    // Lesson 5: the y axis's ends wait for the lock.
    await page.goto(`${base}/teach/learning`);
    await ready();
    if (await page.locator('[data-testid="lesson-yticks"]').count()) {
      assert.equal(await page.locator('[data-testid="lesson-yticks"]').evaluate((g) => getComputedStyle(g).visibility), "hidden", "lesson 5 shows its scale before the lock");
    }
    // Lesson 4's score: bars on the rates' own span, the optimum marked.
    await page.goto(`${base}/teach/history`);
    await ready();
    await page.click('[data-testid="score-run"]');
    await done();
    const points = await page.locator('[data-testid="rates"] .ci-point').evaluateAll((ps) => ps.map((p) => p.getBoundingClientRect().left));
    const rates = await page.locator('[data-testid="rates"] tr[data-rate]').evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.rate)));
    const width = await page.locator('[data-testid="rates"] .ci-bar').first().evaluate((b) => b.getBoundingClientRect().width);
    for (let i = 0; i < rates.length; i++) {
      for (let j = 0; j < i; j++) {
        if (Math.abs(rates[i] - rates[j]) >= 0.02) assert.ok(Math.abs(points[i] - points[j]) >= 0.1 * width, `rates ${rates[i]} and ${rates[j]} drawn ${Math.abs(points[i] - points[j])} px apart on a ${width}-px bar`);
      }
    }
    assert.equal(await page.locator('[data-testid="ci-target"]').count(), rates.length, "the optimum is not marked");
    assert.match(await page.textContent('[data-testid="score-axis"]'), /the black line is the optimum/);
    await shot("lesson-history-score");
    // Handouts: no slider, run button or unrun score; no empty trips; no "drag it".
    await page.goto(`${base}/teach/history`);
    await ready();
    await page.emulateMedia({ media: "print" });
    for (const sel of ['[data-testid="observed"]', '[data-testid="score-run"]', '[data-testid="rates"]']) {
      assert.equal(await page.locator(sel).isVisible(), false, `lesson 4's handout prints ${sel}`);
    }
    await page.emulateMedia({ media: "screen" });
    await page.goto(`${base}/teach/mean`);
    await ready();
    await page.waitForFunction(() => document.querySelector('[data-testid="lesson-figure"]').innerHTML.length > 0);
    await page.emulateMedia({ media: "print" });
    await page.waitForFunction(() => !document.querySelector('[data-testid="predict-result"]').hidden);
    assert.equal(await page.locator('[data-testid="lesson-trips"]').isVisible(), false, "lesson 1's handout prints an empty trips chart");
    assert.doesNotMatch(await page.locator(".story-legend").first().innerText(), /drag/, "a handout's legend says drag");
  } finally {
    await page.emulateMedia({ media: "screen" });
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

await test("live reliability: rates stream, plots appear", async () => {
  await visit("live", `${base}/live?net=${net}&n=2000&m=let,dot,cgr`);
  await done();
  for (const id of ["plot-histogram", "plot-cdf", "plot-curve"]) {
    assert.equal(await page.locator(`[data-testid="${id}"] svg`).count(), 1, id);
    await checkDownloads(id);
  }
  const rate = Number(await page.locator('[data-testid="rate-cgr"]').getAttribute("data-rate"));
  assert.ok(rate > 0 && rate < 1, `cgr rate ${rate}`);
  assert.equal(await page.locator('[data-testid="progress"]').evaluate((p) => p.value), 1);
  assert.match(await page.textContent('[data-testid="budget-minutes"]'), /^T = [0-9.]+ min/);
  assert.equal(await page.locator('[data-testid="live-map"] .leaflet-interactive, [data-testid="live-map"] canvas').count() > 0, true, "Live has the map");
  await shot("live");
  // Moving the budget reruns without a click; the charts stay (marked as
  // the previous run's) and Stop keeps them and the table.
  const before = await page.textContent('[data-testid="status"]');
  await page.locator('[data-testid="factor"]').fill("0.90");
  await page.waitForFunction((b) => document.querySelector('[data-testid="status"]').textContent !== b && /0\.90 ×/.test(document.querySelector('[data-testid="status"]').textContent), before);
  assert.equal(await page.locator("#plots.stale figure").count(), 3, "the previous charts stay, marked");
  await page.click('[data-testid="stop"]');
  assert.equal(await page.locator("#plots figure").count(), 3, "Stop keeps the charts");
  assert.ok(await page.locator('[data-testid="rate-cgr"]').count() === 1, "Stop keeps the table");
  // The progress bar counts the curve's replays: it stands below 1 until
  // the run's end, then at 1 (no silent wait after 100%).
  await visit("live", `${base}/live?net=${net}&n=2000&m=let,dot,cgr`);
  const seen = [];
  await page.exposeFunction("__progressSeen", (v, done) => seen.push([v, done]));
  await page.evaluate(() => new MutationObserver(() => window.__progressSeen(document.querySelector("#progress").value, document.body.dataset.done || "")).observe(document.querySelector("#progress"), { attributes: true }));
  await done();
  const early = seen.filter(([v, d]) => v >= 1 && d === "");
  assert.ok(early.length <= 1, `the bar at 100% before the end: ${JSON.stringify(seen.slice(-5))}`);
});

// The result tables fit their half of a 1280-px screen, every method shown.
await test("compare and live tables fit at 1280 px", async () => {
  // (the planners: a learner's first use trains it for minutes, and the
  // table's width is its columns and the longest code, "clairvoyant")
  const all = "let,dot,cdot,cgr,fma,mlr,bestpath,condrule,clairvoyant";
  for (const u of [`/compare?net=${net}&m=${all}`, `/live?net=${net}&n=100&m=${all}`]) {
    await visit(u, base + u);
    await done();
    const [sw, cw] = await page.locator(".split table.results").evaluate((t) => [t.scrollWidth, t.clientWidth]);
    assert.ok(sw <= cw + 1, `${u}: the table is ${sw} px in a ${cw}-px box`);
  }
});

// "How much time must I allow?": the plan box answers for the form's pair
// and methods, each budget inside its interval at a rate reaching the
// target; a row's button moves the budget slider there and the comparison
// reruns at it. Looked at on a desktop and on a phone.
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

await test("train a policy for your own network: the curve grows, then the model is a method", async () => {
  await visit("add network", `${base}/networks/add`);
  await page.setInputFiles('[data-testid="import-files"]', [{ name: "grid.csv", mimeType: "text/csv",
    buffer: Buffer.from("From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n") }]);
  await page.click('[data-testid="import-check"]');
  await ready();
  await page.fill('[data-testid="import-name"]', "grid");
  await page.click('[data-testid="import-save"]');
  await ready();
  await visit("models", `${base}/models?net=grid`);
  const form = page.locator('[data-testid="train-form-grid"]');
  await form.locator("summary").click();
  for (const [id, v] of [["train-teachers", "cgr"], ["train-budgets", "0.98,1.02"], ["train-demos", "100"], ["train-rounds", "2"],
    ["train-round-episodes", "40"], ["train-round-steps", "2"], ["train-imitation-epochs", "1"], ["train-validation-size", "100"]]) {
    await form.locator(`[data-testid="${id}"]`).fill(v);
  }
  await form.locator('[data-testid="train-size"]').selectOption("16,1,1,2");
  await form.locator('[data-testid="train-grid"]').click();
  await ready();
  assert.match(page.url(), /\/jobs\/t[0-9a-f]+$/);
  // The curve grows point by point: the teachers' level, imitation, each round.
  await page.waitForFunction(() => Number(document.body.dataset.points || 0) >= 2);
  await page.waitForSelector("body[data-done]");
  assert.equal(await page.locator("body").getAttribute("data-done"), "done", await page.locator('[data-testid="job-state"]').textContent());
  assert.ok(Number(await page.locator("body").getAttribute("data-points")) >= 4);
  const w = await page.locator('[data-testid="job-curve"]').evaluate((img) => img.complete && img.naturalWidth);
  assert.ok(w > 0, "the curve image did not load");
  await shot("job-train");
  await visit("compare", `${base}/compare?net=grid`);
  const gpght = page.locator('[data-testid="method-gpght"]');
  assert.equal(await gpght.count(), 1);
  assert.equal(await gpght.isDisabled(), false);
});

// Uploaded text is text on every page: node ids and the description carry
// markup that would redirect or inject elements if any page inserted it as
// HTML (the map's tooltips once did).
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

await test("models and about pages", async () => {
  await visit("models", `${base}/models`);
  await shot("models");
  // Issue 44: on a phone the Models page folds every card but the network
  // asked for (it was 22,110 px tall with all of them open).
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/models`);
    await ready();
    const tall = await page.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(tall < 4000, `the Models page is ${tall} px tall on a phone`);
    await page.goto(`${base}/models?net=${net}`);
    await ready();
    assert.equal(await page.locator(`[data-testid="model-more-${net}"]`).evaluate((d) => d.open), true, "the network asked for is folded");
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  await visit("about", `${base}/about`);
  await shot("about");
});

// Speed here is measured and printed, not asserted (targets live in
// benchmarks and the issue note); what is asserted is how the map is built.
// cityMap checks a big network's map: one canvas with every link drawn, no
// element per link, a tooltip under the pointer, an OD pair picked by
// typing node numbers; it prints first paint and frames per second.
async function cityMap(net, links, o, d) {
  const t0 = Date.now();
  await page.goto(`${base}/networks/${net}`);
  await page.waitForSelector("#map[data-links-drawn]");
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const paint = Date.now() - t0;
  await ready();
  assert.equal(await page.locator("#map").getAttribute("data-renderer"), "canvas");
  assert.equal(await page.locator("#map").getAttribute("data-links-drawn"), String(links));
  assert.equal(await page.locator("#map path").count(), 0, "no SVG path per link");
  assert.ok((await page.locator("#map canvas").count()) >= 1);
  const box = await page.locator("#map").boundingBox();
  const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
  // Frames per second while an action runs, counted by
  // requestAnimationFrame, with the longest frame and how busy the page's
  // main thread was (Chromium's own task and script time, over the
  // DevTools protocol). The frame count alone mixes the page with the
  // harness: each pointer move is a round trip from this process, and a
  // frame can pass with no move in it. A main thread mostly idle says the
  // map keeps up; the frames over 20 ms say where it did not (on the grid,
  // at times one at the first hover, and each zoom's redraw).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const metrics = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
  const fps = async (action) => {
    await page.evaluate(() => {
      window.__frames = [];
      window.__counting = true;
      const tick = (t) => { if (window.__counting) { window.__frames.push(t); requestAnimationFrame(tick); } };
      window.__t0 = performance.now();
      requestAnimationFrame(tick);
    });
    const before = await metrics();
    await action();
    const after = await metrics();
    const f = await page.evaluate(() => {
      window.__counting = false;
      const t = window.__frames;
      let longest = 0;
      for (let i = 1; i < t.length; i++) longest = Math.max(longest, t[i] - t[i - 1]);
      const at = t.map((x, i) => (i && x - t[i - 1] > 20 ? i : -1)).filter((i) => i > 0);
      return { rate: (t.length * 1000) / (performance.now() - window.__t0), longest, frames: t.length, at };
    });
    const wall = after.Timestamp - before.Timestamp;
    return { ...f, busy: (after.TaskDuration - before.TaskDuration) / wall, script: after.ScriptDuration - before.ScriptDuration };
  };
  const moves = 60;
  const hover = await fps(async () => {
    for (let i = 0; i < moves; i++) await page.mouse.move(cx - 150 + i * 5, cy + Math.sin(i / 5) * 40);
  });
  const pan = await fps(async () => {
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let i = 0; i < moves; i++) await page.mouse.move(cx + i * 4, cy + i * 2);
    await page.mouse.up();
  });
  const zoom = await fps(async () => {
    for (let i = 0; i < 8; i++) {
      await page.mouse.wheel(0, i < 4 ? -120 : 120);
      await page.waitForTimeout(150);
    }
  });
  await cdp.detach();
  const told = (m, per) => `${m.rate.toFixed(0)} (longest frame ${m.longest.toFixed(0)} ms, ${m.at.length ? `frames ${m.at.join(", ")} of ${m.frames} over 20 ms` : "none over 20 ms"}, main thread busy ${(100 * m.busy).toFixed(0)}%${per ? `, script ${((1000 * m.script) / per).toFixed(2)} ms a move` : ""})`;
  console.log(`     measured (${net}, ${links} links): first paint ${paint} ms; frames/s hover ${told(hover, moves)}, pan ${told(pan, moves)}, zoom ${told(zoom)}`);
  // hovering on a link shows it: find one by walking the pointer
  let shown = false;
  for (let i = 0; i < 200 && !shown; i++) {
    await page.mouse.move(cx - 100 + (i % 20) * 10, cy - 100 + Math.floor(i / 20) * 20);
    await page.waitForTimeout(20);
    shown = (await page.locator(".leaflet-tooltip").count()) > 0 && /link \d+:/.test(await page.locator(".leaflet-tooltip").first().textContent());
  }
  assert.ok(shown, "no link tooltip under the pointer");
  // The text and highlight follow the pointer to another link (along one
  // link only the tooltip moves).
  const first = await page.locator(".leaflet-tooltip").first().textContent();
  let other = "";
  for (let i = 0; i < 200 && !other; i++) {
    await page.mouse.move(cx + 100 - (i % 20) * 10, cy + 100 - Math.floor(i / 20) * 20);
    await page.waitForTimeout(20);
    const t = (await page.locator(".leaflet-tooltip").count()) ? await page.locator(".leaflet-tooltip").first().textContent() : "";
    if (/link \d+:/.test(t) && t !== first) other = t;
  }
  assert.ok(other, `the tooltip stayed on ${first}`);
  // Keyboard: type a node's number to go there, Enter picks (origin, then
  // destination), as on the small maps.
  await page.locator("#map").focus();
  await page.keyboard.type(o);
  await page.keyboard.press("Enter");
  await page.keyboard.type(d);
  await page.keyboard.press("Enter");
  assert.match(await page.locator('[data-testid="compare-link"]').getAttribute("href"), new RegExp(`o=${o}&d=${d}`), "OD picked by keyboard on the city map");
  await shot(`${net}-map`);
  await phoneTooltips(net);
}

// phoneTooltips hovers near each side edge of a network's map on a 390-px
// phone (a city's canvas or a small network's paths): the link's tooltip
// turns aside (web/src/tipside.js), lies inside the map and off its zoom
// buttons. Centred above the pointer, the map's frame cut its
// text off there ("172: 3240 → 3241" without its "link").
async function phoneTooltips(net) {
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/networks/${net}`);
    await ready();
    await page.waitForSelector("#map .leaflet-interactive, #map[data-links-drawn]");
    await page.locator("#map").scrollIntoViewIfNeeded(); // below the network's facts on a phone
    const map = await page.locator("#map").boundingBox();
    // from below the zoom buttons: beside them a tooltip wider than half
    // the map has no side where it shows whole (tipside.js)
    const rows = Math.floor((Math.min(map.height, 844 - map.y) - 120) / 12);
    for (const edge of ["left", "right"]) {
      let tip = null;
      for (let i = 0; i < 6 * rows && !tip; i++) {
        const dx = 12 + (i % 6) * 15; // 12-87 px in: a centred tooltip is about 230 px wide
        const x = edge === "left" ? map.x + dx : map.x + map.width - dx;
        await page.mouse.move(x, map.y + 90 + Math.floor(i / 6) * 12);
        // the map answers a move at the next frame
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        // a closed tooltip fades out over 200 ms still in the page: at opacity 0
        tip = await page.evaluate(() => {
          const el = [...document.querySelectorAll(".leaflet-tooltip")].find((t) => t.style.opacity !== "0" && /^link \S+:/.test(t.textContent));
          if (!el) return null;
          const r = el.getBoundingClientRect();
          const under = [...document.querySelectorAll("#map .leaflet-control")].filter((c) => {
            const k = c.getBoundingClientRect();
            return r.left < k.right && r.right > k.left && r.top < k.bottom && r.bottom > k.top;
          }).map((c) => c.className);
          return { x: r.x, y: r.y, width: r.width, height: r.height, under, side: ["top", "bottom", "right", "left"].find((d) => el.classList.contains(`leaflet-tooltip-${d}`)) };
        });
        if (tip) tip.pointer = x;
      }
      assert.ok(tip, `no link tooltip within 87 px of the map's ${edge} edge on a phone`);
      assert.equal(tip.side, edge === "left" ? "right" : "left", `near the ${edge} edge (pointer at ${tip.pointer} px, the map ${map.x}–${map.x + map.width}) the tooltip goes ${tip.side}`);
      assert.ok(tip.x >= map.x && tip.x + tip.width <= map.x + map.width, `the tooltip spans ${Math.round(tip.x)}–${Math.round(tip.x + tip.width)} px across, the map ${Math.round(map.x)}–${Math.round(map.x + map.width)}`);
      assert.deepEqual(tip.under, [], `the tooltip (${tip.side}, ${JSON.stringify(tip)}) lies under the map's controls`);
      assert.ok(tip.y >= map.y && tip.y + tip.height <= map.y + map.height, `the tooltip spans ${Math.round(tip.y)}–${Math.round(tip.y + tip.height)} px down, the map ${Math.round(map.y)}–${Math.round(map.y + map.height)}`);
      await shot(`${net}-map-phone-${edge}`);
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
}

// cityCompare streams a comparison of methods on one realization of a big
// network and checks each ends on time or late.
async function cityCompare(net, o, d, methods) {
  const t0 = Date.now();
  await visit(`compare ${net}`, `${base}/compare?net=${net}&o=${o}&d=${d}&f=1.05&r=0&m=${methods.join(",")}`);
  await done();
  for (const m of methods) {
    const out = await page.locator(`[data-testid="result-${m}"]`).getAttribute("data-outcome");
    assert.ok(out === "on-time" || out === "late", `${m}: outcome ${out}`);
  }
  console.log(`     measured: comparison of ${methods.join(", ")} on ${net} ${Date.now() - t0} ms`);
  // A city's page counts no P(on time) and says why (its cells were a bare "–").
  assert.match(await page.textContent('[data-testid="sampling-note"]'), /not counted on this page for a network of more than 4,000 links/);
  assert.equal(await page.locator(`[data-testid="rate-${methods[0]}"]`).textContent(), "–");
  await shot(`${net}-compare`);
}

await test("a city's map: one canvas, no element per link, hover and clicks by index", async () => {
  if (!haveCity) return console.log("     (skipped: ChicagoRegional_net.tntp not in the data directory)");
  await cityMap("chicago", 39018, "12753", "4826");
});

await test("a city's comparison: let, dot, cdot and cgr streamed on one realization", async () => {
  if (!haveCity) return console.log("     (skipped: ChicagoRegional_net.tntp not in the data directory)");
  if (!large) return console.log("     (skipped: a large case, run when ONTIME_LARGE_TESTS=1 as CI does)");
  await cityCompare("chicago", "12753", "4826", ["let", "dot", "cdot", "cgr"]);
});

// Issue 47: ontime's size limit, 250,000 links, on a generated grid (no data
// needed): its map as a city's, and one comparison across the grid (a trip
// of about 150 links).
await test("a network of 249,000 links: its map and a comparison", async () => {
  await cityMap("grid250k", 249000, "20063", "32613");
  await cityCompare("grid250k", "20063", "32613", large ? ["let", "dot", "cdot", "cgr"] : ["let", "dot"]);
  // 1,000 days would hold 1.9 GB: Live plays the 539 that fit in 1 GB and says so.
  await page.goto(`${base}/live?net=grid250k&o=20063&d=32613&m=let&n=1000`);
  await page.waitForSelector('body[data-done]');
  const said = await page.textContent('[data-testid="status"]');
  assert.match(said, /539 episodes of the common test pools\. grid250k plays 539 days, not the 1,000 asked: a day holds all 249,000 links' times/, said);
  assert.equal(await page.textContent('[data-testid="rate-let"] .n'), "539");
  // and its note on where else rates are counted leaves Compare out
  assert.match(await page.textContent('[data-testid="sampling-note"]'), /Compare counts none on a network of more than 4,000 links/);
  // A plan on a city takes a while: its status counts the seconds, and its
  // button stops it.
  await page.click('[data-testid="plan"] summary');
  await page.click('[data-testid="plan-run"]');
  await page.waitForFunction(() => /… [1-9][0-9]* s$/.test(document.querySelector('[data-testid="plan-status"]').textContent));
  assert.equal(await page.textContent('[data-testid="plan-run"]'), "Stop finding");
  await page.click('[data-testid="plan-run"]');
  await page.waitForSelector('[data-testid="plan"][data-done="stopped"]');
  assert.equal(await page.textContent('[data-testid="plan-status"]'), "Stopped: no budgets were found.");
  assert.equal(await page.textContent('[data-testid="plan-run"]'), "Find the budgets");
  await shot("grid250k-plan-stopped");
});

// Issue 44 (minor): on Compare and Live, an empty method list says so (it
// said "The stream failed; is the server running?"), the budget in minutes
// shows for any pair, not only the benchmark's, and the results start on a
// laptop's first screen (the method list folds under a summary).
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
await test("on a 390-px phone the probabilities are on the screen after a run", async () => {
  const onScreen = async (selector, what) => {
    const boxes = await page.locator(selector).evaluateAll((els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent, left: r.left, right: r.right, clipped: e.scrollWidth > e.clientWidth + 1 };
    }));
    assert.ok(boxes.length > 0, `${what}: none found`);
    for (const b of boxes) assert.ok(b.left >= 0 && b.right <= 390 && !b.clipped, `${what} "${b.text}" at ${Math.round(b.left)}–${Math.round(b.right)} px${b.clipped ? ", clipped" : ""}`);
  };
  const noSideways = async (where) => {
    const [sw, iw] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    assert.ok(sw <= iw, `${where}: ${sw} px wide on a ${iw}-px phone`);
  };
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/compare?net=${net}`);
    await done();
    await onScreen('[data-testid="results"] [data-testid^="rate-"]', "Compare: P(on time)");
    await noSideways("Compare");
    await page.locator('[data-testid="results"]').scrollIntoViewIfNeeded();
    await shot("phone-compare-results");
    await page.goto(`${base}/live?net=${net}&n=2000&m=let,dot,cgr`);
    await done();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="plots"] svg').length >= 3);
    await onScreen('[data-testid="rates"] td.rate', "Live: rate");
    await onScreen('[data-testid="rates"] td.ci', "Live: interval");
    await noSideways("Live after its charts");
    await page.goto(`${base}/`);
    await ready();
    const trips = page.locator('[data-testid="story-trips"]');
    await trips.locator('[data-testid="trips-speed"]').selectOption({ label: "all at once" });
    await trips.locator('[data-testid="drive-100"]').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="story-trips"][data-driven], [data-testid="story-trips"] [data-driven]')?.dataset.driven === "100");
    await onScreen('[data-testid="story-trips"] [data-testid^="trips-share-"], [data-testid="story-trips"] [data-testid^="trips-p-"]', "home: share and P");
    await onScreen('[data-testid="story-trips"] caption', "home: the tally's caption");
    await noSideways("home after driving");
    await page.locator('[data-testid="story-trips"] [data-testid="trips-tally"]').scrollIntoViewIfNeeded();
    await shot("phone-home-trips");
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

await test("on a 390-px phone a link's tooltip near the map's edge stays inside the map", async () => {
  await phoneTooltips(net);
});

await test("on a 390-px phone no page is wider than the screen, no word in a table breaks, no narrow table slides", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  const brokenAt = [];
  try {
    for (const u of ["/", `/networks/${net}`, `/compare?net=${net}`, `/live?net=${net}`, "/teach", "/teach/mean", "/teach/budget", "/teach/adapt", "/teach/history", "/teach/learning", `/bench?net=${net}`, "/models", "/jobs", "/about", "/networks/add", "/networks/draw"]) {
      await visit(u, base + u);
      // A lesson is judged after its answer is locked: the adapt lesson's
      // bars, shown then, widened the page to 635 px.
      const lock = page.locator('[data-testid="predict-lock"]');
      if (u.startsWith("/teach/") && await lock.count()) {
        const choice = page.locator('[data-testid="lesson-predict"] input[type=radio]');
        if (await choice.count()) await choice.first().check();
        await lock.click();
      }
      const [sw, iw, wide] = await page.evaluate(() => {
        const wide = [];
        for (const e of document.body.querySelectorAll("*")) {
          const r = e.getBoundingClientRect();
          if (r.right > window.innerWidth + 0.5) wide.push(`${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}.${e.className} (right ${Math.round(r.right)})`);
        }
        return [document.documentElement.scrollWidth, window.innerWidth, wide.slice(0, 5)];
      });
      assert.ok(sw <= iw, `${u}: ${sw} px wide on a ${iw}-px screen; widest: ${wide.join(", ")}`);
      // A number or a name in a table reads on one line: the home page's σ
      // column, squeezed on a phone, read "1.4" over "9", and the paired
      // tests' methods "g p g h t" a letter a line.
      const broken = await page.evaluate(() => [...document.querySelectorAll("td, th, dd")].filter((c) => {
        if (!/^\S{1,16}$/.test(c.textContent.trim())) return false;
        // the lines its text lies on (a swatch beside it sits a pixel lower)
        const tops = new Set(), walk = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
        for (let t = walk.nextNode(); t; t = walk.nextNode()) {
          const r = document.createRange();
          r.selectNodeContents(t);
          for (const b of r.getClientRects()) if (b.width > 0) tops.add(Math.round(b.top));
        }
        return tops.size > 1;
      }).map((c) => c.textContent.trim()));
      // and a table of four columns or fewer fits the screen without
      // sliding sideways (the lesson's P(on time) went out of sight)
      const sliding = await page.evaluate(() => [...document.querySelectorAll("table")].filter((t) => {
        const row = t.querySelector("tr");
        return row && row.children.length <= 4 && t.getClientRects().length && t.scrollWidth > t.clientWidth + 1;
      }).map((t) => `${t.dataset.testid || t.className || "a table"} (${t.scrollWidth} px in ${t.clientWidth})`));
      if (sliding.length) brokenAt.push(`${u}: slides sideways: ${sliding.join(", ")}`);
      if (broken.length) brokenAt.push(`${u}: ${broken.slice(0, 8).join(", ")}${broken.length > 8 ? ` and ${broken.length - 8} more` : ""}`);
      await shot(`phone-${u.replace(/^\//, "").replace(/\?.*$/, "").replace(/\//g, "-") || "home"}`);
    }
    assert.deepEqual(brokenAt, [], `words broken across lines, or tables sliding:\n${brokenAt.join("\n")}`);
    await visit("compare", `${base}/compare?net=${net}`);
    await shot("phone-compare");
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

// The lessons' index counts them; a handout prints with the answers for
// the teacher, or without them for the class.
await test("the lessons' index counts them, and a handout prints with or without the answers", async () => {
  await visit("teach", `${base}/teach`);
  const n = await page.locator('[data-testid="lessons"] li').count();
  const words = ["No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"];
  assert.match(await page.locator(".lead").first().textContent(), new RegExp(`^\\s*${words[n]} short lessons`));
  await visit("mean lesson", `${base}/teach/mean`);
  await page.emulateMedia({ media: "print" });
  try {
    for (const [who, shown] of [["students", "none"], ["teacher", "block"]]) {
      await page.evaluate((w) => { document.body.dataset.handout = w; window.dispatchEvent(new Event("beforeprint")); }, who);
      const shows = await page.locator('[data-testid="exercise-answer"]').evaluateAll((ds) => ds.map((d) => getComputedStyle(d).display));
      assert.ok(shows.length > 0 && shows.every((d) => d === shown), `${who}'s handout: answers ${shows.join(", ")}`);
    }
  } finally {
    await page.evaluate(() => { delete document.body.dataset.handout; });
    await page.emulateMedia({ media: "screen" });
  }
});

await test("no external requests, no script errors", async () => {
  assert.deepEqual(external, []);
  assert.deepEqual(errors, []);
});

await test("no serious or critical axe-core violation on any page visited", async () => {
  assert.deepEqual(axeViolations, []);
});

await browser.close();
server.kill("SIGINT");
console.log(failed ? `e2e: ${failed} failed` : "e2e: all passed");
process.exit(failed ? 1 : 0);
