import { $, fmt, escapeHTML, status, getJSON } from "./util.js";
import { rateTable, runLive } from "./live.js";
import { csv, downloads } from "./figure.js";

export function teachPage() {
  const slider = $("#observed");
  const nohist = $("#teach-form").hasAttribute("data-nohist");
  let pending = 0;
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
    $("#branch-rows").innerHTML = v.branches
      .map((b) => `<tr data-testid="branch-${escapeHTML(b.link)}"><th>${escapeHTML(b.link)}</th>${nohist ? "" : `<td class="with">${fmt(b.with_history)}</td>`}<td class="without">${fmt(b.without_history)}</td></tr>`)
      .join("");
    if (!nohist) {
      $("#choice-optimum").textContent = v.optimum;
      $("#choice-optimum").dataset.choice = v.optimum;
      $("#choice-learned").textContent = v.learned || `unavailable: ${v.learned_error}`;
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
      onStart(msg) { upd = rateTable($("#rate-rows"), msg.methods); },
      onProgress(msg) { upd(msg.rates); },
      onDone(msg) {
        upd(msg.rates);
        // The score's numbers, as the table shows them (the engine's).
        const rows = [["method", "episodes", "on_time", "rate", "wilson_low", "wilson_high"], ...msg.rates.filter((r) => !r.error).map((r) => [r.method, r.n, r.on_time, r.rate, r.lo, r.hi])];
        const dl = downloads("teach-score", () => ({ csv: csv(rows) }), ["csv"]);
        dl.id = "score-downloads";
        $("#rate-rows").closest("table").after(dl);
        document.body.dataset.done = "1";
      },
      onError(text) { status(text, "error"); },
    });
  });
  document.body.dataset.ready = "1";
}
