// The browser tests' harness: playwright-core drives Debian's chromium
// against the real server (bin/ontime serve) on a state directory of its
// own; every page visited is checked with axe-core; test() runs one test
// and counts failures. With SCREENSHOTS=DIR, shot() saves a screenshot of
// every page there (make screenshots). The tests are in e2e/tests, a file
// per page; e2e/run.mjs runs them:
//
//   node e2e/run.mjs [path/to/ontime]
import { chromium } from "playwright-core";
import { spawn, execFileSync } from "node:child_process";
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

const net = haveSFN ? "sfn" : "ringtown";


export { axeCheck, axeViolations, base, bin, browser, checkDownloads, checkFile, cityFile, data, done, errors, external, failed, gridFiles, gridImport, haveCity, haveSFN, large, net, page, parseCSV, phoneTooltips, ready, server, shot, shots, state, test, visit, withoutData, writeGrid };
