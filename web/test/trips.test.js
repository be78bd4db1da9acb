// The sampled trips, the budget drag and the predictions, under node's
// test runner: the counting and geometry the pages draw from.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tally, stack, stripsSVG, CUT_COLUMNS } from "../src/trips.js";
import { nearestIndex, routeNames, distribution, distributionDomain } from "../src/plots.js";
import { axisValue } from "../src/figure.js";
import { judgeGuess } from "../src/predict.js";
import { barsFrom, barsTo } from "../src/lesson.js";

// A seeded PCG-like stream (an LCG is enough for test inputs).
function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

test("tally: every trip is on time or late, and on time means arrival ≤ budget", () => {
  const r = rng(7);
  for (let c = 0; c < 50; c++) {
    const times = Array.from({ length: 200 }, () => 3 + 4 * r());
    const n = Math.floor(r() * 200), b = 3 + 4 * r();
    const t = tally(times, n, b);
    assert.equal(t.on + t.late, n);
    assert.equal(t.on, times.slice(0, n).filter((x) => x <= b).length);
  }
  assert.deepEqual(tally([5], 1, 5), { on: 1, late: 0 }, "arriving exactly at the budget is on time");
});

test("stack: one dot per trip, columns grow one level at a time, bins inside the axis", () => {
  const r = rng(11);
  const times = Array.from({ length: 500 }, () => 2 + 6 * r());
  const { dots, top } = stack(times, 500, 2, 8, 30);
  assert.equal(dots.length, 500);
  const height = new Array(30).fill(0);
  for (const d of dots) {
    assert.ok(d.bin >= 0 && d.bin < 30);
    assert.equal(d.level, height[d.bin]++);
  }
  assert.equal(top, Math.max(...height));
  // Times outside the axis land in the end bins rather than off the plot.
  assert.deepEqual(stack([0, 100], 2, 2, 8, 30).dots.map((d) => d.bin), [0, 29]);
});

test("stack: trips with no arrival time fill their own block, never an axis bin", () => {
  const k = CUT_COLUMNS + 1;
  const times = [3, 4, ...new Array(k).fill(NaN), 5];
  const { dots, top } = stack(times, times.length, 2, 8, 30);
  const cut = dots.filter((d) => d.bin >= 30);
  assert.equal(cut.length, k);
  assert.deepEqual(cut.map((d) => [d.bin - 30, d.level]), Array.from({ length: k }, (_, i) => [i % CUT_COLUMNS, Math.floor(i / CUT_COLUMNS)]));
  assert.ok(dots.every((d, i) => Number.isFinite(times[i]) === d.bin < 30));
  assert.equal(top, 2);
  assert.equal(tally(times, times.length, 4.5).late, k + 1, "a cut-off trip is late at any budget");
});

test("stripsSVG draws a dot per trip and route, filled on time, hollow late", () => {
  const routes = [{ name: "A · x", color: "#0072B2", trips: [1, 2, 3, 4] }, { name: "B · y", color: "#D55E00", trips: [2, 2, 5, 1] }];
  const svg = stripsSVG(routes, 3, 2.5, [0, 6]);
  assert.equal((svg.match(/<circle/g) || []).length, 6);
  assert.equal((svg.match(/fill="#fff"/g) || []).length, 2, "one late trip per route among the first three");
  assert.doesNotMatch(svg, /cut off/);
  // Methods are marked by their code; a cut-off trip is drawn hollow in its block.
  const methods = [{ name: "a wide code", short: "widecode", color: "#000", trips: [1, NaN] }, { name: "b", short: "b", color: "#777", trips: [2, 2] }];
  const two = stripsSVG(methods, 2, 2.5, [0, 3]);
  assert.match(two, />widecode</);
  assert.match(two, />cut off</);
  assert.equal((two.match(/fill="#fff"/g) || []).length, 1);
});

test("the budget under a dragged pointer: axisValue inverts the drawing, nearestIndex snaps to the grid", () => {
  const svg = { viewBox: { baseVal: { x: 0, width: 420 } }, dataset: { lo: "2", hi: "10", x0: "36", x1: "410" } };
  const rect = { left: 100, width: 840 }; // drawn at twice its viewBox width
  assert.equal(axisValue(svg, rect, 100 + 2 * 36), 2);
  assert.equal(axisValue(svg, rect, 100 + 2 * 410), 10);
  assert.ok(Math.abs(axisValue(svg, rect, 100 + 2 * 223) - 6) < 1e-9, "the middle of the axis");
  assert.equal(axisValue(svg, rect, 0), 2, "clamped left");
  assert.equal(axisValue(svg, rect, 5000), 10, "clamped right");
  assert.equal(nearestIndex([4, 5, 6, 7], 5.4), 1);
  assert.equal(nearestIndex([4, 5, 6, 7], 99), 3);
  // The drawn budget line sits where axisValue reads it back.
  const routes = [{ times: [3, 4, 5], sd: 1 }, { times: [4, 4.5, 5], sd: 0.3 }];
  const html = distribution(routes, 4.2, { domain: distributionDomain(routes, [3.5, 6]) });
  const x = Number(html.match(/x1="([\d.]+)"[^>]*data-testid="story-budget-line"/)[1]);
  const d = Object.fromEntries([...html.matchAll(/data-(lo|hi|x0|x1)="([\d.]+)"/g)].map((m) => [m[1], m[2]]));
  const back = axisValue({ viewBox: { baseVal: { x: 0, width: 420 } }, dataset: d }, { left: 0, width: 420 }, x);
  assert.ok(Math.abs(back - 4.2) < 1e-9, `budget read back ${back}`);
});

test("routes are named the same way everywhere: a letter, then what sets each apart", () => {
  assert.deepEqual(routeNames([{ sd: 1.5 }, { sd: 0.3 }, { sd: 2 }]), ["A · fastest on average", "B · steadier", "C · more spread"]);
});

test("a prediction is judged against the truth", () => {
  assert.match(judgeGuess(0.74, 0.747), /spot on/);
  assert.match(judgeGuess(0.5, 0.747), /some way off: off by 0\.247/);
});

test("the lesson bars start a tenth below the lowest rate, never below 0", () => {
  assert.equal(barsFrom([{ value: 0.813 }, { value: 0.888 }]), 0.7);
  assert.equal(barsFrom([{ value: 0.03 }, { value: 0.5 }]), 0);
  assert.equal(barsTo([{ value: 0.503 }, { value: 0.548 }]), 0.6);
  assert.equal(barsTo([{ value: 0.97 }, { value: 0.99 }]), 1);
});
