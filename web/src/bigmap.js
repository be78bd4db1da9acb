// The map of a city-sized network (thousands of links): one canvas, no DOM
// per link or node. Links are drawn as a few multi-segment polylines, one
// per shade; hover and clicks find the nearest link or node through a grid
// index, so the cost of a mouse move does not grow with the network.
import L from "leaflet";
import { baseMap } from "./basemap.js";
import { pickByKeyboard } from "./mapkeys.js";
import { escapeHTML } from "./util.js";
import { course, courseDist } from "./course.js";
import { tipOffset, turnTooltip } from "./tipside.js";

// BIG_LINKS is where the map switches from one SVG path per link (hover
// and click handlers on each) to this renderer.
export const BIG_LINKS = 3000;

const SHADES = 8; // colour classes a shading is drawn in
const HOVER_PX = 6; // how near the pointer a link must be to be picked
const CLICK_PX = 10; // how near a click must be to a node
// HAIRLINE_LINKS: above this many links in view they are drawn a pixel
// wide (a wider stroke of 280,000 segments took a second to rasterize).
const HAIRLINE_LINKS = 20000;

// boxIndex buckets items by the cells their boxes touch (box[4i..4i+3]:
// item i's minX, minY, maxX, maxY), in two typed arrays (each cell's items
// are items[first[k]..first[k+1]]): at 249,000 links a Map of arrays took
// a second to build and most of the page's memory.
function boxIndex(box, count, minX, minY, cell, cols, rows) {
  const clampX = (x) => Math.max(0, Math.min(cols - 1, Math.floor((x - minX) / cell)));
  const clampY = (y) => Math.max(0, Math.min(rows - 1, Math.floor((y - minY) / cell)));
  const each = (fn) => {
    for (let i = 0; i < count; i++) {
      const cx1 = clampX(box[4 * i + 2]), cy0 = clampY(box[4 * i + 1]), cy1 = clampY(box[4 * i + 3]);
      for (let cx = clampX(box[4 * i]); cx <= cx1; cx++) for (let cy = cy0; cy <= cy1; cy++) fn(cy * cols + cx, i);
    }
  };
  const first = new Int32Array(cols * rows + 1);
  each((k) => first[k + 1]++);
  for (let k = 0; k < cols * rows; k++) first[k + 1] += first[k];
  const items = new Int32Array(first[cols * rows]), fill = first.slice(0, cols * rows);
  each((k, i) => { items[fill[k]++] = i; });
  // near calls fn for each item in the cells within r of (x, y).
  return (x, y, r, fn) => {
    for (let cx = clampX(x - r); cx <= clampX(x + r); cx++) {
      for (let cy = clampY(y - r); cy <= clampY(y + r); cy++) {
        const k = cy * cols + cx;
        for (let j = first[k]; j < first[k + 1]; j++) fn(items[j]);
      }
    }
  };
}

// flatBends lays the links' shapes out as fromColumns keeps them (map.js):
// for networks given with an object per link.
function flatBends(links) {
  const at = new Int32Array(links.length + 1), xy = [];
  links.forEach((l, i) => {
    for (const [x, y] of l.shape || []) xy.push(x, y);
    at[i + 1] = xy.length / 2;
  });
  return { at, xy };
}

// zoom0 returns at0(x, y, dst, k): a frame point's pixel at zoom 0, written
// to dst[k], dst[k + 1]. On a flat map that is affine in (x, y) and is
// computed from three of Leaflet's projections; on tiles (Mercator) each
// point goes through Leaflet.
function zoom0(map, frame, at) {
  if (frame.mercator) {
    return (x, y, dst, k) => {
      const p = map.project(at(x, y), 0);
      dst[k] = p.x; dst[k + 1] = p.y;
    };
  }
  const o = map.project(at(0, 0), 0), ex = map.project(at(1, 0), 0).subtract(o), ey = map.project(at(0, 1), 0).subtract(o);
  return (x, y, dst, k) => {
    dst[k] = o.x + x * ex.x + y * ey.x;
    dst[k + 1] = o.y + x * ex.y + y * ey.y;
  };
}

// NetCanvas is a Leaflet canvas that strokes the network itself: every
// course projected once (at zoom 0) into one array, and after each pan or
// zoom one path per shade over the links whose boxes meet the canvas.
// Leaflet's canvas still sizes, places and animates it. A Leaflet polyline
// per shade re-projected every point at each redraw, and shared its canvas
// with the hover highlight, so each hover redrew the network: at 249,000
// links, 14 s to first paint and 6 frames a second under the pointer.
const NetCanvas = L.Canvas.extend({
  // setNetwork takes the links' points at zoom 0 (pts[2k], pts[2k+1]; link
  // i's from start[i] to start[i+1]), their boxes, and the shades: a
  // colour and the links drawn in it each.
  setNetwork(pts, start, box, shades) {
    Object.assign(this, { _pts: pts, _start: start, _box: box, _shades: shades });
    if (this._map) this._update();
  },
  // The stroke waits for the next frame, once however many moves came
  // before it: typing a node's number pans the map at each digit, and each
  // pan drew the whole network before the next key was read.
  _update() {
    const animating = this._map._animatingZoom && this._bounds;
    L.Canvas.prototype._update.call(this);
    if (!animating && this._pts && !this._frame) {
      this._frame = L.Util.requestAnimFrame(() => {
        this._frame = null;
        if (this._map) this._drawNet();
      });
    }
  },
  _drawNet() {
    const map = this._map, ctx = this._ctx, b = this._bounds;
    const s = map.getZoomScale(map.getZoom(), 0), o = map.getPixelOrigin();
    const pad = 4 / s; // a stroke's width, at zoom 0
    const x0 = (b.min.x + o.x) / s - pad, x1 = (b.max.x + o.x) / s + pad;
    const y0 = (b.min.y + o.y) / s - pad, y1 = (b.max.y + o.y) / s + pad;
    const { _pts: P, _start: S, _box: B } = this;
    const out = (i) => B[4 * i] > x1 || B[4 * i + 2] < x0 || B[4 * i + 1] > y1 || B[4 * i + 3] < y0;
    let shown = 0;
    for (let i = 0; i < S.length - 1; i++) if (!out(i)) shown++;
    ctx.save();
    // Square joins, opaque, and one pixel wide where many links show: a
    // stroke of one pixel or less is rasterized as a hairline, ten times
    // faster without a GPU than a wider one (round joins and alpha cost a
    // second more at 112,000 links).
    ctx.lineWidth = shown > HAIRLINE_LINKS ? 1 : 2;
    for (const { color, links } of this._shades) {
      ctx.beginPath();
      ctx.strokeStyle = color;
      for (const i of links) {
        if (out(i)) continue;
        ctx.moveTo(P[2 * S[i]] * s - o.x, P[2 * S[i] + 1] * s - o.y);
        for (let k = S[i] + 1; k < S[i + 1]; k++) ctx.lineTo(P[2 * k] * s - o.x, P[2 * k + 1] * s - o.y);
      }
      ctx.stroke();
    }
    ctx.restore();
  },
});

export function drawBigNetwork(el, net, { onNodeClick } = {}, { ramp, fmt }) {
  // the network on a canvas of its own; the highlight, markers and routes
  // on the map's default canvas above it, so drawing them leaves it be
  const renderer = L.canvas({ padding: 0.3 });
  const { map, frame, ll: at } = baseMap(el, net, { preferCanvas: true, renderer });
  // Leaflet makes a renderer's canvas when its first layer comes: here the
  // first hover's highlight, which then took a frame of 33-67 ms (the e2e
  // frame measures). It is made with the map instead.
  map.addLayer(renderer);
  el.dataset.renderer = "canvas";
  const ll = (n) => at(n.x, n.y);
  const N = net.nodes, E = net.links;
  // every road's bends, flat (link i's are bend k in [at[i], at[i + 1]):
  // x = xy[2k], y = xy[2k + 1])
  const { at: bendAt, xy: bendXY } = net.bends || flatBends(E);
  // the view (and the index) holds every node and every road's bends
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  const extend = (x, y) => { minX = Math.min(minX, x); minY = Math.min(minY, y); maxX = Math.max(maxX, x); maxY = Math.max(maxY, y); };
  for (const n of N) extend(n.x, n.y);
  for (let k = 0; k < bendXY.length; k += 2) extend(bendXY[k], bendXY[k + 1]);
  const side = Math.max(maxX - minX, maxY - minY) || 1;
  const cols = 256, cell = side / cols;
  map.fitBounds(L.latLngBounds(at(minX, minY), at(maxX, maxY)).pad(0.05));
  // every link's points at zoom 0 (for drawing) and its box in the frame
  // (for the index), in typed arrays: no array per link or point
  const start = new Int32Array(E.length + 1);
  for (let i = 0; i < E.length; i++) start[i + 1] = start[i] + 2 + bendAt[i + 1] - bendAt[i];
  const pts = new Float64Array(2 * start[E.length]), box = new Float64Array(4 * E.length), frameBox = new Float64Array(4 * E.length);
  const at0 = zoom0(map, frame, at);
  const nodeAt0 = new Float64Array(2 * N.length);
  N.forEach((n, i) => at0(n.x, n.y, nodeAt0, 2 * i));
  E.forEach((l, i) => {
    const a = N[l.from], b = N[l.to];
    let k = 2 * start[i];
    pts[k] = nodeAt0[2 * l.from]; pts[k + 1] = nodeAt0[2 * l.from + 1];
    let fx0 = Math.min(a.x, b.x), fy0 = Math.min(a.y, b.y), fx1 = Math.max(a.x, b.x), fy1 = Math.max(a.y, b.y);
    for (let j = bendAt[i]; j < bendAt[i + 1]; j++) {
      const x = bendXY[2 * j], y = bendXY[2 * j + 1];
      at0(x, y, pts, (k += 2));
      fx0 = Math.min(fx0, x); fy0 = Math.min(fy0, y); fx1 = Math.max(fx1, x); fy1 = Math.max(fy1, y);
    }
    k += 2;
    pts[k] = nodeAt0[2 * l.to]; pts[k + 1] = nodeAt0[2 * l.to + 1];
    let bx0 = Infinity, by0 = Infinity, bx1 = -Infinity, by1 = -Infinity;
    for (let j = 2 * start[i]; j <= k; j += 2) {
      bx0 = Math.min(bx0, pts[j]); by0 = Math.min(by0, pts[j + 1]); bx1 = Math.max(bx1, pts[j]); by1 = Math.max(by1, pts[j + 1]);
    }
    box[4 * i] = bx0; box[4 * i + 1] = by0; box[4 * i + 2] = bx1; box[4 * i + 3] = by1;
    frameBox[4 * i] = fx0; frameBox[4 * i + 1] = fy0; frameBox[4 * i + 2] = fx1; frameBox[4 * i + 3] = fy1;
  });
  const linkAt = boxIndex(frameBox, E.length, minX, minY, cell, cols, cols);
  const nodeBox = new Float64Array(4 * N.length);
  N.forEach((n, i) => nodeBox.set([n.x, n.y, n.x, n.y], 4 * i));
  const nodeAt = boxIndex(nodeBox, N.length, minX, minY, cell, cols, cols);
  map.createPane("network").style.zIndex = "350"; // under the overlay pane (400)
  const network = new NetCanvas({ padding: 0.3, pane: "network" }).addTo(map);
  const seg = (i) => course(N, E[i]).map(([x, y]) => at(x, y));
  function draw(classOf) {
    const members = Array.from({ length: SHADES }, () => []);
    E.forEach((l, i) => members[classOf(i)].push(i));
    network.setNetwork(pts, start, box, members.map((links, k) => ({ color: ramp(k / (SHADES - 1)), links: Int32Array.from(links) })));
    el.dataset.linksDrawn = String(E.length);
  }
  draw(() => 0);

  function colorBy(what) {
    const vals = E.map((l) => (what === "cv" ? l.sd / l.mean : l.mean));
    const sorted = Float64Array.from(vals).sort(); // typed: a numeric sort without a comparator call per pair
    const lo = sorted[0], hi = sorted[Math.floor(sorted.length * 0.98)] || sorted[sorted.length - 1];
    draw((i) => Math.max(0, Math.min(SHADES - 1, Math.floor(((vals[i] - lo) / (hi - lo || 1)) * SHADES))));
    return { lo, hi, label: what === "cv" ? "coefficient of variation" : "mean time (min)", ramp };
  }

  // hover: the nearest link within HOVER_PX, one highlight and one tooltip
  const hi = L.polyline([], { renderer, weight: 5, color: "#08306b", interactive: false });
  const tip = L.tooltip({ sticky: true, direction: "top", offset: tipOffset("top") });
  let pending = null, pendingAt = null, queued = false, hovered = -1;
  const perPx = () => frame.unitsPerPx(map.getZoom());
  // the index and the courses are in the frame: pointer positions go back to it
  const xy = (latlng) => frame.fromLatLng(latlng.lat, latlng.lng);
  map.on("mousemove", (ev) => {
    pending = ev.latlng;
    pendingAt = ev.containerPoint;
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      const p = pending, [px, py] = xy(p);
      const r = HOVER_PX * perPx();
      let best = -1, bestD = r;
      linkAt(px, py, r, (i) => {
        const d = courseDist(course(N, E[i]), px, py);
        if (d < bestD) { best = i; bestD = d; }
      });
      if (best < 0) {
        unhover();
        return;
      }
      // Along one link only the tooltip moves: the highlight and the text
      // are redrawn when the pointer reaches another link.
      if (best !== hovered || !map.hasLayer(tip)) {
        hovered = best;
        const l = E[best];
        hi.setLatLngs(seg(best)).addTo(map);
        tip.setContent(`link ${escapeHTML(l.id + 1)}: ${escapeHTML(N[l.from].id)} → ${escapeHTML(N[l.to].id)}<br>mean ${fmt(l.mean)} min, σ ${fmt(l.sd)} min, CV ${fmt(l.sd / l.mean)}`);
        if (!map.hasLayer(tip)) tip.setLatLng(p).addTo(map);
      }
      // near the map's edges the tooltip turns below or aside
      turnTooltip(tip, pendingAt, map);
      tip.setLatLng(p);
    });
  });
  function unhover() {
    hovered = -1;
    hi.remove();
    map.closeTooltip(tip);
  }
  map.on("mouseout", unhover);
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
