// The map's frame: flat without tiles, Web Mercator on lon/lat with them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mapFrame, tileSettings } from "../src/frame.js";

// Delaware's frame as the server sends it (engine.LocalFrame)
const R = 6378137;
const frame = { lon0: -75.5, lat0: 39.15, metres_per_degree: (Math.PI / 180) * R, cos_lat0: Math.cos((39.15 * Math.PI) / 180) };
const forward = ([lon, lat]) => [(lon - frame.lon0) * frame.metres_per_degree * frame.cos_lat0, (lat - frame.lat0) * frame.metres_per_degree];

test("tileSettings: the body's data-tiles, or null", () => {
  assert.equal(tileSettings({ dataset: {} }), null);
  assert.deepEqual(tileSettings({ dataset: { tiles: "https://t/{z}/{x}/{y}.png", tilesAttribution: "© them" } }), { url: "https://t/{z}/{x}/{y}.png", attribution: "© them" });
});

test("mapFrame: without tiles, or on a planar network, the frame itself (x east, y north)", () => {
  for (const f of [mapFrame({ frame }, null), mapFrame({}, { url: "u" })]) {
    assert.equal(f.mercator, false);
    assert.deepEqual(f.toLatLng(3, 4), [4, 3]);
    assert.deepEqual(f.fromLatLng(4, 3), [3, 4]);
    assert.equal(f.unitsPerPx(2), 0.25);
  }
});

test("mapFrame: on tiles a point goes back to its longitude/latitude, and back again", () => {
  const f = mapFrame({ frame }, { url: "u" });
  assert.equal(f.mercator, true);
  for (const ll of [[-75.5, 39.15], [-75.789, 38.451], [-75.048, 39.839]]) {
    const [lat, lng] = f.toLatLng(...forward(ll));
    assert.ok(Math.abs(lng - ll[0]) < 1e-9 && Math.abs(lat - ll[1]) < 1e-9, `${ll} came back as ${[lng, lat]}`);
    const [x, y] = f.fromLatLng(lat, lng);
    const [x0, y0] = forward(ll);
    assert.ok(Math.abs(x - x0) < 1e-6 && Math.abs(y - y0) < 1e-6);
  }
});

test("mapFrame: a pixel's metres match Web Mercator's scale at the frame's latitude", () => {
  const f = mapFrame({ frame }, { url: "u" });
  // Web Mercator: 2πR·cos φ / (256·2^z) metres a pixel (the OSM wiki's table: 156,543 m at z 0 on the equator)
  for (const z of [0, 10, 17.25]) {
    const want = (2 * Math.PI * R * frame.cos_lat0) / (256 * 2 ** z);
    assert.ok(Math.abs(f.unitsPerPx(z) / want - 1) < 1e-12);
  }
  assert.ok(Math.abs(mapFrame({ frame: { ...frame, cos_lat0: 1 } }, { url: "u" }).unitsPerPx(0) - 156543.034) < 0.001);
});
