// A page that follows a job asks again when a request fails, and gives up
// with the last failure after the tries it was given.
import { test } from "node:test";
import assert from "node:assert/strict";
import { patiently } from "../src/util.js";

// failing answers fails times, then ok.
function failing(fails) {
  let n = 0;
  return async () => {
    n++;
    if (n <= fails) throw new Error(`failure ${n}`);
    return "ok";
  };
}

test("a request that fails fewer times than the tries is answered, each retry told", async () => {
  for (let fails = 0; fails < 5; fails++) {
    const told = [];
    assert.equal(await patiently(failing(fails), (err, n) => told.push(`${n}: ${err.message}`), 5, 1), "ok");
    assert.deepEqual(told, Array.from({ length: fails }, (_, i) => `${i + 1}: failure ${i + 1}`));
  }
});

test("a request that fails every try throws its last failure", async () => {
  let retries = 0;
  await assert.rejects(patiently(failing(5), () => retries++, 5, 1), /failure 5/);
  assert.equal(retries, 4);
  await assert.rejects(patiently(failing(1), () => retries++, 1, 1), /failure 1/);
  assert.equal(retries, 4, "one try retries nothing");
});
