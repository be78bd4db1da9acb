// The home page's story: two routes on ontime's own town, the one fastest
// on average and the one most likely on time, their arrival-time
// distributions with the budget marked (drag it, or move the slider), and
// sampled trips driven one at a time into on-time and late. Every number
// comes from /api/story (the engine); the page only draws.
import L from "leaflet";
import { loadNetwork, drawNetwork } from "./map.js";
import { $, getJSON, fmt, escapeHTML, reducedMotion } from "./util.js";
import { downloads, dragBudget, standaloneSVG } from "./figure.js";
import { ROUTE_COLORS as COLORS, distribution, distributionCSV, distributionDomain, nearestIndex, routeNames } from "./plots.js";
import { tripsPanel } from "./trips.js";

// Okabe–Ito blue and vermillion: apart for every colour vision.

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
  const names = routeNames(story.routes);
  const budgets = story.factors.map((f) => f * story.let_time);
  const domain = distributionDomain(story.routes, budgets);
  let anim = null, labels = [];

  // shown: always two routes, the fastest on average first; the second is
  // the most reliable at this budget, or (where the fastest is also the
  // most reliable) the story's other route.
  function shown(k) {
    return [0, story.best[k] || story.other || 0];
  }

  // label names each shown route on the map, at the middle of its own
  // stretch (the links it does not share with the other route).
  function label(routes) {
    labels.forEach((t) => t.remove());
    const own = routes.map((r, i) => story.routes[r].links.filter((l) => !story.routes[routes[1 - i]].links.includes(l)));
    labels = routes.map((r, i) => {
      const links = own[i].length ? own[i] : story.routes[r].links;
      const l = net.links[links[Math.floor(links.length / 2)]];
      const a = net.nodes[l.from], b = net.nodes[l.to];
      return L.tooltip({ permanent: true, direction: "center", className: `route-label route-label-${i}` })
        .setLatLng([(a.y + b.y) / 2, (a.x + b.x) / 2]).setContent(escapeHTML(names[r])).addTo(m.map);
    });
  }

  const pair = (routes) => routes.map((r, i) => ({ name: names[r], color: COLORS[i], trips: story.routes[r].trips, p: story.routes[r].on_time[Number(slider.value)] }));
  const trips = tripsPanel($("#story-trips"), {
    routes: pair(shown(Number(slider.value))), budget: budgets[Number(slider.value)], domain,
    onTrip: (k, seconds) => { if (seconds >= 0.3 && !reducedMotion()) race(shown(Number(slider.value)), k, seconds); },
  });

  function update() {
    const k = Number(slider.value);
    const f = story.factors[k], budget = budgets[k];
    $("#story-budget-out").textContent = `${fmt(budget, 2)} min (${fmt(f, 2)} × the fastest route's mean)`;
    slider.setAttribute("aria-valuetext", `${fmt(budget, 2)} minutes`);
    const routes = shown(k);
    const best = story.best[k];
    const [a, b] = routes.map((r) => story.routes[r]);
    $("#story-answer").innerHTML = best === 0
      ? `At this budget the route fastest on average is also the one most likely on time: <strong>P = ${fmt(a.on_time[k], 3)}</strong> against ${fmt(b.on_time[k], 3)} for ${escapeHTML(names[routes[1]])}.`
      : `At this budget <span class="swatch" style="background:${COLORS[1]}"></span>${escapeHTML(names[routes[1]])} is the most likely on time: <strong>P = ${fmt(b.on_time[k], 3)}</strong>; <span class="swatch" style="background:${COLORS[0]}"></span>${escapeHTML(names[0])}: P = ${fmt(a.on_time[k], 3)}.`;
    $(".story-routes tbody").innerHTML = routes.map((r, i) => {
      const route = story.routes[r];
      return `<tr data-testid="story-route-${i}"><th scope="row"><span class="swatch" style="background:${COLORS[i]}"></span>${escapeHTML(names[r])}<br><small>${route.nodes.map(escapeHTML).join("→")}</small></th>` +
        `<td>${fmt(route.mean, 2)}</td><td>${fmt(route.sd, 2)}</td><td data-testid="story-p-${i}">${fmt(route.on_time[k], 3)}</td></tr>`;
    }).join("");
    m.clearPaths();
    routes.forEach((r, i) => story.routes[r].links.forEach((l) => m.addStep(`r${i}`, COLORS[i], i, l)));
    label(routes);
    const pick = routes.map((r) => story.routes[r]);
    $("#story-dist").innerHTML = distribution(pick, budget, { domain, names: routes.map((r) => names[r]) });
    data = distributionCSV(pick, routes.map((r) => names[r]), budget);
    $("#story-compare").href = `/compare?net=${encodeURIComponent(story.network)}&o=${encodeURIComponent(story.origin)}&d=${encodeURIComponent(story.destination)}&f=${f}`;
    trips.show(pair(routes), budget);
  }

  // setBudget moves the slider to the grid's budget nearest t (a drag on a
  // figure) and redraws.
  function setBudget(t) {
    const k = nearestIndex(budgets, t);
    if (String(k) === slider.value) return;
    slider.value = String(k);
    update();
  }

  // race drives trip k on the map: one marker per route, leaving together,
  // each crossing its links at the pace of its own arrival time on that
  // day (the links' means scaled to the day's total), the slower arriving
  // after the given seconds.
  function race(routes, k, seconds) {
    if (anim) anim.stop();
    const days = routes.map((r) => story.routes[r].trips[k]);
    const scale = seconds / Math.max(...days);
    const markers = routes.map((r, i) => L.circleMarker([0, 0], { radius: 8, color: "#000", weight: 1, fillColor: COLORS[i], fillOpacity: 1 }).addTo(m.map));
    const t0 = performance.now();
    let id = 0;
    const frame = (now) => {
      const elapsed = (now - t0) / 1000 / scale; // minutes of the day
      let moving = false;
      routes.forEach((r, i) => {
        const route = story.routes[r];
        const pace = days[i] / route.mean;
        let t = elapsed, j = 0;
        const time = (l) => net.links[l].mean * pace;
        while (j < route.links.length && t > time(route.links[j])) { t -= time(route.links[j]); j++; }
        if (j < route.links.length) moving = true;
        const l = net.links[route.links[Math.min(j, route.links.length - 1)]];
        const a = net.nodes[l.from], b = net.nodes[l.to];
        const s = j < route.links.length ? t / time(route.links[j]) : 1;
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
  dragBudget($("#story-dist"), setBudget);
  dragBudget(trips.figure(), setBudget);
  update();
  document.body.dataset.ready = "1";
}
