// The pure front-end modules, under node's built-in test runner (npm test,
// part of make test): figure export, map keys, the story's and lessons'
// figures and arithmetic.
import { test } from "node:test";
import assert from "node:assert/strict";
import { csv } from "../src/figure.js";
import { escapeHTML, fmt } from "../src/util.js";
import { distribution, distributionCSV, niceStep } from "../src/plots.js";
import { bestOfRole } from "../src/lessonmath.js";
import { nodeKey, TYPING_MS } from "../src/nodekeys.js";

test("csv quotes what needs quoting and keeps numbers exact", () => {
  assert.equal(csv([["a", "b"], [1, 0.1 + 0.2], ['say "hi"', "x,y"], ["two\nlines", ""]]),
    'a,b\n1,0.30000000000000004\n"say ""hi""","x,y"\n"two\nlines",\n');
});

test("escapeHTML leaves no markup", () => {
  assert.equal(escapeHTML(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  assert.equal(escapeHTML(42), "42");
});

test("fmt writes a dash for missing numbers", () => {
  assert.equal(fmt(0.5), "0.5000");
  assert.equal(fmt(1 / 3, 2), "0.33");
  for (const x of [null, undefined, NaN]) assert.equal(fmt(x), "–");
});

test("niceStep is 1, 2 or 5 times a power of ten, near its argument", () => {
  for (const [x, want] of [[0.13, 0.1], [0.3, 0.2], [0.6, 0.5], [0.9, 1], [7, 5], [23, 20], [0, 1]]) {
    assert.ok(Math.abs(niceStep(x) - want) < 1e-12, `niceStep(${x}) = ${niceStep(x)}, want ${want}`);
  }
});

test("distribution draws both routes' slices and the budget where it is", () => {
  const routes = [{ times: [10, 11, 12, 13], nodes: [1, 2], sd: 1.2 }, { times: [11.5, 11.6, 11.7, 11.8], nodes: [1, 3, 2], sd: 0.1 }];
  const svg = distribution(routes, 12);
  const bars = svg.match(/<rect /g) || [];
  assert.equal(bars.length, 2 * 30, "30 bins a route");
  // The budget line sits between the extremes, at its share of the range.
  const x = Number(svg.match(/<line x1="([0-9.]+)"[^>]*data-testid="story-budget-line"/)[1]);
  const W = 420, l = 36, r = 10;
  assert.ok(Math.abs(x - (l + ((12 - 10) / 3) * (W - l - r))) < 1e-9, `budget at x = ${x}`);
  assert.match(svg, /fastest on average/);
  assert.match(svg, /B · steadier/);
  // Each route's bars hold all its probability: the tallest is the top of the plot.
  const heights = [...svg.matchAll(/height="([0-9.]+)"/g)].map((m) => Number(m[1]));
  assert.ok(Math.max(...heights) > 0);
});

test("distributionCSV has a row per slice with the budget", () => {
  const text = distributionCSV([{ times: [1, 2], nodes: ["a", "b"] }], ["ring"], 1.5);
  assert.equal(text, "route,nodes,slice,time_minutes,budget_minutes\nring,a-b,0,1,1.5\nring,a-b,1,2,1.5\n");
});

test("bestOfRole takes the best of the methods cast in a role, whatever their names", () => {
  const a = { rates: { p: 0.5, q: 0.6, r: 0.7, s: 0.65 }, roles: { p: "fixed", q: "fixed", r: "adaptive", s: "adaptive" } };
  assert.equal(bestOfRole(a, "fixed"), 0.6);
  assert.equal(bestOfRole(a, "adaptive"), 0.7);
});

test("nodeKey steps, types ids, picks, and leaves other keys to the map", () => {
  const byId = new Map([["1", 0], ["2", 1], ["12", 2]]);
  let s = { cur: -1, typed: "", typedAt: 0 };
  let r = nodeKey(s, "n", 10, byId, 3);
  assert.deepEqual([r.go, r.state.cur], [0, 0]);
  r = nodeKey(r.state, "P", 20, byId, 3);
  assert.equal(r.go, 2, "P wraps round");
  // Digits typed in quick succession name one id ("1" then "12").
  r = nodeKey(r.state, "1", 100, byId, 3);
  assert.equal(r.go, 0);
  r = nodeKey(r.state, "2", 100 + TYPING_MS - 1, byId, 3);
  assert.equal(r.go, 2);
  // A pause starts a new id.
  r = nodeKey(r.state, "2", 100 + 3 * TYPING_MS, byId, 3);
  assert.equal(r.go, 1);
  r = nodeKey(r.state, "9", 100 + 3 * TYPING_MS + 1, byId, 3);
  assert.equal(r.go, undefined);
  assert.equal(r.say, "no node 29 yet");
  r = nodeKey(r.state, "Enter", 0, byId, 3);
  assert.ok(r.pick);
  assert.equal(r.state.typed, "", "the next digits name the next node");
  assert.equal(nodeKey(r.state, "ArrowLeft", 0, byId, 3).handled, false);
  s = { cur: -1, typed: "", typedAt: 0 };
  assert.equal(nodeKey(s, "Enter", 0, byId, 3).handled, false, "nothing to pick yet");
});
