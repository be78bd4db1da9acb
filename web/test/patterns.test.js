// Browsers compile an input's pattern attribute with the "v" flag
// (unicode sets), where "[a-z_-]" is a syntax error: the browser then logs
// an error and skips the check. Every pattern in the pages must compile so.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = new URL("..", import.meta.url).pathname;

test("every pattern attribute compiles as browsers compile it", () => {
  let seen = 0;
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".templ"))) {
    const src = readFileSync(join(dir, f), "utf8");
    for (const m of src.matchAll(/pattern="([^"]*)"/g)) {
      seen++;
      assert.doesNotThrow(() => new RegExp(`^(?:${m[1]})$`, "v"), `${f}: pattern="${m[1]}"`);
      const re = new RegExp(`^(?:${m[1]})$`, "v");
      assert.ok(re.test("my-net_2") && !re.test("Bad Name"), `${f}: pattern="${m[1]}" accepts a stored name and refuses another`);
    }
  }
  assert.ok(seen >= 2, `only ${seen} pattern attributes found`);
});
