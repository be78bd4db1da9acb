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
  const ll = (x, y) => L.latLng(...frame.toLatLng(x, y));
  return { map, frame, ll };
}
