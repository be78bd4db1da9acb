// The map's data: the columns layout the dashboard asks for reads back into
// exactly what the objects layout says (both written by the server's
// TestMapLayoutsCarryTheSameNumbers into testdata).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fromColumns, mapURL } from "../src/mapdata.js";

const read = (name) => JSON.parse(readFileSync(new URL(`./testdata/${name}`, import.meta.url)));
const plain = (l) => {
  const o = { ...l };
  if (l.shape) o.shape = l.shape;
  return o;
};

test("fromColumns: the columns layout reads back into the objects layout", () => {
  const objects = read("map.objects.json"), net = fromColumns(read("map.columns.json"));
  assert.deepEqual({ ...net, links: net.links.map(plain), bends: undefined }, { ...objects, bends: undefined });
  assert.ok(net.links.some((l) => l.shape) && net.links.some((l) => !l.shape), "the fixture has shaped and straight links");
  // the bends stay flat: link i's are at[i]..at[i+1]
  const l = net.links.find((x) => x.shape);
  assert.deepEqual(l.shape.flat(), net.bends.xy.slice(2 * net.bends.at[l.id], 2 * net.bends.at[l.id + 1]));
});

test("fromColumns: without shape_at every link is straight; the objects layout passes through", () => {
  const c = read("map.columns.json");
  delete c.links.shape_at;
  delete c.links.shape;
  const net = fromColumns(c);
  assert.equal(net.bends, null);
  assert.ok(net.links.every((l) => l.shape === undefined));
  const objects = read("map.objects.json");
  assert.equal(fromColumns(objects), objects);
});

test("mapURL: the URL the pages preload (web.MapURL)", () => {
  assert.equal(mapURL("grid250k"), "/api/networks/grid250k?layout=columns");
});
