// The lessons: each one figure computed by the engine (/api/story,
// /api/lessons/*), one control, a question whose answer is filled in from
// the same numbers. The arrow keys step between lessons.
import { $, getJSON, fmt, escapeHTML } from "./util.js";
import { distribution, distributionCSV } from "./plots.js";
import { bestOfRole } from "./lessonmath.js";
import { csv, downloads, standaloneSVG } from "./figure.js";

const COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7"];

// stepKeys: ← and → (or PageUp/PageDown) follow the lesson links, unless a
// control has the focus (a slider uses the arrows itself).
export function stepKeys() {
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.target.closest("input, select, textarea, [contenteditable]")) return;
    const rel = { ArrowLeft: "prev", PageUp: "prev", ArrowRight: "next", PageDown: "next" }[e.key];
    const a = rel && document.querySelector(`.lesson-nav a[rel="${rel}"]`);
    if (a) { e.preventDefault(); location.href = a.href; }
  });
}

export async function lessonPage() {
  stepKeys();
  const slug = $("#lesson").dataset.lesson;
  const setup = { mean, budget, adapt, learning }[slug];
  if (setup) {
    $("#lesson-figure").after(downloads(`lesson-${slug}`, () => ({
      svg: current.svg || standaloneSVG($("#lesson-figure svg"), $("#lesson-figure .story-legend")), csv: current.csv,
    })));
    await setup($("#lesson-control"));
  }
  document.body.dataset.ready = "1";
}

// current is the figure on screen: its data as CSV, and its SVG where the
// page shows none (the bars are a table).
const current = { csv: "", svg: "" };

function control(slider, label, n, start, onMove) {
  $("#lesson-control-label").textContent = label;
  slider.max = String(n - 1);
  slider.step = "1";
  slider.value = String(start);
  slider.addEventListener("input", () => onMove(Number(slider.value)));
  onMove(start);
}

function answer(question, text) {
  $("#lesson-question").textContent = question;
  $("#lesson-answer").innerHTML = text;
}

// (a) The mean is not the goal.
async function mean(slider) {
  const s = await getJSON("/api/story");
  const k0 = Math.max(0, s.factors.indexOf(s.factor));
  const alt = s.best[k0] || s.best.find((b) => b !== 0) || 0;
  const routes = [s.routes[0], s.routes[alt]];
  control(slider, "Time budget", s.factors.length, k0, (k) => {
    const T = s.factors[k] * s.let_time;
    $("#lesson-out").textContent = `${fmt(T, 2)} min`;
    current.csv = distributionCSV(routes, ["ring: fastest on average", "avenue: steadier"], T);
    $("#lesson-figure").innerHTML = distribution(routes, T) +
      `<table class="results"><thead><tr><th scope="col">route</th><th scope="col">mean min</th><th scope="col">σ min</th><th scope="col">P(on time)</th></tr></thead><tbody>` +
      routes.map((r, i) => `<tr><th scope="row">${i === 0 ? "ring: fastest on average" : "avenue: steadier"}</th><td>${fmt(r.mean, 2)}</td><td>${fmt(r.sd, 2)}</td><td data-testid="lesson-p-${i}">${fmt(r.on_time[k], 3)}</td></tr>`).join("") +
      `</tbody></table>`;
    const better = routes[1].on_time[k] > routes[0].on_time[k] ? 1 : 0;
    answer(`At ${fmt(T, 2)} minutes, which route would you take, and why is it not simply the faster one on average?`,
      `Take the ${better ? "steadier avenue" : "ring"}: it arrives on time with P = ${fmt(routes[better].on_time[k], 3)} against ${fmt(routes[1 - better].on_time[k], 3)}. ` +
      `The means differ by only ${fmt(Math.abs(routes[1].mean - routes[0].mean), 2)} min, but the σ are ${fmt(routes[0].sd, 2)} and ${fmt(routes[1].sd, 2)} min: ` +
      `what matters is the chance of arriving within the budget, and that depends on the spread as much as on the mean.`);
  });
}

// (b) The budget decides: P(on time) against the budget, the two routes.
async function budget(slider) {
  const s = await getJSON("/api/story");
  const alt = s.best.find((b) => b !== 0) || 0;
  const routes = [s.routes[0], s.routes[alt]];
  const flip = s.best.findIndex((b, k) => k > 0 && (b !== 0) !== (s.best[k - 1] !== 0));
  control(slider, "Time budget", s.factors.length, Math.floor(s.factors.length / 2), (k) => {
    const T = s.factors[k] * s.let_time;
    $("#lesson-out").textContent = `${fmt(T, 2)} min (${fmt(s.factors[k], 2)} × the ring's mean)`;
    const xs = s.factors.map((f) => f * s.let_time), names = ["ring: fastest on average", "avenue: steadier"];
    current.csv = curvesCSV(xs, routes.map((r) => r.on_time), names, "budget_minutes", "p_on_time");
    $("#lesson-figure").innerHTML = curves(xs, routes.map((r) => r.on_time), names, T, "time budget (min)", "P(on time)");
  });
  const tF = flip > 0 ? s.factors[flip] * s.let_time : null;
  answer("Below which budget is the ring (the gamble) the better bet, and why?",
    tF === null ? "On this pair the better route does not change across these budgets."
      : `Below about ${fmt(tF, 2)} min the ring is more likely on time, above it the avenue. With little time, only the fast-on-average route has a real chance; ` +
        `its spread is then an ally (a good day gets you there). With time to spare, spread only adds the risk of a bad day, and the steady route wins.`);
}

// (c) Adapting on the way beats any fixed path.
async function adapt(slider) {
  const factors = [];
  for (let f = 0.9; f <= 1.201; f += 0.05) factors.push(Math.round(f * 100) / 100);
  let ticket = 0;
  control(slider, "Budget factor (× the LET time)", factors.length, 2, async (k) => {
    const t = ++ticket;
    $("#lesson-out").textContent = `${fmt(factors[k], 2)} × LET`;
    const a = await getJSON(`/api/lessons/adapt?f=${factors[k]}`);
    if (t !== ticket) return;
    const names = Object.keys(a.rates);
    const items = names.map((m) => ({ name: m, label: a.labels[m], value: a.rates[m], color: a.colors[m] }));
    current.csv = csv([["method", "label", "budget_minutes", "p_on_time", "realizations"], ...items.map((it) => [it.name, it.label || "", a.budget, it.value, a.realizations])]);
    current.svg = barsSVG(items, `P(on time), ${a.network} OD ${a.od}, budget ${fmt(a.budget, 2)} min`);
    $("#lesson-figure").innerHTML = `<p class="muted">${escapeHTML(a.network)}, OD ${escapeHTML(a.od)}, budget ${fmt(a.budget, 2)} min; P(on time) on ${a.realizations} common test realizations.</p>` +
      bars(items);
    const fixed = bestOfRole(a, "fixed"), adaptive = bestOfRole(a, "adaptive");
    answer("Why can a policy that decides on the way beat the best route chosen before departure?",
      `Here the best fixed route arrives on time with ${fmt(fixed, 3)}, the better adaptive policy with ${fmt(adaptive, 3)} (${adaptive >= fixed ? "+" : ""}${fmt(adaptive - fixed, 3)}). ` +
      `A fixed route is one bet for every day; an adaptive policy looks at the time left at each node (and, with correlated roads, at what the roads so far say about the roads ahead) and switches when a day goes badly or well. ` +
      `Every fixed route is one of its options, so it can only do as well or better, up to sampling noise.`);
  });
}

// (e) How a policy learns from episodes.
async function learning(slider) {
  let c;
  try { c = await getJSON("/api/lessons/learning"); } catch (err) {
    $("#lesson-figure").textContent = `No trained model here (${err.message}).`;
    $("#lesson-figure + .downloads").remove(); // no figure to download
    return;
  }
  const n = c.curve.length;
  const base = c.curve[0].rates;
  control(slider, "Checkpoint", n, n - 1, (k) => {
    $("#lesson-out").textContent = k === 0 ? "0: imitation" : `${k}`;
    const xs = c.curve.map((p) => p.checkpoint);
    const ys = c.factors.map((_, j) => c.curve.map((p) => p.rates[j] - base[j]));
    const names = c.factors.map((f, j) => `budget ${fmt(f, 2)} × LET (imitation ${fmt(base[j], 4)})`);
    current.csv = curvesCSV(xs, ys, names, "checkpoint", "change_in_validation_p_on_time");
    $("#lesson-figure").innerHTML = curves(xs, ys, names, xs[k], "checkpoint", "change in validation P(on time)") +
      `<p data-testid="lesson-checkpoint">Checkpoint ${xs[k]}: ${c.factors.map((f, j) => `${fmt(c.curve[k].rates[j], 4)} at ${fmt(f, 2)} × LET`).join(", ")}.</p>`;
  });
  const last = c.curve[n - 1].rates;
  const gain = c.factors.map((_, j) => Math.max(...c.curve.map((p) => p.rates[j])) - base[j]);
  answer("Did playing its own episodes improve on imitating the planners, and by how much?",
    `The best checkpoint (${escapeHTML(c.best || "?")}) was chosen on the validation pool before any test result was seen. ` +
    `The largest gains over imitation are ${gain.map((g) => (g >= 0 ? "+" : "") + fmt(g, 4)).join(", ")} at budgets ${c.factors.map((f) => fmt(f, 2)).join(", ")} × LET; ` +
    `the last checkpoint is at ${last.map((v) => fmt(v, 4)).join(", ")}. Gains of thousandths are typical: the planners it imitates are already good, and the test pools decide whether a gain is real.`);
}

// curves draws lines (one per series, y in data units) with a marker at x0.
function curves(xs, series, names, x0, xlabel, ylabel) {
  const W = 560, H = 240, pad = { l: 52, r: 12, t: 10, b: 34 };
  const all = series.flat();
  let lo = Math.min(...all), hi = Math.max(...all);
  if (ylabel === "P(on time)") { lo = 0; hi = 1; }
  if (hi - lo < 1e-9) { lo -= 0.001; hi += 0.001; }
  const x = (v) => pad.l + ((v - xs[0]) / (xs[xs.length - 1] - xs[0] || 1)) * (W - pad.l - pad.r);
  const y = (v) => H - pad.b - ((v - lo) / (hi - lo)) * (H - pad.t - pad.b);
  const lines = series.map((ys, i) => `<polyline fill="none" stroke="${COLORS[i]}" stroke-width="2" points="${ys.map((v, k) => `${x(xs[k]).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}"/>`).join("");
  const legend = names.map((nm, i) => `<span class="story-key"><span class="swatch" style="background:${COLORS[i]}"></span>${escapeHTML(nm)}</span>`).join(" ");
  return `<div class="story-legend">${legend}</div><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHTML(ylabel)} against ${escapeHTML(xlabel)}" data-testid="lesson-svg">` +
    `<line x1="${pad.l}" x2="${W - pad.r}" y1="${H - pad.b}" y2="${H - pad.b}" stroke="#555"/><line x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${H - pad.b}" stroke="#555"/>` +
    `<text x="${pad.l - 6}" y="${y(hi) + 4}" text-anchor="end">${fmt(hi, 3)}</text><text x="${pad.l - 6}" y="${y(lo) + 4}" text-anchor="end">${fmt(lo, 3)}</text>` +
    `<text x="${x(xs[0])}" y="${H - pad.b + 14}" text-anchor="middle">${fmt(xs[0], 1)}</text><text x="${x(xs[xs.length - 1])}" y="${H - pad.b + 14}" text-anchor="middle">${fmt(xs[xs.length - 1], 1)}</text>` +
    `${lines}<line x1="${x(x0)}" x2="${x(x0)}" y1="${pad.t}" y2="${H - pad.b}" stroke="#000" stroke-width="2" stroke-dasharray="5 3" data-testid="lesson-marker"/>` +
    `<text x="${(W + pad.l) / 2}" y="${H - 4}" text-anchor="middle">${escapeHTML(xlabel)}</text></svg>`;
}

// curvesCSV is the data of curves: one row per series and point.
function curvesCSV(xs, series, names, xname, yname) {
  return csv([["series", xname, yname], ...series.flatMap((ys, i) => ys.map((y, k) => [names[i], xs[k], y]))]);
}

// barsSVG is the bars as a file: one bar per method on a [0, 1] scale.
function barsSVG(items, title) {
  const W = 560, row = 22, H = 40 + row * items.length, l = 110, r = 60;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">` +
    `<rect width="${W}" height="${H}" fill="#fff"/><text x="8" y="16">${escapeHTML(title)}</text>` +
    items.map((it, i) => {
      const y = 28 + i * row, w = (W - l - r) * Math.max(0, Math.min(1, it.value));
      return `<text x="${l - 6}" y="${y + 13}" text-anchor="end">${escapeHTML(it.name)}</text><rect x="${l}" y="${y}" width="${w.toFixed(1)}" height="${row - 6}" fill="${it.color}"/>` +
        `<text x="${l + w + 4}" y="${y + 13}">${fmt(it.value, 3)}</text>`;
    }).join("") +
    `<line x1="${l}" x2="${l}" y1="24" y2="${H - 6}" stroke="#555"/><line x1="${W - r}" x2="${W - r}" y1="24" y2="${H - 6}" stroke="#ccc" stroke-dasharray="3 3"/></svg>`;
}

// bars draws one horizontal bar per method, on a [0, 1] scale.
function bars(items) {
  return `<table class="results lesson-bars" data-testid="lesson-bars"><tbody>` + items.map((it) =>
    `<tr><th scope="row">${escapeHTML(it.name)}<br><small>${escapeHTML(it.label || "")}</small></th><td data-testid="lesson-rate-${escapeHTML(it.name)}">${fmt(it.value, 3)}</td>` +
    `<td class="bar-cell"><span class="lesson-bar" style="width:${(100 * it.value).toFixed(1)}%;background:${it.color}"></span></td></tr>`).join("") + `</tbody></table>`;
}
