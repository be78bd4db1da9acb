import { downloads } from "./figure.js";
import { odMap } from "./odmap.js";
import { planBox } from "./plan.js";
import { $, fmt, wsURL, formParams, status, runFailed, escapeHTML, budgetControls, streamRefusal, dropStream, outsideNote } from "./util.js";

// rateRows keeps one table row per method, updated in place. Each row's
// bar draws its 95% interval on [0, 1]; with zoom the axis is the rates'
// own span (so 0.505 and 0.539 are not 3 px apart), shown in axisNote, and
// target (a known optimum) is a line in every bar.
export function rateTable(tbody, methods, { zoom = false, target, axisNote } = {}) {
  tbody.innerHTML = "";
  for (const mm of methods) {
    const tr = document.createElement("tr");
    tr.setAttribute("data-testid", `rate-${mm.name}`);
    tr.innerHTML = `<th><span class="swatch" style="background:${mm.color}"></span>${escapeHTML(mm.name)}</th><td class="n">0</td><td class="k">0</td><td class="rate key">–</td><td class="ci">–</td><td class="bar"><span class="ci-bar"><span class="ci-range"></span><span class="ci-point"></span>` +
      (target !== undefined ? `<span class="ci-target" data-testid="ci-target"></span>` : "") + `</span></td>`;
    if (mm.warning) tr.querySelector("th").append(outsideNote(mm.name, mm.warning));
    tbody.appendChild(tr);
  }
  const seen = new Map();
  return (rates) => {
    for (const r of rates) {
      const tr = tbody.querySelector(`[data-testid="rate-${r.method}"]`);
      if (!tr) continue;
      if (r.error) {
        tr.querySelector(".rate").textContent = "unavailable";
        tr.querySelector(".ci").textContent = r.error;
        tr.dataset.state = "unavailable";
        continue;
      }
      tr.querySelector(".n").textContent = r.n;
      tr.querySelector(".k").textContent = r.on_time;
      tr.querySelector(".rate").textContent = fmt(r.rate, 3);
      tr.dataset.rate = String(r.rate);
      tr.querySelector(".ci").textContent = `${fmt(r.lo, 3)}–${fmt(r.hi, 3)}`;
      const handed = tr.querySelector(".handed");
      if (handed) handed.textContent = r.handed_over ? ` On ${r.handed_over} of ${r.n} days it could no longer arrive within the step cap and the LET path drove the rest.` : "";
      seen.set(r.method, r);
    }
    let lo = 0, hi = 1;
    if (zoom && seen.size) {
      const vals = [...seen.values()].flatMap((r) => [r.lo, r.hi]).concat(target !== undefined ? [target] : []);
      lo = Math.max(0, Math.min(...vals) - 0.02);
      hi = Math.min(1, Math.max(...vals) + 0.02);
      if (axisNote) axisNote.textContent = `The bars run from ${fmt(lo, 3)} (left) to ${fmt(hi, 3)} (right)` + (target !== undefined ? `; the black line is the optimum, ${fmt(target, 3)}.` : ".");
    }
    const at = (v) => `${(100 * (v - lo)) / (hi - lo)}%`;
    for (const [m, r] of seen) {
      const tr = tbody.querySelector(`[data-testid="rate-${m}"]`);
      const range = tr.querySelector(".ci-range");
      range.style.left = at(r.lo);
      range.style.width = `${(100 * (r.hi - r.lo)) / (hi - lo)}%`;
      tr.querySelector(".ci-point").style.left = at(r.rate);
      const t = tr.querySelector(".ci-target");
      if (t) t.style.left = at(target);
    }
  };
}

// runLive streams episodes and calls back on every message.
export function runLive(params, { onStart, onProgress, onPlots, onDone, onError }) {
  const q = new URLSearchParams(params);
  if (window.innerWidth < 600) q.set("narrow", "1"); // the figures are drawn for a phone's width
  const ws = new WebSocket(wsURL("/ws/live", q));
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "start") onStart && onStart(msg);
    else if (msg.type === "progress") onProgress && onProgress(msg);
    else if (msg.type === "plots") onPlots && onPlots(msg);
    else if (msg.type === "done") onDone && onDone(msg);
    else if (msg.type === "error") onError && onError(msg.message);
  };
  ws.onerror = async () => {
    const why = await streamRefusal("/ws/live", params);
    if (!ws.dropped && onError) onError(why);
  };
  return ws;
}

export async function livePage() {
  const form = $("#run-form");
  form.querySelector('[name="net"]').addEventListener("change", () => { location.href = `/live?net=${form.querySelector('[name="net"]').value}`; });
  let ws = null, update = null, started = "";
  const stop = $("#stop");
  // The map picks the pair; a new pair, budget or method list reruns (the
  // budget once the slider rests, so a drag is one run, not one per pixel).
  const { showBudget } = await odMap(form, $("#map"), { onPick: () => run() });
  let rerun = 0;
  const soon = (ms = 300) => { clearTimeout(rerun); rerun = setTimeout(run, ms); };
  budgetControls(form, () => { showBudget(); soon(); });
  planBox(form);
  form.querySelectorAll('[name="o"],[name="d"],[name="m"]').forEach((el) => el.addEventListener("change", () => { showBudget(); soon(); }));
  // Charts of the last finished run stay until new ones replace them,
  // marked as the previous run's while another runs or after a stop.
  const stale = (yes, why = "") => {
    $("#plots").classList.toggle("stale", yes);
    $("#plots").dataset.note = why;
  };
  function run() {
    clearTimeout(rerun);
    const params = formParams(form);
    history.replaceState(null, "", `/live?${params}`);
    dropStream(ws);
    delete document.body.dataset.done;
    if ($("#plots").children.length) stale(true, "The charts below are from the previous run; the new one replaces them when it ends.");
    $("#progress").value = 0;
    status("Starting…");
    stop.disabled = false;
    ws = runLive(params, {
      onStart(msg) {
        update = rateTable($("#rate-rows"), msg.methods);
        const letTime = msg.budget / msg.factor;
        started = `OD ${msg.od}, budget T = ${fmt(msg.budget, 2)} min (${fmt(msg.factor, 2)} × LET ${fmt(letTime, 2)} min), ${msg.episodes} episodes of the common test pools` + (msg.note ? `. ${msg.note}` : "");
        status(started);
      },
      onProgress(msg) {
        // The bar counts all the work: the episodes, then their replays at
        // the curve's other budgets.
        $("#progress").value = msg.fraction;
        if (msg.curve) status(`${msg.done} episodes played; replaying them at other budgets for the on-time curve (${Math.round(100 * msg.fraction)}% of the work)…`);
        update(msg.rates);
      },
      onPlots(msg) {
        // Each figure downloads as the SVG drawn (the engine's numbers), as
        // PNG, and as the numbers it draws (CSV, from the engine too).
        const box = $("#plots");
        box.innerHTML = "";
        stale(false);
        for (const [svg, data, cap, id] of [
          [msg.histogram, msg.histogram_csv, "Arrival times per method; the dashed line is the budget.", "plot-histogram"],
          [msg.cdf, msg.cdf_csv, "Arrival-time CDF; where each curve crosses the budget is its on-time rate.", "plot-cdf"],
          [msg.curve, msg.curve_csv, "On-time rate against the budget factor, on the same episodes; each bar is its 95% interval.", "plot-curve"],
        ]) {
          if (!svg) continue;
          const fig = document.createElement("figure");
          fig.dataset.testid = id;
          fig.innerHTML = `${svg}<figcaption>${cap}</figcaption>`;
          fig.querySelector("figcaption").append(downloads(id, () => ({ svg, csv: data })));
          box.append(fig);
        }
      },
      onDone(msg) {
        update(msg.rates);
        stop.disabled = true;
        $("#progress").value = 1;
        status(`${started} · done`);
        document.body.dataset.done = "1";
      },
      onError(text) {
        stop.disabled = true;
        runFailed(text);
      },
    });
  }
  form.addEventListener("submit", (e) => { e.preventDefault(); run(); });
  stop.addEventListener("click", () => {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "stop" }));
    stop.disabled = true;
    // What was drawn stays: the table's running rates and the last charts.
    status($("#plots").children.length ? "Stopped: the table shows the episodes played; the charts are the previous run's." : "Stopped: the table shows the episodes played.");
    document.body.dataset.done = "stopped";
  });
  document.body.dataset.ready = "1";
  run(); // the page opens running its defaults (Stop ends it)
}
