// Sampled trips you can watch (Seeing Theory's trick, for routes): each
// trip is one day of the engine's common pool, driven on every route shown;
// its arrival time drops as a dot into the route's strip, filled when it is
// on time, hollow when late, and the tally beside it walks towards the exact
// probability. The trips are the engine's (/api/story's trips: the pool's
// first days, paired across routes); the page only counts and draws.
import { fmt, escapeHTML, reducedMotion } from "./util.js";
import { budgetLine, niceStep } from "./plots.js";

// SPEEDS are the pacing choices, trips a second (Infinity: at once).
export const SPEEDS = [
  { label: "2 a second", perSecond: 2 },
  { label: "10 a second", perSecond: 10 },
  { label: "50 a second", perSecond: 50 },
  { label: "250 a second", perSecond: 250 },
  { label: "all at once", perSecond: Infinity },
];

// tally counts the first n trips on time (arrival ≤ budget) and late.
export function tally(times, n, budget) {
  let on = 0;
  for (let i = 0; i < n; i++) if (times[i] <= budget) on++;
  return { on, late: n - on };
}

// CUT_COLUMNS is how many columns wide the block of trips with no arrival
// time is (a trip cut off when its budget ran out: late, time unknown).
export const CUT_COLUMNS = 10;

// stack places the first n trips as dots: a column per time bin over
// [lo, hi], each new dot on top of its column (level 0 at the bottom). A
// trip with no arrival time (NaN) goes to a block of CUT_COLUMNS columns
// after the axis (bins bins…bins+CUT_COLUMNS-1), filled row by row.
export function stack(times, n, lo, hi, bins) {
  const height = new Array(bins).fill(0);
  const dots = [];
  let cut = 0;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(times[i])) {
      dots.push({ bin: bins + (cut % CUT_COLUMNS), level: Math.floor(cut / CUT_COLUMNS), time: times[i] });
      cut++;
      continue;
    }
    const b = Math.max(0, Math.min(bins - 1, Math.floor(((times[i] - lo) / (hi - lo || 1)) * bins)));
    dots.push({ bin: b, level: height[b]++, time: times[i] });
  }
  return { dots, top: Math.max(1, Math.ceil(cut / CUT_COLUMNS), ...height) };
}

// label is the short name a strip is marked with: the route's letter, or
// the method's code (routes given a short name).
const label = (r) => r.short ?? r.name.slice(0, 1);

// stripsSVG draws one strip of dots per route over a shared time axis,
// with the budget line across them all.
export function stripsSVG(routes, n, budget, [lo, hi]) {
  const bins = 70, strip = routes.length > 4 ? 34 : 58;
  // Room for the labels on the left and, when some trip never arrived,
  // for its block on the right (known from every trip, not only the
  // driven ones, so the axis does not move as trips are driven).
  const cuts = routes.some((r) => r.trips.some((t) => !Number.isFinite(t)));
  const W = 420, pad = { l: Math.max(36, 10 + 6.2 * Math.max(...routes.map((r) => label(r).length))), r: cuts ? 62 : 10, t: 6, b: 28 };
  const H = pad.t + strip * routes.length + pad.b;
  const x = (t) => pad.l + ((t - lo) / (hi - lo || 1)) * (W - pad.l - pad.r);
  const colW = (W - pad.l - pad.r) / bins;
  const stacks = routes.map((r) => stack(r.trips, n, lo, hi, bins));
  // One spacing for every strip (so the strips compare), the dots never
  // smaller than a visible 1.5 px: a tall column becomes a solid bar.
  const size = Math.min(colW, (strip - 8) / Math.max(...stacks.map((s) => s.top)));
  const rad = Math.max(1.5, size / 2 - 0.3);
  const body = routes.map((r, i) => {
    const { dots } = stacks[i];
    const base = pad.t + strip * (i + 1) - 4;
    const circles = dots.map((d) => {
      const cx = d.bin < bins ? pad.l + (d.bin + 0.5) * colW : W - pad.r + 16 + (d.bin - bins + 0.5) * colW;
      const cy = base - (d.level + 0.5) * size;
      const on = d.time <= budget;
      return `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="${rad.toFixed(2)}" fill="${on ? r.color : "#fff"}" stroke="${r.color}" stroke-width="${on ? 0 : 0.8}"/>`;
    }).join("");
    return `<text x="4" y="${base - strip / 2 + 8}" font-weight="bold">${escapeHTML(label(r))}</text>` +
      `<line x1="${pad.l}" x2="${W - pad.r}" y1="${base}" y2="${base}" stroke="#bbb"/>${circles}`;
  }).join("");
  const ticks = [];
  const step = niceStep((hi - lo) / 5);
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) {
    ticks.push(`<text x="${x(t).toFixed(1)}" y="${H - pad.b + 14}" text-anchor="middle">${fmt(t, step < 1 ? 1 : 0)}</text>`);
  }
  if (cuts) ticks.push(`<text x="${W - pad.r + 16 + (CUT_COLUMNS * colW) / 2}" y="${H - pad.b + 14}" text-anchor="middle">cut off</text>`);
  return `<svg viewBox="0 0 ${W} ${H}" role="img" data-testid="trips-svg" aria-label="${n} sampled trips per route by arrival time, filled when on time, hollow when late${cuts ? "; trips cut off when their budget ran out stand apart on the right" : ""}"` +
    ` data-lo="${lo}" data-hi="${hi}" data-x0="${pad.l}" data-x1="${W - pad.r}">${body}${ticks.join("")}` +
    budgetLine(x(budget), pad.t, H - pad.b, "trips-budget-line") +
    `<text x="${(W + pad.l) / 2}" y="${H - 2}" text-anchor="middle">arrival time of each trip (min)</text></svg>`;
}

// tripsPanel fills el with the controls, the strips and the tally.
// routes: [{ name, color, trips, p }] (p: the exact probability at the
// budget); domain: the time axis; onTrip(k, seconds) hears each trip
// driven and the seconds until the next (the map replays slow ones). It
// answers show (the routes and budget now shown: the trips already driven
// are counted again against the budget; a new pair starts over) and figure
// (the strips' element, for dragging).
export function tripsPanel(el, { routes, budget, domain, onTrip, pName = "the exact probability", rowName = "route" }) {
  el.innerHTML = `<div class="trips-controls" role="group" aria-label="Drive sampled trips">` +
    `<button type="button" data-testid="drive-1" data-n="1">Drive 1</button>` +
    `<button type="button" data-testid="drive-100" data-n="100">Drive 100</button>` +
    `<button type="button" data-testid="drive-rest" data-rest="1">Drive the rest</button>` +
    `<button type="button" data-testid="trips-play" aria-pressed="false">Play</button>` +
    `<button type="button" data-testid="trips-step">Step</button>` +
    `<label>Speed <select data-testid="trips-speed">${SPEEDS.map((s, i) => `<option value="${i}">${s.label}</option>`).join("")}</select></label>` +
    `<button type="button" data-testid="trips-reset">Start over</button></div>` +
    `<div class="trips-figure" data-testid="trips-figure"></div>` +
    `<table class="results trips-tally phone-cards" data-testid="trips-tally"><caption>Trips driven so far (share: the part on time; P: ${escapeHTML(pName)})</caption>` +
    `<thead><tr><th scope="col">${rowName}</th><th scope="col">on time</th><th scope="col">late</th><th scope="col">share</th><th scope="col">P</th></tr></thead><tbody></tbody></table>` +
    `<p class="trips-last" data-testid="trips-last" aria-live="polite"></p>`;
  const q = (id) => el.querySelector(`[data-testid="${id}"]`);
  const speed = q("trips-speed");
  speed.value = String(reducedMotion() ? SPEEDS.length - 1 : 2);
  // minRate: trips a second at least, for "Drive the rest" (at the chosen
  // pace the pool's 1,000 days took 18 s): the rest in about two seconds.
  const st = { routes, budget, domain, driven: 0, pending: 0, playing: false, minRate: 0 };
  let frame = 0, last = 0, carry = 0, stepping = false;
  const total = () => Math.min(...st.routes.map((r) => r.trips.length));

  function draw() {
    const n = st.driven;
    q("trips-figure").innerHTML = stripsSVG(st.routes, n, st.budget, st.domain);
    el.querySelector("tbody").innerHTML = st.routes.map((r, i) => {
      const t = tally(r.trips, n, st.budget);
      return `<tr><th scope="row"><span class="swatch" style="background:${r.color}"></span>${escapeHTML(r.name)}</th>` +
        `<td data-testid="trips-on-${i}">${t.on}</td><td data-testid="trips-late-${i}">${t.late}</td>` +
        `<td class="key" data-testid="trips-share-${i}">${n ? fmt(t.on / n, 3) : "–"}</td><td class="key" data-testid="trips-p-${i}">${fmt(r.p, 3)}</td></tr>`;
    }).join("");
    const play = q("trips-play");
    play.textContent = st.playing ? "Pause" : "Play";
    play.setAttribute("aria-pressed", String(st.playing));
    el.dataset.driven = String(n);
    const rest = total() - n;
    q("drive-rest").textContent = `Drive the rest (${rest.toLocaleString("en")})`;
    q("drive-rest").disabled = rest === 0;
  }

  function say() {
    const k = st.driven - 1;
    if (k < 0) { q("trips-last").textContent = "No trip driven yet."; return; }
    q("trips-last").textContent = `Day ${(k + 1).toLocaleString("en")} of the pool's ${total().toLocaleString("en")}: ` + st.routes.map((r) =>
      Number.isFinite(r.trips[k]) ? `${label(r)} ${fmt(r.trips[k], 2)} min, ${r.trips[k] <= st.budget ? "on time" : "late"}` : `${label(r)} late (cut off at the budget)`).join("; ") + ".";
  }

  function driveOne() {
    if (st.driven >= total()) return false;
    st.driven++;
    if (onTrip) onTrip(st.driven - 1, stepping ? 1.5 : 0.9 / SPEEDS[Number(speed.value)].perSecond);
    return true;
  }

  function tick(now) {
    frame = 0;
    if (!st.playing) return;
    const rate = Math.max(SPEEDS[Number(speed.value)].perSecond, st.minRate);
    let n = rate === Infinity ? st.pending : Math.floor(carry + ((now - last) / 1000) * rate);
    carry = rate === Infinity ? 0 : carry + ((now - last) / 1000) * rate - n;
    last = now;
    n = Math.min(n, st.pending);
    for (let i = 0; i < n; i++) if (!driveOne()) { st.pending = 0; break; } else st.pending--;
    if (st.pending <= 0 || st.driven >= total()) { st.playing = false; st.pending = 0; st.minRate = 0; }
    if (n > 0 || !st.playing) { draw(); if (!st.playing || rate <= 2) say(); }
    if (st.playing) frame = requestAnimationFrame(tick);
  }

  function start() {
    if (st.pending <= 0) return;
    st.playing = true;
    last = performance.now();
    carry = 1; // the first trip leaves at once
    draw();
    if (!frame) frame = requestAnimationFrame(tick);
  }
  function stop() {
    st.playing = false;
    st.minRate = 0;
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
    draw();
    say();
  }

  el.querySelectorAll("[data-n]").forEach((b) => b.addEventListener("click", () => {
    st.pending = Math.min(st.pending + Number(b.dataset.n), total() - st.driven);
    start();
  }));
  q("drive-rest").addEventListener("click", () => {
    st.pending = total() - st.driven;
    st.minRate = st.pending / 2;
    start();
  });
  q("trips-play").addEventListener("click", () => {
    if (st.playing) { stop(); return; }
    if (st.pending <= 0) st.pending = total() - st.driven; // play on to the pool's end
    start();
  });
  q("trips-step").addEventListener("click", () => {
    st.playing = false;
    if (st.pending > 0) st.pending--;
    stepping = true;
    driveOne();
    stepping = false;
    stop();
  });
  q("trips-reset").addEventListener("click", () => { st.driven = 0; st.pending = 0; stop(); });
  speed.addEventListener("change", () => { carry = 0; last = performance.now(); });
  draw();
  say();

  return {
    show(rs, b) {
      const same = rs.length === st.routes.length && rs.every((r, i) => r.trips === st.routes[i].trips);
      st.routes = rs;
      st.budget = b;
      if (!same) { st.driven = 0; st.pending = 0; st.playing = false; }
      draw();
      if (!st.playing) say();
    },
    figure: () => q("trips-figure"),
  };
}
