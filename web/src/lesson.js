// The lessons: each one figure computed by the engine (/api/story,
// /api/lessons/*), one control, and a question asked first: the visitor
// commits to an answer, then the numbers and the why appear (predict.js).
// The arrow keys step between lessons.
import { $, getJSON, fmt, escapeHTML } from "./util.js";
import { SERIES_COLORS, distribution, distributionCSV, distributionDomain, nearestIndex, niceStep, routeNames } from "./plots.js";
import { bestOfRole } from "./lessonmath.js";
import { csv, downloads, dragBudget, standaloneSVG } from "./figure.js";
import { predict, judgeGuess } from "./predict.js";
import { tripsPanel } from "./trips.js";

// The story's two routes keep the home page's colours; further series
// (the learning curve's budgets) continue in colours no method uses.
const COLORS = SERIES_COLORS;

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

// lessonFrame is what every lesson page does: arrow keys between lessons,
// and a handout with its answers open when printed, or without them when
// printed for the class (every handout carried the teacher's answers).
export function lessonFrame() {
  stepKeys();
  const openAll = () => document.querySelectorAll("details").forEach((d) => { d.open = true; });
  window.addEventListener("beforeprint", openAll);
  window.matchMedia("print").addEventListener("change", (e) => { if (e.matches) openAll(); });
  document.querySelectorAll("[data-print]").forEach((b) => b.addEventListener("click", () => {
    document.body.dataset.handout = b.dataset.print;
    window.print();
  }));
  window.addEventListener("afterprint", () => { delete document.body.dataset.handout; });
}

export async function lessonPage() {
  lessonFrame();
  const lesson = $("#lesson");
  const slug = lesson.dataset.lesson;
  const setup = { mean, budget, adapt, data, learning }[slug];
  if (setup && !lesson.dataset.unavailable) {
    $("#lesson-figure").after(downloads(`lesson-${slug}`, () => ({
      svg: current.svg || standaloneSVG($("#lesson-figure svg"), $("#lesson-figure .story-legend")), csv: current.csv,
    })));
    await setup($("#lesson-control"), lesson);
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

// moveTo sets the lesson's slider to index k, as a drag on the figure does.
function moveTo(slider, k) {
  if (String(k) === slider.value) return;
  slider.value = String(k);
  slider.dispatchEvent(new Event("input"));
}

// The two routes of the story lessons: the fastest on average and the
// story's other route (the most reliable at its opening budget), named as
// on the home page.
function storyRoutes(s) {
  const k0 = Math.max(0, s.factors.indexOf(s.factor));
  const names = routeNames(s.routes);
  return { k0, routes: [s.routes[0], s.routes[s.other]], names: [names[0], names[s.other]] };
}

// lessonTrips puts the story's sampled trips under a lesson, shown with
// the answer (driving them first would give it away): the two routes
// driven day by day, counted against the lesson's budget, a drag on the
// strips moving the lesson's slider. It answers show(k), the budget k.
function lessonTrips(slider, routes, names, budgets, domain) {
  const sec = document.createElement("section");
  sec.className = "trips until-revealed collapse";
  sec.dataset.testid = "lesson-trips";
  sec.setAttribute("aria-labelledby", "lesson-trips-title");
  sec.innerHTML = `<h3 id="lesson-trips-title">Drive the trips</h3><p class="muted">Each trip is one day on these roads, the same day for both routes: ` +
    `drive them one at a time and watch each route's share on time walk towards its P.</p><div></div>`;
  $("#lesson-predict").after(sec);
  const pair = (k) => routes.map((r, i) => ({ name: names[i], color: COLORS[i], trips: r.trips, p: r.on_time[k] }));
  const k0 = Number(slider.value);
  const panel = tripsPanel(sec.querySelector("div"), { routes: pair(k0), budget: budgets[k0], domain });
  dragBudget(panel.figure(), (t) => moveTo(slider, nearestIndex(budgets, t)));
  return { show: (k) => panel.show(pair(k), budgets[k]) };
}

// (a) The mean is not the goal: pick a route at the budget, guess its P.
async function mean(slider, lesson) {
  const s = await getJSON("/api/story");
  const { k0, routes, names } = storyRoutes(s);
  const budgets = s.factors.map((f) => f * s.let_time);
  const domain = distributionDomain(routes, budgets);
  let k = k0;
  const ask = predict($("#lesson-predict"), lesson, {
    choices: names.map((n, i) => ({ value: String(i), label: n })),
    guess: { label: "Your guess of its P(on time):", min: 0, max: 1, step: 0.01, value: 0.5 },
    judge: ({ choice, guess }) => {
      const pick = Number(choice), better = routes[1].on_time[k] > routes[0].on_time[k] ? 1 : 0;
      return `${pick === better ? "Right" : "Not this time"}: at ${fmt(budgets[k], 2)} min ${escapeHTML(names[better])} is the more likely on time. ` +
        judgeGuess(guess, routes[pick].on_time[k]);
    },
  });
  dragBudget($("#lesson-figure"), (t) => moveTo(slider, nearestIndex(budgets, t)));
  let trips = null;
  control(slider, "Time budget", s.factors.length, k0, (kk) => {
    k = kk;
    const T = budgets[k];
    $("#lesson-out").textContent = `${fmt(T, 2)} min`;
    if (trips) trips.show(k);
    current.csv = distributionCSV(routes, names, T);
    $("#lesson-figure").innerHTML = distribution(routes, T, { domain, names }) +
      `<table class="results route-table"><thead><tr><th scope="col">route</th><th scope="col">mean min</th><th scope="col">σ min</th><th scope="col">P(on time)</th></tr></thead><tbody>` +
      routes.map((r, i) => `<tr><th scope="row">${escapeHTML(names[i])}</th><td class="num">${fmt(r.mean, 2)}</td><td class="num">${fmt(r.sd, 2)}</td><td class="num until-revealed" data-testid="lesson-p-${i}">${fmt(r.on_time[k], 3)}</td></tr>`).join("") +
      `</tbody></table>`;
    const better = routes[1].on_time[k] > routes[0].on_time[k] ? 1 : 0;
    ask.setQuestion(`You have ${fmt(T, 2)} minutes. Which route do you take to arrive on time, and how likely is it to make it?`);
    ask.setAnswer(`Take ${escapeHTML(names[better])}: it arrives on time with P = ${fmt(routes[better].on_time[k], 3)} against ${fmt(routes[1 - better].on_time[k], 3)}. ` +
      `The means differ by only ${fmt(Math.abs(routes[1].mean - routes[0].mean), 2)} min, but the σ are ${fmt(routes[0].sd, 2)} and ${fmt(routes[1].sd, 2)} min: ` +
      `what matters is the chance of arriving within the budget, and that depends on the spread as much as on the mean.`);
  });  trips = lessonTrips(slider, routes, names, budgets, domain);
}

// (b) The budget decides: P(on time) against the budget, the two routes.
// The visitor puts the budget where they think the better route changes;
// the curves appear once the answer is locked.
async function budget(slider, lesson) {
  const s = await getJSON("/api/story");
  const { routes, names } = storyRoutes(s);
  const xs = s.factors.map((f) => f * s.let_time);
  const alt = s.routes.indexOf(routes[1]);
  const flip = s.best.findIndex((b, k) => k > 0 && (b === alt) !== (s.best[k - 1] === alt));
  const tF = flip > 0 ? xs[flip] : null;
  let k = 0;
  const ask = predict($("#lesson-predict"), lesson, {
    judge: () => tF === null ? "On this pair the better route does not change across these budgets."
      : `You put it at ${fmt(xs[k], 2)} min; the better route changes at about ${fmt(tF, 2)} min (off by ${fmt(Math.abs(xs[k] - tF), 2)} min).`,
  });
  ask.setQuestion(`Below some budget ${names[0]} is the better bet, above it ${names[1]}. Drag the budget (on the figure or the slider) to where you think they change places, then lock.`);
  ask.setAnswer(tF === null ? "The curves do not cross on this pair: one route is the better bet at every budget shown." :
    `Below about ${fmt(tF, 2)} min route A is more likely on time, above it route B. With little time, only the fast-on-average route has a real chance; ` +
    `its spread is then an ally (a good day gets you there). With time to spare, spread only adds the risk of a bad day, and the steady route wins.`);
  dragBudget($("#lesson-figure"), (t) => moveTo(slider, nearestIndex(xs, t)));
  let trips = null;
  control(slider, "Time budget", s.factors.length, Math.floor(s.factors.length / 2), (kk) => {
    k = kk;
    const T = xs[k];
    if (trips) trips.show(k);
    $("#lesson-out").textContent = `${fmt(T, 2)} min (${fmt(s.factors[k], 2)} × route A's mean)`;
    current.csv = curvesCSV(xs, routes.map((r) => r.on_time), names, "budget_minutes", "p_on_time");
    $("#lesson-figure").innerHTML = curves(xs, routes.map((r) => r.on_time), names, T, "time budget (min)", "P(on time)", { hidden: true }) +
      `<p class="muted lesson-hidden-note">The curves appear once you lock your answer.</p>`;
  });
  trips = lessonTrips(slider, routes, names, xs, distributionDomain(routes, xs));
  // The exercise's answer in this page's numbers: each route's 95% budget
  // (the law is a joint Gaussian, so mean + 1.645 σ is exact).
  const p95 = document.querySelector('[data-fill="budget-p95"]');
  if (p95) p95.textContent = "On this page: " + routes.map((r, i) => `${names[i]} ${fmt(r.mean, 2)} + 1.645 × ${fmt(r.sd, 2)} = ${fmt(r.mean + 1.645 * r.sd, 2)} min`).join("; ") + ".";
}

// (c) Adapting on the way beats any fixed path. The page opens at the
// budget of its grid where the better adaptive policy gains most over the
// best fixed route, so the point is visible at first sight (a teaching
// choice made on the rates it draws; no result is selected by it).
async function adapt(slider, lesson) {
  const factors = [];
  for (let f = 0.9; f <= 1.201; f += 0.05) factors.push(Math.round(f * 100) / 100);
  const all = await Promise.all(factors.map((f) => getJSON(`/api/lessons/adapt?f=${f}`)));
  const gap = (a) => bestOfRole(a, "adaptive") - bestOfRole(a, "fixed");
  const open = all.reduce((b, a, i) => (gap(a) > gap(all[b]) ? i : b), 0);
  let k = open;
  const choices = [
    { value: "fixed", label: "the best route fixed before departure" },
    { value: "same", label: "about the same (within 0.01)" },
    { value: "adaptive", label: "the better adaptive policy" },
  ];
  const ask = predict($("#lesson-predict"), lesson, {
    choices,
    judge: ({ choice }) => {
      const d = gap(all[k]), truth = d > 0.01 ? "adaptive" : d < -0.01 ? "fixed" : "same";
      return `${choice === truth ? "Right" : "Not this time"}: ${choices.find((c) => c.value === truth).label} (${d >= 0 ? "+" : ""}${fmt(d, 3)} for adapting).`;
    },
  });
  control(slider, "Budget factor (× the fastest route's mean)", factors.length, open, (kk) => {
    k = kk;
    const a = all[k];
    $("#lesson-out").textContent = `${fmt(factors[k], 2)} ×`;
    const names = Object.keys(a.rates);
    const items = names.map((m) => ({ name: m, label: a.labels[m], value: a.rates[m], color: a.colors[m] }));
    current.csv = csv([["method", "label", "budget_minutes", "p_on_time", "realizations"], ...items.map((it) => [it.name, it.label || "", a.budget, it.value, a.realizations])]);
    current.svg = barsSVG(items, `P(on time), ${a.network} OD ${a.od}, budget ${fmt(a.budget, 2)} min`);
    $("#lesson-figure").innerHTML = `<p class="muted">${escapeHTML(a.network)}, OD ${escapeHTML(a.od)}, budget ${fmt(a.budget, 2)} min; P(on time) on ${a.realizations} common test realizations.</p>` +
      `<div class="until-revealed collapse">${bars(items)}</div><p class="muted lesson-hidden-note">The bars appear once you lock your answer.</p>`;
    const fixed = bestOfRole(a, "fixed"), adaptive = bestOfRole(a, "adaptive");
    ask.setQuestion(`With ${fmt(a.budget, 2)} minutes (${fmt(factors[k], 2)} × the fastest route's mean), which arrives on time more often?`);
    ask.setAnswer(`Here the best fixed route arrives on time with ${fmt(fixed, 3)}, the better adaptive policy with ${fmt(adaptive, 3)} (${adaptive >= fixed ? "+" : ""}${fmt(adaptive - fixed, 3)}). ` +
      `A fixed route is one bet for every day; an adaptive policy looks at the time left at each node (and, with correlated roads, at what the roads so far say about the roads ahead) and switches when a day goes badly or well. ` +
      `Every fixed route is one of the best adaptive policy's options, so the best one can only do as well or better, up to sampling noise. ` +
      `The adaptive methods here are approximations of it, though${behind(a, fixed)}. Move the budget: with very little or very much time there is nothing to adapt to, and the bars meet.`);
  });
}

// behind names the adaptive methods below the best fixed route at this
// budget (by the registry's words), and why a method that adapts can fall
// below one that does not.
function behind(a, fixed) {
  const low = Object.keys(a.rates).filter((m) => a.roles[m] === "adaptive" && a.rates[m] < fixed - 0.005);
  if (!low.length) return "";
  return `: ${low.map((m) => `${escapeHTML(m)} (${escapeHTML(a.labels[m] || m)}, ${fmt(a.rates[m], 3)})`).join(" and ")} ${low.length > 1 ? "fall" : "falls"} below the best fixed route here. ` +
    "An adaptive method is only as good as the law it plans with: one that plans with each link's own law is blind to how these roads move together";
}

// (d′) Real travel times: skewed, and telling. Each day's time on a
// route's first links against the rest; the slider picks a quarter of the
// days by how their first links went, and the question asks what the rest
// did on those days before the dots and the means show it.
const QUARTERS = ["the fastest quarter", "the second quarter", "the third quarter", "the slowest quarter"];
async function data(slider, lesson) {
  const d = await getJSON("/api/lessons/data");
  const quarter = (x) => d.quarters.filter((q) => x >= q).length;
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const restAll = mean(d.rest);
  const restIn = [0, 1, 2, 3].map((q) => mean(d.rest.filter((_, i) => quarter(d.first[i]) === q)));
  let k = 3;
  const truthOf = (q) => (restIn[q] > restAll * 1.01 ? "slower" : restIn[q] < restAll * 0.99 ? "faster" : "same");
  const choices = [
    { value: "faster", label: "faster than on an average day" },
    { value: "same", label: "about the same (within 1%)" },
    { value: "slower", label: "slower than on an average day" },
  ];
  const ask = predict($("#lesson-predict"), lesson, {
    choices,
    judge: ({ choice }) => `${choice === truthOf(k) ? "Right" : "Not this time"}: the rest took ${fmt(restIn[k], 2)} min on those days, ${fmt(restAll, 2)} on an average day.`,
  });
  control(slider, "Days whose first links were in", 4, 3, (kk) => {
    k = kk;
    $("#lesson-out").textContent = QUARTERS[k];
    ask.setQuestion(`On the days when the route's first ${3} links were in ${QUARTERS[k]} of their times, was the rest of the route…`);
    ask.setAnswer(`On those days the rest took ${fmt(restIn[k], 2)} min on average, against ${fmt(restAll, 2)} on all days ` +
      `(the first links' time and the rest's are correlated: ${fmt(d.correlation, 2)}). Roads jam together, so what the first links took says what is coming: ` +
      `${words(d.conditions)} condition on it; ${words(d.marginal)} cannot. ` +
      `And the whole route leans right: its mean ${fmt(d.mean, 2)} min is above its median ${fmt(d.median, 2)} (skew ${fmt(d.skew, 2)}), ` +
      `so at a budget equal to the mean it is on time on more than half the days, and its bad days are worse than a bell curve says. ` +
      `The fit found ${Object.entries(d.families).map(([f, n]) => `${n} ${f}`).join(", ")} links and a correlation of rank ${d.rank}.`);
    current.csv = csv([["day", "first_links_minutes", "rest_minutes", "quarter"], ...d.first.map((f, i) => [i + 1, f, d.rest[i], quarter(f) + 1])]);
    current.svg = "";
    $("#lesson-figure").innerHTML = `<p class="muted">${escapeHTML(d.network)}, OD ${escapeHTML(d.od)}: the fastest route's ${d.links} links on ${d.first.length} days.</p>` +
      `<div class="data-figures"><div>${daysSVG(d, k, quarter, restIn[k], restAll)}</div><div class="until-revealed">${skewSVG(d)}</div></div>` +
      `<p class="muted lesson-hidden-note">The days' dots and the route's histogram appear once you lock your answer.</p>`;
  });
}

// words names methods as the registry words them (code: label).
function words(ms) {
  return ms.map((m) => `${escapeHTML(m.code)} (${escapeHTML(m.label)})`).join(", ");
}

// daysSVG is the days as dots (first links across, the rest up), the
// chosen quarter's in colour with its mean line against all days' mean;
// the dots wait for the answer.
// dataWidth is the data lesson's figures' drawing width: narrower on a
// slide, where the two share the figure's half of the screen (drawn 560
// wide and shown 310, their text read at 10 px beside 23-px type).
const dataWidth = () => (document.body.classList.contains("present") ? 380 : 560);

function daysSVG(d, k, quarter, restK, restAll) {
  const W = dataWidth(), H = 260, pad = { l: 56, r: 16, t: 10, b: 36 };
  const x0 = Math.min(...d.first), x1 = Math.max(...d.first), y0 = Math.min(...d.rest), y1 = Math.max(...d.rest);
  const x = (v) => pad.l + ((v - x0) / (x1 - x0)) * (W - pad.l - pad.r);
  const y = (v) => H - pad.b - ((v - y0) / (y1 - y0)) * (H - pad.t - pad.b);
  const dots = d.first.map((f, i) => `<circle cx="${x(f).toFixed(1)}" cy="${y(d.rest[i]).toFixed(1)}" r="${quarter(f) === k ? 2.4 : 1.6}" fill="${quarter(f) === k ? COLORS[0] : "#9a9a9a"}"/>`).join("");
  const line = (v, color, dash) => `<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="${color}" stroke-width="2"${dash ? ' stroke-dasharray="5 3"' : ""}/>`;
  return `<div class="story-legend"><span class="story-key"><span class="swatch" style="background:${COLORS[0]}"></span>days in ${QUARTERS[k]} (line: their mean rest)</span> ` +
    `<span class="story-key"><span class="swatch" style="background:#555"></span>all days (dashed: their mean rest)</span></div>` +
    `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Each day's time on the first links against the rest of the route" data-testid="lesson-svg">` +
    `<line x1="${pad.l}" x2="${W - pad.r}" y1="${H - pad.b}" y2="${H - pad.b}" stroke="#555"/><line x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${H - pad.b}" stroke="#555"/>` +
    `<g class="until-revealed">${dots}${line(restAll, "#555", true)}${line(restK, COLORS[0], false)}` +
    `<text x="${pad.l - 6}" y="${y(y1) + 4}" text-anchor="end">${fmt(y1, 1)}</text><text x="${pad.l - 6}" y="${y(y0) + 4}" text-anchor="end">${fmt(y0, 1)}</text></g>` +
    `<text x="${x(x0)}" y="${H - pad.b + 14}" text-anchor="middle">${fmt(x0, 1)}</text><text x="${x(x1)}" y="${H - pad.b + 14}" text-anchor="middle">${fmt(x1, 1)}</text>` +
    `<text x="${(W + pad.l) / 2}" y="${H - 4}" text-anchor="middle">first 3 links (min)</text>` +
    `<text transform="translate(12 ${(H - pad.b + pad.t) / 2}) rotate(-90)" text-anchor="middle">rest of the route (min)</text></svg>`;
}

// skewSVG is the whole route's time as a histogram against the bell curve
// of the same mean and SD, with the mean and the median marked.
function skewSVG(d) {
  const W = dataWidth(), H = 200, pad = { l: 40, r: 24, t: 10, b: 36 };
  const lo = d.bins[0].lo, hi = d.bins[d.bins.length - 1].hi;
  const normal = (t) => Math.exp(-0.5 * ((t - d.mean) / d.sd) ** 2) / (d.sd * Math.sqrt(2 * Math.PI));
  const top = Math.max(...d.bins.map((b) => b.density), normal(d.mean));
  const x = (v) => pad.l + ((v - lo) / (hi - lo)) * (W - pad.l - pad.r);
  const y = (v) => H - pad.b - (v / top) * (H - pad.t - pad.b);
  const bars = d.bins.map((b) => `<rect x="${x(b.lo).toFixed(1)}" y="${y(b.density).toFixed(1)}" width="${(x(b.hi) - x(b.lo)).toFixed(1)}" height="${(H - pad.b - y(b.density)).toFixed(1)}" fill="#d8d8d8" stroke="#888"/>`).join("");
  const pts = [];
  for (let i = 0; i <= 120; i++) { const t = lo + ((hi - lo) * i) / 120; pts.push(`${x(t).toFixed(1)},${y(normal(t)).toFixed(1)}`); }
  // the median left of its line, the mean right of its own: they lie close
  const mark = (v, label, color, side) => `<line x1="${x(v)}" x2="${x(v)}" y1="${pad.t}" y2="${H - pad.b}" stroke="${color}" stroke-width="2"/>` +
    `<text x="${x(v) + (side < 0 ? -4 : 4)}" y="${pad.t + 12}" fill="${color}" text-anchor="${side < 0 ? "end" : "start"}">${label}</text>`;
  return `<div class="story-legend"><span class="story-key"><span class="swatch" style="background:#d8d8d8"></span>the whole route's time on ${d.first.length} days</span> ` +
    `<span class="story-key"><span class="swatch" style="background:${COLORS[1]}"></span>the bell curve of the same mean and SD</span></div>` +
    `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="The route's time: histogram against the bell curve of the same mean and SD" data-testid="lesson-skew">` +
    `${bars}<polyline fill="none" stroke="${COLORS[1]}" stroke-width="2" points="${pts.join(" ")}"/>` +
    `${mark(d.median, `median ${fmt(d.median, 2)}`, "#333", -1)}${mark(d.mean, `mean ${fmt(d.mean, 2)}`, COLORS[0], 1)}` +
    `<line x1="${pad.l}" x2="${W - pad.r}" y1="${H - pad.b}" y2="${H - pad.b}" stroke="#555"/>` +
    `<text x="${x(lo)}" y="${H - pad.b + 14}" text-anchor="middle">${fmt(lo, 1)}</text><text x="${x(hi)}" y="${H - pad.b + 14}" text-anchor="middle">${fmt(hi, 1)}</text>` +
    `<text x="${(W + pad.l) / 2}" y="${H - 4}" text-anchor="middle">the route's time (min)</text></svg>`;
}

// (e) How a policy learns from episodes. The page says beforehand when no
// trained model is here (data-unavailable), so this runs only with one.
async function learning(slider, lesson) {
  const c = await getJSON("/api/lessons/learning");
  const n = c.curve.length;
  const base = c.curve[0].rates;
  const gain = c.factors.map((_, j) => Math.max(...c.curve.map((p) => p.rates[j])) - base[j]);
  const top = Math.max(...gain);
  const choices = [
    { value: "none", label: "no gain over imitating the planners" },
    { value: "small", label: "a gain of less than 0.01" },
    { value: "large", label: "a gain of 0.01 or more" },
  ];
  const ask = predict($("#lesson-predict"), lesson, {
    choices,
    judge: ({ choice }) => {
      const truth = top <= 0 ? "none" : top < 0.01 ? "small" : "large";
      return `${choice === truth ? "Right" : "Not this time"}: the largest gain at any budget is ${top >= 0 ? "+" : ""}${fmt(top, 4)}.`;
    },
  });
  ask.setQuestion("After imitating the planners, the policy plays its own episodes and refits. By how much does its validation P(on time) improve at best?");
  control(slider, "Checkpoint", n, n - 1, (k) => {
    $("#lesson-out").textContent = k === 0 ? "0: imitation" : `${k}`;
    const xs = c.curve.map((p) => p.checkpoint);
    const ys = c.factors.map((_, j) => c.curve.map((p) => p.rates[j] - base[j]));
    const names = c.factors.map((f, j) => `budget ${fmt(f, 2)} × the fastest route's mean (imitation ${fmt(base[j], 4)})`);
    current.csv = curvesCSV(xs, ys, names, "checkpoint", "change_in_validation_p_on_time");
    $("#lesson-figure").innerHTML = curves(xs, ys, names, xs[k], "checkpoint", "change in validation P(on time)", { hidden: true, minSpan: 0.02, zero: true }) +
      `<p class="until-revealed" data-testid="lesson-checkpoint">Checkpoint ${xs[k]}: ${c.factors.map((f, j) => `${fmt(c.curve[k].rates[j], 4)} at ${fmt(f, 2)} ×`).join(", ")}.</p>` +
      `<p class="muted lesson-hidden-note">The curves appear once you lock your answer.</p>`;
  });
  const last = c.curve[n - 1].rates;
  ask.setAnswer(`The best checkpoint (${escapeHTML(c.best || "?")}) was chosen on the validation pool before any test result was seen. ` +
    `The largest gains over imitation are ${gain.map((g) => (g >= 0 ? "+" : "") + fmt(g, 4)).join(", ")} at budgets ${c.factors.map((f) => fmt(f, 2)).join(", ")} × the fastest route's mean; ` +
    `the last checkpoint is at ${last.map((v) => fmt(v, 4)).join(", ")}. Gains of thousandths are typical: the planners it imitates are already good, and the test pools decide whether a gain is real. ` +
    `The axis spans at least ±0.01, so a change of a few thousandths looks as small as it is.`);
}

// curves draws lines (one per series, y in data units) with a marker at x0.
// Options: hidden (the lines wait for the answer: .until-revealed),
// minSpan (the y axis spans at least this much, centred on the data, so
// noise is not blown up to fill the plot), zero (a line at y = 0).
function curves(xs, series, names, x0, xlabel, ylabel, { hidden, minSpan = 0, zero } = {}) {
  const W = 560, H = 240, pad = { l: 64, r: 12, t: 10, b: 34 };
  const all = series.flat();
  let lo = Math.min(...all), hi = Math.max(...all);
  if (ylabel === "P(on time)") { lo = 0; hi = 1; }
  if (hi - lo < minSpan) { const mid = (hi + lo) / 2; lo = mid - minSpan / 2; hi = mid + minSpan / 2; }
  if (hi - lo < 1e-9) { lo -= 0.001; hi += 0.001; }
  const x = (v) => pad.l + ((v - xs[0]) / (xs[xs.length - 1] - xs[0] || 1)) * (W - pad.l - pad.r);
  const y = (v) => H - pad.b - ((v - lo) / (hi - lo)) * (H - pad.t - pad.b);
  const lines = (hidden ? `<g class="until-revealed">` : "<g>") + series.map((ys, i) => `<polyline fill="none" stroke="${COLORS[i]}" stroke-width="2" points="${ys.map((v, k) => `${x(xs[k]).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}"/>`).join("") +
    (zero && lo < 0 && hi > 0 ? `<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(0)}" y2="${y(0)}" stroke="#999" stroke-dasharray="2 3"/>` : "") + "</g>";
  const legend = names.map((nm, i) => `<span class="story-key"><span class="swatch" style="background:${COLORS[i]}"></span>${escapeHTML(nm)}</span>`).join(" ");
  return `<div class="story-legend">${legend}</div><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHTML(ylabel)} against ${escapeHTML(xlabel)}" data-testid="lesson-svg"` +
    ` data-lo="${xs[0]}" data-hi="${xs[xs.length - 1]}" data-x0="${pad.l}" data-x1="${W - pad.r}">` +
    `<line x1="${pad.l}" x2="${W - pad.r}" y1="${H - pad.b}" y2="${H - pad.b}" stroke="#555"/><line x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${H - pad.b}" stroke="#555"/>` +
    // The y axis's ends are part of the answer (its span is set by the
    // data): hidden with the lines.
    `<g${hidden ? ' class="until-revealed" data-testid="lesson-yticks"' : ""}><text x="${pad.l - 6}" y="${y(hi) + 4}" text-anchor="end">${fmt(hi, 3)}</text><text x="${pad.l - 6}" y="${y(lo) + 4}" text-anchor="end">${fmt(lo, 3)}</text></g>` +
    `<text x="${x(xs[0])}" y="${H - pad.b + 14}" text-anchor="middle">${fmt(xs[0], 1)}</text><text x="${x(xs[xs.length - 1])}" y="${H - pad.b + 14}" text-anchor="middle">${fmt(xs[xs.length - 1], 1)}</text>` +
    innerTicks(xs[0], xs[xs.length - 1], x, H - pad.b) +
    // On an on-time axis (fixed 0 to 1, so it gives nothing away) the
    // quarters and the 0.95 that planning asks for, to read a budget off.
    (ylabel === "P(on time)" ? [0.25, 0.5, 0.75, 0.95].map((v) => `<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(v)}" y2="${y(v)}" stroke="#ccc" stroke-dasharray="${v === 0.95 ? "1 3" : "none"}"/>` +
      (v === 0.95 ? `<text x="${W - pad.r - 2}" y="${y(v) + 12}" text-anchor="end" fill="#555">0.95</text>` : `<text x="${pad.l - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`)).join("") : "") +
    `${lines}<line x1="${x(x0)}" x2="${x(x0)}" y1="${pad.t}" y2="${H - pad.b}" stroke="#000" stroke-width="2" stroke-dasharray="5 3" data-testid="lesson-marker"/>` +
    `<text x="${(W + pad.l) / 2}" y="${H - 4}" text-anchor="middle">${escapeHTML(xlabel)}</text>` +
    `<text transform="translate(12 ${(H - pad.b + pad.t) / 2}) rotate(-90)" text-anchor="middle" data-testid="lesson-ylabel">${escapeHTML(ylabel)}</text></svg>`;
}

// innerTicks marks the x axis between its ends at a round step (the ends
// alone were labelled), leaving room beside the end labels.
function innerTicks(lo, hi, x, y0) {
  const step = niceStep((hi - lo) / 5);
  let out = "";
  for (let v = Math.ceil(lo / step) * step; v < hi - 0.35 * step; v += step) {
    if (v - lo < 0.35 * step) continue;
    out += `<line x1="${x(v)}" x2="${x(v)}" y1="${y0}" y2="${y0 + 4}" stroke="#555"/><text x="${x(v)}" y="${y0 + 14}" text-anchor="middle">${fmt(v, step < 1 ? 1 : 0)}</text>`;
  }
  return out;
}

// curvesCSV is the data of curves: one row per series and point.
function curvesCSV(xs, series, names, xname, yname) {
  return csv([["series", xname, yname], ...series.flatMap((ys, i) => ys.map((y, k) => [names[i], xs[k], y]))]);
}

// barsFrom is where the bars' axis starts: a tenth below the lowest rate
// (never below 0), so differences of a few hundredths show; the axis
// start is written on the figure.
export function barsFrom(items) {
  return Math.max(0, Math.floor((Math.min(...items.map((it) => it.value)) - 0.05) * 10) / 10);
}

// barsTo is where the axis ends: a tenth above the highest rate (at most
// 1), so that rates of 0.50 and 0.55 fill half the row and more, not the
// fifth of it that an axis to 1 gave them.
export function barsTo(items) {
  return Math.min(1, Math.ceil((Math.max(...items.map((it) => it.value)) + 0.05) * 10) / 10);
}

const barShare = (v, lo, hi) => Math.max(0, Math.min(1, (v - lo) / (hi - lo || 1)));

// barsSVG is the bars as a file: one bar per method, the axis from
// barsFrom to barsTo.
function barsSVG(items, title) {
  const W = 560, row = 22, H = 52 + row * items.length, l = 110, r = 60, lo = barsFrom(items), hi = barsTo(items);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">` +
    `<rect width="${W}" height="${H}" fill="#fff"/><text x="8" y="16">${escapeHTML(title)}</text>` +
    items.map((it, i) => {
      const y = 28 + i * row, w = (W - l - r) * barShare(it.value, lo, hi);
      return `<text x="${l - 6}" y="${y + 13}" text-anchor="end">${escapeHTML(it.name)}</text><rect x="${l}" y="${y}" width="${w.toFixed(1)}" height="${row - 6}" fill="${it.color}"/>` +
        `<text x="${l + w + 4}" y="${y + 13}">${fmt(it.value, 3)}</text>`;
    }).join("") +
    `<line x1="${l}" x2="${l}" y1="24" y2="${H - 18}" stroke="#555"/><line x1="${W - r}" x2="${W - r}" y1="24" y2="${H - 18}" stroke="#ccc" stroke-dasharray="3 3"/>` +
    `<text x="${l}" y="${H - 4}" text-anchor="middle">${fmt(lo, 1)}</text><text x="${W - r}" y="${H - 4}" text-anchor="middle">${fmt(hi, 1)}</text>` +
    `<text x="${(l + W - r) / 2}" y="${H - 4}" text-anchor="middle">P(on time), axis from ${fmt(lo, 1)} to ${fmt(hi, 1)}</text></svg>`;
}

// bars draws one horizontal bar per method: what it is in words first,
// its short code after; the axis from barsFrom to barsTo, stated above.
function bars(items) {
  const lo = barsFrom(items), hi = barsTo(items);
  return `<table class="results lesson-bars" data-testid="lesson-bars"><caption>P(on time); the bars run from ${fmt(lo, 1)} (left edge) to ${fmt(hi, 1)} (right edge)</caption><tbody>` + items.map((it) =>
    `<tr><th scope="row">${escapeHTML(it.label || it.name)}<br><small>code: ${escapeHTML(it.name)}</small></th><td class="rate" data-testid="lesson-rate-${escapeHTML(it.name)}">${fmt(it.value, 3)}</td>` +
    `<td class="bar-cell"><span class="lesson-bar" style="width:${(100 * barShare(it.value, lo, hi)).toFixed(1)}%;background:${it.color}"></span></td></tr>`).join("") + `</tbody></table>`;
}
