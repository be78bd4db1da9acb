import { $, fmt, escapeHTML, status, getJSON } from "./util.js";
import { rateTable, runLive } from "./live.js";
import { csv, downloads } from "./figure.js";
import { predict } from "./predict.js";
import { ROUTE_COLORS } from "./plots.js";

// fiveNode draws the lesson's network: A→B, then B→C→E or B→D→E, with the
// observed A→B time on its link and the chosen branch (a link name such as
// "B→C", or "" for none yet) drawn thick; the highlight waits for the
// answer (.until-revealed).
export function fiveNode(observed, chosen) {
  const at = { A: [40, 90], B: [160, 90], C: [280, 35], D: [280, 145], E: [400, 90] };
  const links = [["A", "B"], ["B", "C"], ["B", "D"], ["C", "E"], ["D", "E"]];
  const line = ([a, b], extra) => `<line x1="${at[a][0]}" y1="${at[a][1]}" x2="${at[b][0]}" y2="${at[b][1]}" ${extra}/>`;
  const next = chosen && chosen.split("→")[1];
  const thick = next ? `<g class="until-revealed" data-testid="five-node-chosen">${line(["B", next], `stroke="${ROUTE_COLORS[1]}" stroke-width="7"`)}${line([next, "E"], `stroke="${ROUTE_COLORS[1]}" stroke-width="7"`)}</g>` : "";
  return `<svg viewBox="0 0 440 180" role="img" aria-label="Five-node network: A to B, then B to C to E or B to D to E; A to B took ${fmt(observed, 2)} min">` +
    links.map((l) => line(l, `stroke="#9ecae1" stroke-width="4"`)).join("") + thick +
    line(["A", "B"], `stroke="${ROUTE_COLORS[0]}" stroke-width="5"`) +
    `<text x="100" y="80" text-anchor="middle">${fmt(observed, 2)} min</text>` +
    Object.entries(at).map(([n, [x, y]]) => `<circle cx="${x}" cy="${y}" r="14" fill="#fff" stroke="#333"/><text x="${x}" y="${y + 5}" text-anchor="middle" font-weight="bold">${n}</text>`).join("") +
    `</svg>`;
}

// The history lesson: the observed A→B time moves, the visitor says which
// branch to take at B, then the probabilities and the policies' picks
// appear.
export function teachPage() {
  const slider = $("#observed");
  const nohist = $("#teach-form").hasAttribute("data-nohist");
  let pending = 0, latest = null;
  const lesson = $("#teach-lesson");
  const ask = nohist ? null : predict($("#lesson-predict"), lesson, {
    choices: [{ value: "B→C", label: "B→C" }, { value: "B→D", label: "B→D" }],
    judge: ({ choice }) => {
      const [c, d] = latest.branches;
      if (Math.abs(c.with_history - d.with_history) < 0.005) return `Either will do: after A→B took ${fmt(latest.observed, 2)} min the two branches tie (${fmt(c.with_history, 3)} and ${fmt(d.with_history, 3)}). Try a slow or a fast A→B.`;
      return `${choice === latest.optimum ? "Right" : "Not this time"}: after A→B took ${fmt(latest.observed, 2)} min the better branch is ${escapeHTML(latest.optimum)}.`;
    },
  });
  async function update() {
    const x = Number(slider.value);
    $("#observed-out").textContent = x.toFixed(2);
    const ticket = ++pending;
    let v;
    try {
      v = await getJSON(`/api/teach?x=${x}`);
    } catch (err) {
      if (ticket === pending) status(err.message, "error");
      return;
    }
    if (ticket !== pending) return; // a newer position is on its way
    latest = v;
    $("#five-node").innerHTML = fiveNode(x, nohist ? v.no_history : v.optimum);
    if (ask) {
      const mean = Number($("#teach-form").dataset.mean);
      ask.setQuestion(`A→B took ${fmt(x, 2)} min (${x > mean + 0.05 ? "slower than" : x < mean - 0.05 ? "faster than" : "about"} its mean). At B, which branch gives the better chance of arriving within ${fmt(v.budget, 2)} min?`);
      const [c, d] = v.branches;
      ask.setAnswer(`Using the A→B time: ${escapeHTML(c.link)} ${fmt(c.with_history)}, ${escapeHTML(d.link)} ${fmt(d.with_history)}. ` +
        `B→C's time is correlated with A→B's, so a slow A→B warns that B→C will likely be slow too, and a fast one that it will be fast; B→D says nothing. ` +
        `Ignoring that, both branches look alike (${fmt(c.without_history)} and ${fmt(d.without_history)}), and the choice is a coin toss.`);
    }
    $("#branch-rows").innerHTML = v.branches
      .map((b) => `<tr data-testid="branch-${escapeHTML(b.link)}"><th>${escapeHTML(b.link)}</th>${nohist ? "" : `<td class="with">${fmt(b.with_history)}</td>`}<td class="without">${fmt(b.without_history)}</td></tr>`)
      .join("");
    if (!nohist) {
      $("#choice-optimum").textContent = v.optimum;
      $("#choice-optimum").dataset.choice = v.optimum;
      $("#choice-learned").textContent = v.learned || v.learned_error;
      $("#choice-learned").dataset.choice = v.learned || "";
    }
    $("#choice-nohist").textContent = v.no_history;
    $("#choice-nohist").dataset.choice = v.no_history;
    document.body.dataset.observed = String(x);
  }
  slider.addEventListener("input", update);
  update();
  $("#score-run").addEventListener("click", () => {
    const params = new URLSearchParams({ net: "twobranch", f: "1", n: "20000", m: $("#teach-form").dataset.methods });
    delete document.body.dataset.done;
    let upd = null;
    $("#score-downloads")?.remove();
    runLive(params, {
      onStart(msg) { upd = rateTable($("#rate-rows"), msg.methods, { zoom: true, target: Number($("#teach-form").dataset.optimum), axisNote: $("#score-axis") }); },
      onProgress(msg) { upd(msg.rates); },
      onDone(msg) {
        upd(msg.rates);
        // The score's numbers, as the table shows them (the engine's).
        const rows = [["method", "episodes", "on_time", "rate", "wilson_low", "wilson_high"], ...msg.rates.filter((r) => !r.error).map((r) => [r.method, r.n, r.on_time, r.rate, r.lo, r.hi])];
        const dl = downloads("teach-score", () => ({ csv: csv(rows) }), ["csv"]);
        dl.id = "score-downloads";
        $("#score-axis").after(dl);
        document.body.dataset.done = "1";
      },
      onError(text) { status(text, "error"); },
    });
  });
  document.body.dataset.ready = "1";
}
