// The network map: Leaflet with a flat coordinate system (no tiles, works
// offline), or on the user's tile server (basemap.js). Nodes and links come
// from /api/networks/NAME in the drawing frame (metres for lon/lat
// networks); y is north.
import L from "leaflet";
import { baseMap } from "./basemap.js";
import { escapeHTML, getJSON } from "./util.js";
import { fromColumns, mapURL } from "./mapdata.js";
import { BIG_LINKS, drawBigNetwork } from "./bigmap.js";
import { pickByKeyboard } from "./mapkeys.js";
import { course, offsetCourse, networkBox } from "./course.js";
import { tipOffset, turnTooltip } from "./tipside.js";

const fmt = (x, d = 2) => Number(x).toFixed(d);

// colour ramps for link shading (light to dark blue, then to red for CV)
function ramp(t) {
  t = Math.max(0, Math.min(1, t));
  const a = [198, 219, 239], b = [8, 48, 107];
  const c = a.map((v, i) => Math.round(v + (b[i] - v) * t));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

// loadNetwork reads a network's map data: a stored or built-in network by
// name, or src (an upload's preview), as an object per node and per link.
export async function loadNetwork(name, src) {
  return fromColumns(await getJSON(src ? `${src}?layout=columns` : mapURL(name)));
}

export function drawNetwork(el, net, { onNodeClick, onLinkClick } = {}) {
  if (net.links.length > BIG_LINKS) return drawBigNetwork(el, net, { onNodeClick }, { ramp, fmt });
  const { map, ll: at } = baseMap(el, net);
  const ll = (n) => at(n.x, n.y);
  // the view holds every node and every road's bends
  const [x0, y0, x1, y1] = networkBox(net.nodes, net.links);
  const bounds = L.latLngBounds(at(x0, y0), at(x1, y1));
  // Two-way links are drawn side by side: each is shifted to its right by a
  // small fraction of the typical link length.
  const lens = net.links.map((l) => Math.hypot(net.nodes[l.to].x - net.nodes[l.from].x, net.nodes[l.to].y - net.nodes[l.from].y)).sort((a, b) => a - b);
  const shift = (lens[Math.floor(lens.length / 2)] || 1) * 0.035;
  const seg = (l, extra = 0) => offsetCourse(course(net.nodes, l), shift * (1 + extra)).map(([x, y]) => at(x, y));
  const links = net.links.map((l) => {
    const line = L.polyline(seg(l), { weight: 3, color: "#9ecae1", opacity: 0.9 });
    // Ids are the user's text: Leaflet renders a tooltip string as HTML.
    const a = escapeHTML(net.nodes[l.from].id), b = escapeHTML(net.nodes[l.to].id);
    // Before Leaflet's own handler moves the tooltip: near the map's edges
    // it turns below or aside (tipside.js).
    line.on("mousemove", (e) => turnTooltip(line.getTooltip(), e.containerPoint, map));
    line.bindTooltip(`link ${escapeHTML(l.id + 1)}: ${a} → ${b}<br>mean ${fmt(l.mean)} min, σ ${fmt(l.sd)} min, CV ${fmt(l.sd / l.mean)}`, { sticky: true, direction: "top", offset: tipOffset("top") });
    line.on("mouseover", () => line.setStyle({ weight: 6 }));
    line.on("mouseout", () => line.setStyle({ weight: line.options.picked ? 7 : 3 }));
    if (onLinkClick) line.on("click", () => onLinkClick(net.links.indexOf(l)));
    return line.addTo(map);
  });
  const radius = net.nodes.length > 100 ? 3 : 7;
  const nodes = net.nodes.map((n, i) => {
    const m = L.circleMarker(ll(n), { radius, color: "#333", weight: 1, fillColor: "#fff", fillOpacity: 1 });
    // Small networks carry their node ids on the map (teaching); large ones
    // show them on hover.
    const small = net.nodes.length <= 30;
    m.bindTooltip(small ? escapeHTML(n.id) : `node ${escapeHTML(n.id)}`, small ? { permanent: true, direction: "center", className: "node-label" } : { direction: "top" });
    if (onNodeClick) m.on("click", () => onNodeClick(i, n));
    return m.addTo(map);
  });
  map.fitBounds(bounds.pad(0.05));
  if (onNodeClick) {
    pickByKeyboard(el, map, net, onNodeClick, {
      at: (i) => ll(net.nodes[i]),
      show: (i) => nodes[i].openTooltip(),
      hide: (i) => nodes[i].closeTooltip(),
    });
  }

  function colorBy(what) {
    const vals = net.links.map((l) => (what === "cv" ? l.sd / l.mean : l.mean));
    const sorted = [...vals].sort((a, b) => a - b);
    const lo = sorted[0], hi = sorted[Math.floor(sorted.length * 0.98)] || sorted[sorted.length - 1];
    links.forEach((line, i) => line.setStyle({ color: ramp((vals[i] - lo) / (hi - lo || 1)) }));
    return { lo, hi, label: what === "cv" ? "coefficient of variation" : "mean time (min)", ramp };
  }

  const paths = new Map();
  function pathLayer(key, color, k) {
    if (!paths.has(key)) paths.set(key, { k, color, lines: [] });
    return paths.get(key);
  }
  // addStep draws one link of a method's route, offset by the method's slot
  // so that routes sharing a link stay visible.
  function addStep(key, color, k, linkId) {
    const p = pathLayer(key, color, k);
    const line = L.polyline(seg(net.links[linkId], 1.2 + 0.9 * k), { weight: 4, color, opacity: 0.95 }).addTo(map);
    p.lines.push(line);
  }
  // highlight shows one route (key) in full and greys the others; null
  // shows them all again.
  function highlight(key) {
    for (const [k, p] of paths) p.lines.forEach((l) => l.setStyle(key === null || k === key ? { color: p.color, opacity: 0.95 } : { color: "#999", opacity: 0.35 }));
    if (key !== null && paths.has(key)) paths.get(key).lines.forEach((l) => l.bringToFront());
  }
  function clearPaths() {
    for (const p of paths.values()) p.lines.forEach((l) => l.remove());
    paths.clear();
  }
  function markNode(i, kind) {
    const styles = { origin: { fillColor: "#1a9850", radius: radius + 3 }, dest: { fillColor: "#d73027", radius: radius + 3 }, none: { fillColor: "#fff", radius } };
    nodes[i].setStyle(styles[kind]);
    nodes[i].setRadius(styles[kind].radius);
  }
  return { map, colorBy, addStep, clearPaths, highlight, markNode, links, nodes };
}

export function legend(el, scale) {
  if (!el) return;
  const stops = [0, 0.25, 0.5, 0.75, 1];
  el.innerHTML = `<span>${scale.label}:</span>` + stops.map((t) => `<span class="stop"><span class="swatch" style="background:${scale.ramp(t)}"></span>${fmt(scale.lo + t * (scale.hi - scale.lo))}</span>`).join("");
}
