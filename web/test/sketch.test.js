// The sketchpad's drawing as data: ids, the covariance it states and the
// two export formats.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nodeName, nearestNode, covariance, sketchJSON, sketchCSV, linkKey } from "../src/sketchmodel.js";

function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

test("nodeName: distinct ids A … Z, AA …, as many as a sketch holds", () => {
  const names = Array.from({ length: 800 }, (_, k) => nodeName(k));
  assert.deepEqual(names.slice(0, 3), ["A", "B", "C"]);
  assert.equal(names[25], "Z");
  assert.equal(names[26], "AA");
  assert.equal(names[27], "AB");
  assert.equal(new Set(names).size, names.length);
  for (const n of names) assert.match(n, /^[A-Z]+$/); // never a "-", which splits an OD pair
});

test("nearestNode: the closest crossing within the radius, else none", () => {
  const nodes = [{ id: "A", x: 0, y: 0 }, { id: "B", x: 10, y: 0 }];
  assert.equal(nearestNode(nodes, { x: 6, y: 0 }, 5).id, "B");
  assert.equal(nearestNode(nodes, { x: 5, y: 9 }, 5), null);
});

// Random sketches: the covariance is symmetric, its diagonal the roads' σ²,
// each stated pair ρ σa σb; the JSON carries it beside the roads and flips
// y to north; the CSV has a row per road.
test("covariance and exports agree with the drawing", () => {
  const r = rng(11);
  for (let c = 0; c < 40; c++) {
    const nodes = Array.from({ length: 2 + Math.floor(r() * 8) }, (_, k) => ({ id: nodeName(k), x: Math.round(600 * r()), y: Math.round(400 * r()) }));
    const links = [];
    for (const a of nodes) for (const b of nodes) if (a !== b && r() < 0.4) links.push({ from: a.id, to: b.id, mean: 0.5 + 10 * r(), sd: 3 * r() });
    const corr = [];
    for (let k = 0; k < 3 && links.length > 1; k++) {
      const i = Math.floor(r() * links.length), j = (i + 1) % links.length;
      corr.push({ a: linkKey(links[i]), b: linkKey(links[j]), rho: 2 * r() - 1 });
    }
    const st = { nodes, links, corr };
    const net = JSON.parse(sketchJSON(st, "s", ["A-B"]));
    assert.equal(net.format, "ontime-network");
    assert.deepEqual(net.ods, ["A-B"]);
    assert.deepEqual(net.nodes.map((n) => n.y), nodes.map((n) => -n.y));
    assert.deepEqual(net.links.map((l) => l.variance), links.map((l) => l.sd * l.sd));
    const cov = covariance(st);
    if (!cov) {
      assert.equal(net.correlation.model, "independent");
      continue;
    }
    assert.deepEqual(net.correlation.covariance, cov);
    links.forEach((l, i) => {
      assert.equal(cov[i][i], l.sd * l.sd);
      links.forEach((_, j) => assert.equal(cov[i][j], cov[j][i]));
    });
    const last = new Map(corr.map((p) => [[p.a, p.b].sort().join(" "), p])); // a pair stated twice: the last holds
    for (const p of last.values()) {
      const i = links.findIndex((l) => linkKey(l) === p.a), j = links.findIndex((l) => linkKey(l) === p.b);
      if (i !== j) assert.ok(Math.abs(cov[i][j] - p.rho * links[i].sd * links[j].sd) < 1e-12);
    }
    const rows = sketchCSV(st).trim().split("\n");
    assert.equal(rows[0], "From,To,Cost,Var");
    assert.equal(rows.length, links.length + 1);
  }
});
