// The map of a city-sized network (thousands of links): one canvas, no DOM
// per link or node. Links are drawn as a few multi-segment polylines, one
// per shade; hover and clicks find the nearest link or node through a grid
// index, so the cost of a mouse move does not grow with the network.
import L from "leaflet";
import { baseMap } from "./basemap.js";
import { pickByKeyboard } from "./mapkeys.js";
import { escapeHTML } from "./util.js";
import { course, courseBox, courseDist, networkBox } from "./course.js";

// BIG_LINKS is where the map switches from one SVG path per link (hover
// and click handlers on each) to this renderer.
export const BIG_LINKS = 3000;

const SHADES = 8; // colour classes a shading is drawn in
const HOVER_PX = 6; // how near the pointer a link must be to be picked
const CLICK_PX = 10; // how near a click must be to a node

// gridIndex buckets items by the cells their bounding boxes touch.
function gridIndex(items, box, minX, minY, cell, cols, rows) {
  const cells = new Map();
  const clampX = (x) => Math.max(0, Math.min(cols - 1, Math.floor((x - minX) / cell)));
  const clampY = (y) => Math.max(0, Math.min(rows - 1, Math.floor((y - minY) / cell)));
  items.forEach((it, i) => {
    const [x0, y0, x1, y1] = box(it);
    for (let cx = clampX(x0); cx <= clampX(x1); cx++) {
      for (let cy = clampY(y0); cy <= clampY(y1); cy++) {
        const k = cy * cols + cx;
        if (!cells.has(k)) cells.set(k, []);
        cells.get(k).push(i);
      }
    }
  });
  // near calls fn for each item in the cells within r of (x, y).
  return (x, y, r, fn) => {
    for (let cx = clampX(x - r); cx <= clampX(x + r); cx++) {
      for (let cy = clampY(y - r); cy <= clampY(y + r); cy++) {
        for (const i of cells.get(cy * cols + cx) || []) fn(i);
      }
    }
  };
}

export function drawBigNetwork(el, net, { onNodeClick } = {}, { ramp, fmt }) {
  const renderer = L.canvas({ padding: 0.3 });
  const { map, frame, ll: at } = baseMap(el, net, { preferCanvas: true, renderer });
  el.dataset.renderer = "canvas";
  const ll = (n) => at(n.x, n.y);
  const N = net.nodes, E = net.links;
  // the view (and the index) holds every node and every road's bends
  const [minX, minY, maxX, maxY] = networkBox(N, E);
  const side = Math.max(maxX - minX, maxY - minY) || 1;
  const cols = 256, cell = side / cols;
  const courses = E.map((l) => course(N, l));
  const linkAt = gridIndex(courses, courseBox, minX, minY, cell, cols, cols);
  const nodeAt = gridIndex(N, (n) => [n.x, n.y, n.x, n.y], minX, minY, cell, cols, cols);
  map.fitBounds(L.latLngBounds(at(minX, minY), at(maxX, maxY)).pad(0.05));

  // one polyline per shade: its rings are the links of that class
  let shades = [];
  const seg = (i) => courses[i].map(([x, y]) => at(x, y));
  function draw(classOf) {
    shades.forEach((p) => p.remove());
    const rings = Array.from({ length: SHADES }, () => []);
    E.forEach((l, i) => rings[classOf(i)].push(seg(i)));
    shades = rings.map((r, k) => L.polyline(r, { renderer, weight: 1.5, color: ramp(k / (SHADES - 1)), opacity: 0.9, interactive: false }).addTo(map));
    el.dataset.linksDrawn = String(E.length);
  }
  draw(() => 0);

  function colorBy(what) {
    const vals = E.map((l) => (what === "cv" ? l.sd / l.mean : l.mean));
    const sorted = [...vals].sort((a, b) => a - b);
    const lo = sorted[0], hi = sorted[Math.floor(sorted.length * 0.98)] || sorted[sorted.length - 1];
    draw((i) => Math.max(0, Math.min(SHADES - 1, Math.floor(((vals[i] - lo) / (hi - lo || 1)) * SHADES))));
    return { lo, hi, label: what === "cv" ? "coefficient of variation" : "mean time (min)", ramp };
  }

  // hover: the nearest link within HOVER_PX, one highlight and one tooltip
  const hi = L.polyline([], { renderer, weight: 5, color: "#08306b", interactive: false });
  const tip = L.tooltip({ sticky: true, direction: "top", offset: [0, -8] });
  let pending = null, queued = false;
  const perPx = () => frame.unitsPerPx(map.getZoom());
  // the index and the courses are in the frame: pointer positions go back to it
  const xy = (latlng) => frame.fromLatLng(latlng.lat, latlng.lng);
  map.on("mousemove", (ev) => {
    pending = ev.latlng;
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      const p = pending, [px, py] = xy(p);
      const r = HOVER_PX * perPx();
      let best = -1, bestD = r;
      linkAt(px, py, r, (i) => {
        const d = courseDist(courses[i], px, py);
        if (d < bestD) { best = i; bestD = d; }
      });
      if (best < 0) {
        hi.remove();
        map.closeTooltip(tip);
        return;
      }
      const l = E[best];
      hi.setLatLngs(seg(best)).addTo(map);
      tip.setLatLng(p).setContent(`link ${escapeHTML(l.id)}: ${escapeHTML(N[l.from].id)} → ${escapeHTML(N[l.to].id)}<br>mean ${fmt(l.mean)} min, σ ${fmt(l.sd)} min, CV ${fmt(l.sd / l.mean)}`);
      if (!map.hasLayer(tip)) tip.addTo(map);
    });
  });
  map.on("mouseout", () => { hi.remove(); map.closeTooltip(tip); });
  if (onNodeClick) {
    map.on("click", (ev) => {
      const r = CLICK_PX * perPx(), [cx, cy] = xy(ev.latlng);
      let best = -1, bestD = r;
      nodeAt(cx, cy, r, (i) => {
        const d = Math.hypot(N[i].x - cx, N[i].y - cy);
        if (d < bestD) { best = i; bestD = d; }
      });
      if (best >= 0) onNodeClick(best, N[best]);
    });
    // The keyboard's cursor is one marker that moves from node to node.
    const cursor = L.circleMarker([0, 0], { renderer, radius: 7, color: "#08306b", weight: 3, fill: false, interactive: false });
    cursor.bindTooltip("", { direction: "top", permanent: true });
    pickByKeyboard(el, map, net, onNodeClick, {
      at: (i) => ll(N[i]),
      show: (i) => cursor.setLatLng(ll(N[i])).setTooltipContent(`node ${escapeHTML(N[i].id)}`).addTo(map),
      hide: () => cursor.remove(),
    });
  }

  // only the marked nodes (origin, destination) exist as markers
  const marks = new Map();
  function markNode(i, kind) {
    if (marks.has(i)) {
      marks.get(i).remove();
      marks.delete(i);
    }
    if (kind === "none") return;
    const m = L.circleMarker(ll(N[i]), { renderer, radius: 6, color: "#333", weight: 1, fillColor: kind === "origin" ? "#1a9850" : "#d73027", fillOpacity: 1 });
    m.bindTooltip(`node ${escapeHTML(N[i].id)}`, { direction: "top" });
    marks.set(i, m.addTo(map));
  }

  let routes = [];
  function addStep(key, color, k, linkId) {
    routes.push(L.polyline(seg(linkId), { renderer, weight: 4, color, opacity: 0.95, interactive: false }).addTo(map));
  }
  function clearPaths() {
    routes.forEach((l) => l.remove());
    routes = [];
  }
  return { map, colorBy, addStep, clearPaths, markNode, links: [], nodes: [] };
}
