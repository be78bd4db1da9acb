// A hover tooltip stays inside the map and off its controls whatever the
// pointer's place.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tipBox, tipSide, tipOffset, TIP_GAP } from "../src/tipside.js";

test("tipBox: Leaflet's placement, 8 px of offset and 6 of arrow from the pointer", () => {
  assert.deepEqual(tipBox("top", 100, 100, 40, 20), [80, 66, 120, 86]);
  assert.deepEqual(tipBox("bottom", 100, 100, 40, 20), [80, 114, 120, 134]);
  assert.deepEqual(tipBox("right", 100, 100, 40, 20), [114, 90, 154, 110]);
  assert.deepEqual(tipBox("left", 100, 100, 40, 20), [46, 90, 86, 110]);
});

test("tipSide: above the pointer where the tooltip fits, below it near the top, aside near a side", () => {
  const phone = [365, 560], tip = [230, 40];
  assert.equal(tipSide(182, 300, ...phone, ...tip), "top");
  assert.equal(tipSide(182, 20, ...phone, ...tip), "bottom");
  assert.equal(tipSide(60, 300, ...phone, ...tip), "right"); // centred, 55 px were cut off
  assert.equal(tipSide(330, 300, ...phone, ...tip), "left");
  assert.equal(tipSide(119, 300, 1280, 800, ...tip), "top");
  assert.equal(tipSide(118, 300, 1280, 800, ...tip), "right");
  assert.equal(tipSide(640, 58, 1280, 800, ...tip), "top");
  assert.equal(tipSide(640, 57, 1280, 800, ...tip), "bottom");
  // Sioux Falls on a phone: the zoom buttons (10-44 × 10-74) covered "link"
  const zoom = [[10, 10, 44, 74]];
  assert.equal(tipSide(300, 100, ...phone, ...tip, zoom), "left");
  assert.equal(tipSide(130, 100, ...phone, ...tip, zoom), "bottom");
  assert.equal(tipSide(130, 100, ...phone, ...tip), "top");
});

// The invariant: wherever the pointer is, a tooltip no wider than half
// the map (less the gap and the arrow's 6 px) lies inside it and off a
// control in its corner, but for a pointer near a corner, where no side
// has room (then it goes aside).
test("tipSide: a tooltip lies inside the map and off its controls wherever one fits", () => {
  const pad = 4;
  for (const [w, h] of [[320, 400], [365, 560], [768, 500], [1280, 800]]) {
    const controls = [[10, 10, 44, 74], [w - 150, h - 20, w, h]];
    for (let tipW = 20; tipW <= w / 2 - TIP_GAP - 6 - pad; tipW += 23) {
      for (const tipH of [18, 40, 60]) {
        for (let x = 0; x <= w; x += 2.5) {
          for (let y = 0; y <= h; y += 6.5) {
            // whether the tooltip on side s lies pad inside the map and off every control
            const fits = (s) => {
              const [l, t, r, b] = tipBox(s, x, y, tipW, tipH);
              return l >= pad && t >= pad && r <= w - pad && b <= h - pad && !controls.some(([al, at, ar, ab]) => l < ar && r > al && t < ab && b > at);
            };
            const side = tipSide(x, y, w, h, tipW, tipH, controls, pad);
            if (fits(side)) continue;
            // none fits: every side is out or covered
            for (const s of ["top", "bottom", "right", "left"]) {
              assert.ok(!fits(s), `map ${w}×${h}, tooltip ${tipW}×${tipH}, pointer (${x}, ${y}): ${side} crosses an edge or a control, ${s} would not`);
            }
            // and that happens only near the map's top or bottom edge
            assert.ok(y < tipH / 2 + pad + 80 || y > h - tipH / 2 - pad - 30, `map ${w}×${h}, tooltip ${tipW}×${tipH}, pointer (${x}, ${y}): no side fits`);
          }
        }
      }
    }
  }
});

test("tipOffset: the gap, away from the pointer", () => {
  assert.deepEqual(tipOffset("top"), [0, -TIP_GAP]);
  assert.deepEqual(tipOffset("bottom"), [0, TIP_GAP]);
  assert.deepEqual(tipOffset("right"), [TIP_GAP, 0]);
  assert.deepEqual(tipOffset("left"), [-TIP_GAP, 0]);
});

test("tipSide: where no side fits, the side that shows the most of the tooltip", () => {
  // Sioux Falls on a phone, pointer by the right edge at the zoom buttons'
  // height: above and below cross the right edge by 40 px (above, the top
  // edge too), to the left the buttons cover 25 px of it
  const phone = [365, 560], tip = [245, 52], zoom = [[10, 10, 44, 74]];
  assert.equal(tipSide(278, 40, ...phone, ...tip, zoom), "left");
  // a tooltip wider than the map: centred above shows the most
  assert.equal(tipSide(182, 300, ...phone, 400, 40), "top");
});
