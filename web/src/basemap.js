// The Leaflet map both renderers draw on: flat, or on the user's tiles
// (frame.js says which).
import L from "leaflet";
import { mapFrame, tileSettings } from "./frame.js";
import { escapeHTML } from "./util.js";

// baseMap makes the map in el for net; options go to L.map. It returns the
// map, the frame and ll(x, y), a frame point as a Leaflet LatLng.
export function baseMap(el, net, options = {}) {
  const tiles = tileSettings(document.body);
  const frame = mapFrame(net, tiles);
  const map = L.map(el, {
    crs: frame.mercator ? L.CRS.EPSG3857 : L.CRS.Simple, minZoom: frame.minZoom, maxZoom: frame.maxZoom,
    zoomSnap: 0.25, attributionControl: frame.mercator, ...options,
  });
  if (frame.mercator) {
    map.attributionControl.setPrefix(false);
    // The credit is the server operator's text; Leaflet renders it as HTML.
    L.tileLayer(tiles.url, { attribution: escapeHTML(tiles.attribution), maxZoom: frame.maxZoom, subdomains: "abc" }).addTo(map);
    el.dataset.tiles = "on";
  }
  keepOneTabStop(map.getContainer());
  const ll = (x, y) => L.latLng(...frame.toLatLng(x, y));
  return { map, frame, ll };
}

// keepOneTabStop makes a map one Tab stop: the container (arrow keys pan,
// the map's own keys pick nodes). Chromium made every interactive path a
// Tab stop — 79 on Sioux Falls, 871 on Berlin, each panning the map — so
// each one drawn is taken out of the Tab order (still clickable, and
// focusable by script).
function keepOneTabStop(container) {
  const untab = (root) => {
    for (const el of root.querySelectorAll?.(".leaflet-interactive:not([tabindex])") || []) el.setAttribute("tabindex", "-1");
  };
  untab(container);
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) { if (n.matches(".leaflet-interactive:not([tabindex])")) n.setAttribute("tabindex", "-1"); untab(n); }
  }).observe(container, { childList: true, subtree: true });
}
