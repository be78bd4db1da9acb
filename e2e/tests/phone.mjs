// On a 390-px phone: the probabilities after a run, tooltips inside the map, no page wider than the screen.

import assert from "node:assert/strict";
import { base, done, net, page, phoneTooltips, ready, shot, test, visit } from "../harness.mjs";

await test("on a 390-px phone the probabilities are on the screen after a run", async () => {
  const onScreen = async (selector, what) => {
    const boxes = await page.locator(selector).evaluateAll((els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent, left: r.left, right: r.right, clipped: e.scrollWidth > e.clientWidth + 1 };
    }));
    assert.ok(boxes.length > 0, `${what}: none found`);
    for (const b of boxes) assert.ok(b.left >= 0 && b.right <= 390 && !b.clipped, `${what} "${b.text}" at ${Math.round(b.left)}–${Math.round(b.right)} px${b.clipped ? ", clipped" : ""}`);
  };
  const noSideways = async (where) => {
    const [sw, iw] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    assert.ok(sw <= iw, `${where}: ${sw} px wide on a ${iw}-px phone`);
  };
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/compare?net=${net}`);
    await done();
    await onScreen('[data-testid="results"] [data-testid^="rate-"]', "Compare: P(on time)");
    await noSideways("Compare");
    await page.locator('[data-testid="results"]').scrollIntoViewIfNeeded();
    await shot("phone-compare-results");
    await page.goto(`${base}/live?net=${net}&n=2000&m=let,dot,cgr`);
    await done();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="plots"] svg').length >= 3);
    await onScreen('[data-testid="rates"] td.rate', "Live: rate");
    await onScreen('[data-testid="rates"] td.ci', "Live: interval");
    await noSideways("Live after its charts");
    await page.goto(`${base}/`);
    await ready();
    const trips = page.locator('[data-testid="story-trips"]');
    await trips.locator('[data-testid="trips-speed"]').selectOption({ label: "all at once" });
    await trips.locator('[data-testid="drive-100"]').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="story-trips"][data-driven], [data-testid="story-trips"] [data-driven]')?.dataset.driven === "100");
    await onScreen('[data-testid="story-trips"] [data-testid^="trips-share-"], [data-testid="story-trips"] [data-testid^="trips-p-"]', "home: share and P");
    await onScreen('[data-testid="story-trips"] caption', "home: the tally's caption");
    await noSideways("home after driving");
    await page.locator('[data-testid="story-trips"] [data-testid="trips-tally"]').scrollIntoViewIfNeeded();
    await shot("phone-home-trips");
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

await test("on a 390-px phone a link's tooltip near the map's edge stays inside the map", async () => {
  await phoneTooltips(net);
});

await test("on a 390-px phone no page is wider than the screen, no word in a table breaks, no narrow table slides", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  const brokenAt = [];
  try {
    for (const u of ["/", `/networks/${net}`, `/compare?net=${net}`, `/live?net=${net}`, "/teach", "/teach/mean", "/teach/budget", "/teach/adapt", "/teach/history", "/teach/learning", `/bench?net=${net}`, "/models", "/jobs", "/about", "/networks/add", "/networks/draw"]) {
      await visit(u, base + u);
      // A lesson is judged after its answer is locked: the adapt lesson's
      // bars, shown then, widened the page to 635 px.
      const lock = page.locator('[data-testid="predict-lock"]');
      if (u.startsWith("/teach/") && await lock.count()) {
        const choice = page.locator('[data-testid="lesson-predict"] input[type=radio]');
        if (await choice.count()) await choice.first().check();
        await lock.click();
      }
      const [sw, iw, wide] = await page.evaluate(() => {
        const wide = [];
        for (const e of document.body.querySelectorAll("*")) {
          const r = e.getBoundingClientRect();
          if (r.right > window.innerWidth + 0.5) wide.push(`${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}.${e.className} (right ${Math.round(r.right)})`);
        }
        return [document.documentElement.scrollWidth, window.innerWidth, wide.slice(0, 5)];
      });
      assert.ok(sw <= iw, `${u}: ${sw} px wide on a ${iw}-px screen; widest: ${wide.join(", ")}`);
      // A number or a name in a table reads on one line: the home page's σ
      // column, squeezed on a phone, read "1.4" over "9", and the paired
      // tests' methods "g p g h t" a letter a line.
      const broken = await page.evaluate(() => [...document.querySelectorAll("td, th, dd")].filter((c) => {
        if (!/^\S{1,16}$/.test(c.textContent.trim())) return false;
        // the lines its text lies on (a swatch beside it sits a pixel lower)
        const tops = new Set(), walk = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
        for (let t = walk.nextNode(); t; t = walk.nextNode()) {
          const r = document.createRange();
          r.selectNodeContents(t);
          for (const b of r.getClientRects()) if (b.width > 0) tops.add(Math.round(b.top));
        }
        return tops.size > 1;
      }).map((c) => c.textContent.trim()));
      // and a table of four columns or fewer fits the screen without
      // sliding sideways (the lesson's P(on time) went out of sight)
      const sliding = await page.evaluate(() => [...document.querySelectorAll("table")].filter((t) => {
        const row = t.querySelector("tr");
        return row && row.children.length <= 4 && t.getClientRects().length && t.scrollWidth > t.clientWidth + 1;
      }).map((t) => `${t.dataset.testid || t.className || "a table"} (${t.scrollWidth} px in ${t.clientWidth})`));
      if (sliding.length) brokenAt.push(`${u}: slides sideways: ${sliding.join(", ")}`);
      if (broken.length) brokenAt.push(`${u}: ${broken.slice(0, 8).join(", ")}${broken.length > 8 ? ` and ${broken.length - 8} more` : ""}`);
      await shot(`phone-${u.replace(/^\//, "").replace(/\?.*$/, "").replace(/\//g, "-") || "home"}`);
    }
    assert.deepEqual(brokenAt, [], `words broken across lines, or tables sliding:\n${brokenAt.join("\n")}`);
    await visit("compare", `${base}/compare?net=${net}`);
    await shot("phone-compare");
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

// The lessons' index counts them; a handout prints with the answers for
// the teacher, or without them for the class.
