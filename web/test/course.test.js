// Link courses on the map: straight links, shaped roads, the side-by-side
// offset of two-way roads and the hover distance.
import { test } from "node:test";
import assert from "node:assert/strict";
import { course, offsetCourse, courseBox, courseDist, networkBox } from "../src/course.js";

const nodes = [{ x: 0, y: 0 }, { x: 10, y: 0 }];

test("course: a straight link is its two nodes; a shaped one passes its bends", () => {
  assert.deepEqual(course(nodes, { from: 0, to: 1 }), [[0, 0], [10, 0]]);
  assert.deepEqual(course(nodes, { from: 1, to: 0, shape: [[5, 5]] }), [[10, 0], [5, 5], [0, 0]]);
});

test("offsetCourse: every segment moves s to the right of travel, at bends too", () => {
  // an L-shaped road: east, then north
  const pts = [[0, 0], [10, 0], [10, 10]];
  const off = offsetCourse(pts, 1);
  for (let i = 1; i < off.length; i++) {
    // each offset segment stays parallel to its road segment at distance 1
    const [a, b] = [pts[i - 1], pts[i]];
    for (const q of [off[i - 1], off[i]]) {
      const dx = b[0] - a[0], dy = b[1] - a[1], len = Math.hypot(dx, dy);
      const side = ((q[0] - a[0]) * dy - (q[1] - a[1]) * dx) / len; // > 0: right of travel
      assert.ok(Math.abs(side - 1) < 1e-9, `segment ${i}: ${side}`);
    }
  }
  // the two directions of a two-way road are drawn apart
  const back = offsetCourse([...pts].reverse(), 1).reverse();
  for (let i = 0; i < pts.length; i++) assert.ok(Math.hypot(off[i][0] - back[i][0], off[i][1] - back[i][1]) >= 2 - 1e-9);
});

test("courseDist and courseBox see the bends, not the chord", () => {
  const pts = course(nodes, { from: 0, to: 1, shape: [[5, 8]] });
  assert.deepEqual(courseBox(pts), [0, 0, 10, 8]);
  assert.ok(Math.abs(courseDist(pts, 5, 8)) < 1e-12);
  assert.ok(courseDist(pts, 5, 0) > 4); // the chord is not the road
});

test("addODPair: picked pairs join the list once", async () => {
  const { addODPair } = await import("../src/util.js");
  assert.equal(addODPair("", "1-6"), "1-6");
  assert.equal(addODPair("1-6, 6-1", "2-5"), "1-6, 6-1, 2-5");
  assert.equal(addODPair("1-6,6-1 ", "6-1"), "1-6, 6-1");
});

test("networkBox: every node and every road's bends", () => {
  const nodes = [{ x: 0, y: 0 }, { x: 10, y: 2 }];
  assert.deepEqual(networkBox(nodes, [{ from: 0, to: 1 }]), [0, 0, 10, 2]);
  assert.deepEqual(networkBox(nodes, [{ from: 0, to: 1, shape: [[5, 7], [-1, 1]] }]), [-1, 0, 10, 7]);
});
