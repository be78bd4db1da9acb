// The home page's story: two routes on ontime's own town, the one fastest
// on average and the one most likely on time, their arrival-time
// distributions with the budget marked, and one budget slider. Every number
// comes from /api/story (the engine); the page only draws.
import L from "leaflet";
import { loadNetwork, drawNetwork } from "./map.js";
import { $, getJSON, fmt } from "./util.js";
import { csv, downloads, standaloneSVG } from "./figure.js";

// Okabe–Ito blue and vermillion: apart for every colour vision.
const COLORS = ["#0072B2", "#D55E00"];
const reduced = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

export async function storyPage() {
  const el = $("#story");
  const name = el.dataset.network;
  const [net, story] = await Promise.all([loadNetwork(name), getJSON(`/api/story?net=${encodeURIComponent(name)}`)]);
  const m = drawNetwork($("#story-map"), net);
  m.markNode(net.nodes.findIndex((n) => n.id === story.origin), "origin");
  m.markNode(net.nodes.findIndex((n) => n.id === story.destination), "dest");
  const slider = $("#story-budget");
  slider.max = String(story.factors.length - 1);
  slider.step = "1";
  slider.value = String(Math.max(0, story.factors.indexOf(story.factor)));
  let anim = null;

  function shown(k) {
    const best = story.best[k];
    return best === 0 ? [0] : [0, best];
  }

  function update() {
    const k = Number(slider.value);
    const f = story.factors[k], budget = f * story.let_time;
    $("#story-budget-out").textContent = `${fmt(budget, 2)} min (${fmt(f, 2)} × the fastest route's mean)`;
    slider.setAttribute("aria-valuetext", `${fmt(budget, 2)} minutes`);
    const routes = shown(k);
    const best = story.best[k];
    $("#story-answer").innerHTML = best === 0
      ? `At this budget the route fastest on average is also the one most likely on time: <strong>P = ${fmt(story.routes[0].on_time[k], 3)}</strong>.`
      : `At this budget the <span class="swatch" style="background:${COLORS[1]}"></span>most reliable route arrives on time with <strong>P = ${fmt(story.routes[best].on_time[k], 3)}</strong>, the <span class="swatch" style="background:${COLORS[0]}"></span>fastest on average with P = ${fmt(story.routes[0].on_time[k], 3)}.`;
    const body = $(".story-routes tbody");
    body.innerHTML = routes.map((r, i) => {
      const route = story.routes[r];
      const label = i === 0 ? "fastest on average" : "most likely on time";
      return `<tr data-testid="story-route-${i}"><th scope="row"><span class="swatch" style="background:${COLORS[i]}"></span>${label}<br><small>${route.nodes.join("→")}</small></th>` +
        `<td>${fmt(route.mean, 2)}</td><td>${fmt(route.sd, 2)}</td><td data-testid="story-p-${i}">${fmt(route.on_time[k], 3)}</td></tr>`;
    }).join("");
    m.clearPaths();
    routes.forEach((r, i) => story.routes[r].links.forEach((l) => m.addStep(`r${i}`, COLORS[i], i, l)));
    $("#story-dist").innerHTML = distribution(routes.map((r) => story.routes[r]), budget);
    data = distributionCSV(routes.map((r) => story.routes[r]), ["fastest on average", "most likely on time"], budget);
    $("#story-compare").href = `/compare?net=${encodeURIComponent(story.network)}&o=${encodeURIComponent(story.origin)}&d=${encodeURIComponent(story.destination)}&f=${f}`;
    animate(routes);
  }

  // animate drives one marker per route through realization 0 of the test
  // pool (its realized link times), a minute of travel in a second.
  function animate(routes) {
    if (anim) anim.stop();
    if (reduced()) return;
    const markers = routes.map((r, i) => L.circleMarker([0, 0], { radius: 8, color: "#000", weight: 1, fillColor: COLORS[i], fillOpacity: 1 }).addTo(m.map));
    const t0 = performance.now();
    let id = 0;
    const frame = (now) => {
      const minutes = (now - t0) / 1000;
      let moving = false;
      routes.forEach((r, i) => {
        const route = story.routes[r];
        let t = minutes;
        let k = 0;
        while (k < route.links.length && t > route.drive[k]) { t -= route.drive[k]; k++; }
        if (k < route.links.length) moving = true;
        const l = net.links[route.links[Math.min(k, route.links.length - 1)]];
        const a = net.nodes[l.from], b = net.nodes[l.to];
        const s = k < route.links.length ? t / route.drive[k] : 1;
        markers[i].setLatLng([a.y + (b.y - a.y) * s, a.x + (b.x - a.x) * s]);
      });
      if (moving) id = requestAnimationFrame(frame);
    };
    id = requestAnimationFrame(frame);
    anim = { stop() { cancelAnimationFrame(id); markers.forEach((mk) => mk.remove()); } };
  }

  let data = "";
  $("#story-dist").after(downloads("story-distribution", () => ({ svg: standaloneSVG($("#story-dist svg"), $("#story-dist .story-legend")), csv: data })));
  slider.addEventListener("input", update);
  update();
  document.body.dataset.ready = "1";
}

// distribution draws the routes' arrival-time histograms (from the
// engine's quantiles: equal-probability slices) with the budget marked.
// The legend sits above the plot, outside the data.
export function distribution(routes, budget) {
  const W = 420, H = 170, pad = { l: 36, r: 10, t: 8, b: 30 };
  const all = routes.flatMap((r) => r.times).concat([budget]);
  const lo = Math.min(...all), hi = Math.max(...all);
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
  const legend = routes.map((r, i) => `<span class="story-key"><span class="swatch" style="background:${COLORS[i]}"></span>${i === 0 ? "fastest on average" : "most likely on time"}</span>`).join(" ");
  return `<div class="story-legend">${legend} <span class="story-key"><span class="swatch budget"></span>budget</span></div>` +
    `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Arrival-time distributions of the routes, the budget at ${fmt(budget, 2)} minutes" data-testid="story-dist-svg">` +
    `${bars}<line x1="${pad.l}" x2="${W - pad.r}" y1="${H - pad.b}" y2="${H - pad.b}" stroke="#555"/>${ticks.join("")}` +
    `<line x1="${x(budget)}" x2="${x(budget)}" y1="${pad.t}" y2="${H - pad.b}" stroke="#000" stroke-width="2" stroke-dasharray="5 3" data-testid="story-budget-line"/>` +
    `<text x="${(W + pad.l) / 2}" y="${H - 2}" text-anchor="middle">arrival time (min)</text></svg>`;
}

// distributionCSV is the data of distribution: each route's arrival-time
// quantiles (equal-probability slices, from the engine) and the budget.
export function distributionCSV(routes, names, budget) {
  const rows = [["route", "nodes", "slice", "time_minutes", "budget_minutes"]];
  routes.forEach((r, i) => r.times.forEach((t, k) => rows.push([names[i], r.nodes.join("-"), k, t, budget])));
  return csv(rows);
}

function niceStep(x) {
  const p = Math.pow(10, Math.floor(Math.log10(x || 1)));
  const f = x / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}
