// Dijkstra's on mean link times against Bellman-Ford on many seeded
// random networks: the same shortest time to every node.
import { test } from "node:test";
import assert from "node:assert/strict";
import { shortestTimes } from "../src/paths.js";

function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function bellmanFord(net, o) {
  const dist = net.nodes.map(() => Infinity);
  dist[o] = 0;
  for (let k = 0; k < net.nodes.length; k++) {
    for (const l of net.links) if (dist[l.from] + l.mean < dist[l.to]) dist[l.to] = dist[l.from] + l.mean;
  }
  return dist;
}

test("shortestTimes equals Bellman-Ford on random networks", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const r = rng(seed);
    const n = 2 + Math.floor(r() * 30), m = Math.floor(r() * n * 4);
    const net = { nodes: Array.from({ length: n }, (_, i) => ({ id: String(i) })), links: [] };
    for (let k = 0; k < m; k++) net.links.push({ from: Math.floor(r() * n), to: Math.floor(r() * n), mean: 0.1 + r() * 10 });
    const o = Math.floor(r() * n);
    const got = [...shortestTimes(net, o)], want = bellmanFord(net, o);
    for (let i = 0; i < n; i++) {
      if (want[i] === Infinity) assert.equal(got[i], Infinity, `seed ${seed}: node ${i} unreachable`);
      else assert.ok(Math.abs(got[i] - want[i]) < 1e-9, `seed ${seed}: node ${i}: ${got[i]} vs ${want[i]}`);
    }
  }
});
