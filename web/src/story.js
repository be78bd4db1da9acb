// The home page's story: two routes on ontime's own town, the one fastest
// on average and the one most likely on time, their arrival-time
// distributions with the budget marked, and one budget slider. Every number
// comes from /api/story (the engine); the page only draws.
import L from "leaflet";
import { loadNetwork, drawNetwork } from "./map.js";
import { $, getJSON, fmt } from "./util.js";
import { downloads, standaloneSVG } from "./figure.js";
import { ROUTE_COLORS as COLORS, distribution, distributionCSV } from "./plots.js";

// Okabe–Ito blue and vermillion: apart for every colour vision.
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
