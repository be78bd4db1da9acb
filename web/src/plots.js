// Pure figure-making for the story and the lessons: strings and numbers
// in, SVG and CSV text out, no page and no map, so node's test runner
// checks them (web/test).
import { fmt } from "./util.js";
import { csv } from "./figure.js";

// SERIES_COLORS draw what is not a method (routes, budgets): apart from
// every method's colour (CIEDE2000 ≥ 16) so a route is never read as a
// method, 3:1 on white (web/colors_test.go holds both). ROUTE_COLORS are
// the story's two routes: fastest on average, most likely on time. The
// first is magenta, not blue: blue read as dot's route on every other page.
export const SERIES_COLORS = ["#c20aa3", "#36a300", "#194d4d", "#1f44ff"];
export const ROUTE_COLORS = SERIES_COLORS.slice(0, 2);
const COLORS = ROUTE_COLORS;

// routeNames names the routes shown (the story's routes, the fastest on
// average first) the same way on every page: a letter for the map, then
// what sets the route apart.
export function routeNames(routes) {
  return routes.map((r, i) => {
    const letter = String.fromCharCode(65 + i);
    if (i === 0) return `${letter} · fastest on average`;
    return `${letter} · ${r.sd < routes[0].sd ? "steadier" : "more spread"}`;
  });
}

// distributionDomain is the time axis of a story's figures: every route's
// arrival times and every budget of the grid, so the axis stays put while
// the budget moves (the line is dragged across a still figure).
export function distributionDomain(routes, budgets) {
  const all = routes.flatMap((r) => r.times.concat(r.trips || [])).concat(budgets);
  return [Math.min(...all), Math.max(...all)];
}

// distribution draws the routes' arrival-time histograms (from the
// engine's quantiles: equal-probability slices) with the budget marked.
// The legend sits above the plot, outside the data. domain fixes the time
// axis ([lo, hi]); the svg carries its axis (data-lo, data-hi, data-x0,
// data-x1 in viewBox units) so dragBudget can map a pointer to a time.
export function distribution(routes, budget, { domain, names } = {}) {
  const W = 420, H = 170, pad = { l: 36, r: 10, t: 8, b: 30 };
  names = names || routeNames(routes);
  const all = routes.flatMap((r) => r.times).concat([budget]);
  const [lo, hi] = domain || [Math.min(...all), Math.max(...all)];
  const bins = 30, width = (hi - lo) / bins || 1;
  const hists = routes.map((r) => {
    const h = new Array(bins).fill(0);
    r.times.forEach((t) => { h[Math.min(bins - 1, Math.floor((t - lo) / width))] += 1 / r.times.length; });
    return h;
  });
  const top = Math.max(...hists.flat()) || 1;
  const x = (t) => pad.l + ((t - lo) / (hi - lo || 1)) * (W - pad.l - pad.r);
  const y = (p) => H - pad.b - (p / top) * (H - pad.t - pad.b);
  const bars = hists.map((h, i) => h.map((p, b) => {
    const x0 = x(lo + b * width), x1 = x(lo + (b + 1) * width);
    return `<rect x="${x0.toFixed(1)}" y="${y(p).toFixed(1)}" width="${Math.max(0, x1 - x0 - 1).toFixed(1)}" height="${(H - pad.b - y(p)).toFixed(1)}" fill="${COLORS[i]}" fill-opacity="0.45" stroke="${COLORS[i]}"/>`;
  }).join("")).join("");
  const ticks = [];
  const step = niceStep((hi - lo) / 5);
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) {
    ticks.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${H - pad.b}" y2="${H - pad.b + 4}" stroke="#555"/><text x="${x(t)}" y="${H - pad.b + 16}" text-anchor="middle">${fmt(t, step < 1 ? 1 : 0)}</text>`);
  }
  const legend = routes.map((r, i) => `<span class="story-key"><span class="swatch" style="background:${COLORS[i]}"></span>${names[i]}</span>`).join(" ");
  return `<div class="story-legend">${legend} <span class="story-key"><span class="swatch budget"></span>budget<span class="screen-only"> (drag it)</span></span></div>` +
    `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Arrival-time distributions of the routes, the budget at ${fmt(budget, 2)} minutes" data-testid="story-dist-svg"` +
    ` data-lo="${lo}" data-hi="${hi}" data-x0="${pad.l}" data-x1="${W - pad.r}">` +
    `${bars}<line x1="${pad.l}" x2="${W - pad.r}" y1="${H - pad.b}" y2="${H - pad.b}" stroke="#555"/>${ticks.join("")}` +
    budgetLine(x(budget), pad.t, H - pad.b, "story-budget-line") +
    `<text x="${(W + pad.l) / 2}" y="${H - 2}" text-anchor="middle">arrival time (min)</text></svg>`;
}

// budgetLine is the dashed budget mark with a wide invisible grip, so a
// pointer need not hit a 2-px line to drag it.
export function budgetLine(x, y0, y1, testid) {
  return `<line x1="${x}" x2="${x}" y1="${y0}" y2="${y1}" stroke="transparent" stroke-width="18" class="budget-grip"/>` +
    `<line x1="${x}" x2="${x}" y1="${y0}" y2="${y1}" stroke="#000" stroke-width="2" stroke-dasharray="5 3" pointer-events="none" data-testid="${testid}"/>`;
}

// nearestIndex is the index of the value in xs nearest to v.
export function nearestIndex(xs, v) {
  let best = 0;
  xs.forEach((x, i) => { if (Math.abs(x - v) < Math.abs(xs[best] - v)) best = i; });
  return best;
}

// distributionCSV is the data of distribution: each route's arrival-time
// quantiles (equal-probability slices, from the engine) and the budget.
export function distributionCSV(routes, names, budget) {
  const rows = [["route", "nodes", "slice", "time_minutes", "budget_minutes"]];
  routes.forEach((r, i) => r.times.forEach((t, k) => rows.push([names[i], r.nodes.join("-"), k, t, budget])));
  return csv(rows);
}

// niceStep rounds a tick spacing to 1, 2 or 5 times a power of ten.
export function niceStep(x) {
  const p = Math.pow(10, Math.floor(Math.log10(x || 1)));
  const f = x / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}
