import { odMap } from "./odmap.js";
import { $, fmt, wsURL, formParams, status, runFailed, escapeHTML, budgetControls, streamRefusal, dropStream, outsideNote } from "./util.js";
import { tripsPanel } from "./trips.js";
import { planBox } from "./plan.js";

const outcomeText = { arrived: "on time", over_time: "late (over budget)", dead_end: "late (dead end)", step_cap: "late (step cap)" };

export async function comparePage() {
  const form = $("#run-form");
  const { map: m, markOD, showBudget } = await odMap(form, $("#map"), { onPick: () => run() });
  // A new budget or pair reruns the comparison (the budget after the
  // slider rests a moment, so a drag does not start a run per pixel).
  let rerun = 0, armed = false;
  const soon = () => { if (!armed) return; clearTimeout(rerun); rerun = setTimeout(run, 250); };
  budgetControls(form, () => { showBudget(); soon(); });
  planBox(form);
  form.querySelectorAll('[name="o"],[name="d"]').forEach((s) => s.addEventListener("change", () => { markOD(); soon(); }));
  form.querySelector('[name="net"]').addEventListener("change", () => { location.href = `/compare?net=${form.querySelector('[name="net"]').value}`; });

  let ws = null;
  // Stop ends the drive (and a first-use build the visitor does not want
  // to wait for): the stream closes, the server's run ends with it.
  $("#stop").addEventListener("click", () => {
    if (!ws) return;
    dropStream(ws);
    status("Stopped. Drive runs it again; a method's first-use build, once finished, is kept for everyone.");
    document.body.dataset.done = "stopped";
  });
  function run() {
    // A Drive (or a map pick) is the run a pending rerun would have been:
    // left scheduled, it ran again a moment later and wrote over this one.
    clearTimeout(rerun);
    const params = formParams(form);
    history.replaceState(null, "", `/compare?${params}`);
    dropStream(ws);
    m.clearPaths();
    $("#result-rows").innerHTML = "";
    $("#compare-trips").hidden = true;
    $("#route-downloads").hidden = true;
    $("#trips-panel").innerHTML = "";
    const drives = [];
    let budget = 0;
    $("#steps").innerHTML = "";
    delete document.body.dataset.done;
    status("Computing every method's route…");
    const slot = new Map();
    const t0 = performance.now();
    ws = new WebSocket(wsURL("/ws/compare", params));
    let preparing = 0;
    $("#stop").disabled = false;
    ws.addEventListener("close", () => { clearInterval(preparing); $("#stop").disabled = true; });
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type !== "preparing") clearInterval(preparing);
      switch (msg.type) {
        case "preparing": {
          // No progress of its own (tables solved, learners trained): the
          // seconds so far, until the first message of the run.
          const t = Date.now(), say = () => status(`Building ${msg.methods.join(", ")} on first use (tables are solved and learners trained once, then kept)… ${Math.round((Date.now() - t) / 1000)} s`);
          say();
          preparing = setInterval(say, 1000);
          break;
        }
        case "start": {
          budget = msg.budget;
          status(`OD ${msg.od}, budget T = ${fmt(msg.budget, 2)} min (${fmt(msg.factor, 2)} × LET ${fmt(msg.let_time, 2)}), realization ${msg.realization}`);
          msg.methods.forEach((mm, k) => {
            slot.set(mm.name, k);
            const tr = document.createElement("tr");
            tr.dataset.testid = `result-${mm.name}`;
            tr.setAttribute("data-testid", `result-${mm.name}`);
            tr.innerHTML = `<th><span class="swatch" style="background:${mm.color}"></span>${escapeHTML(mm.name)}</th><td class="links">0</td><td class="time">0</td><td class="left">${fmt(msg.budget, 2)}</td><td class="outcome">${mm.error ? "unavailable: " + escapeHTML(mm.error) : "driving…"}</td><td class="rate key" data-testid="rate-${escapeHTML(mm.name)}">–</td><td class="latency" data-testid="latency-${escapeHTML(mm.name)}">–</td>`;
            if (mm.error) tr.dataset.outcome = "unavailable";
            else {
              // A click on a row shows its route and greys the others; a
              // second click shows them all again.
              tr.tabIndex = 0;
              tr.classList.add("pickable");
              const pick = () => {
                const on = tr.dataset.selected !== "1";
                document.querySelectorAll('#result-rows tr[data-selected="1"]').forEach((r) => { r.dataset.selected = "0"; });
                tr.dataset.selected = on ? "1" : "0";
                m.highlight(on ? mm.name : null);
              };
              tr.addEventListener("click", pick);
              tr.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); } });
            }
            if (mm.warning) tr.querySelector("th").append(outsideNote(mm.name, mm.warning));
            $("#result-rows").appendChild(tr);
          });
          break;
        }
        case "step": {
          if (msg.step === 0 && !document.body.dataset.firstStepMs) document.body.dataset.firstStepMs = String(Math.round(performance.now() - t0));
          const k = slot.get(msg.method);
          const color = getComputedStyle(document.querySelector(`[data-testid="result-${msg.method}"] .swatch`)).backgroundColor;
          m.addStep(msg.method, color, k, msg.link);
          const tr = document.querySelector(`[data-testid="result-${msg.method}"]`);
          tr.querySelector(".links").textContent = msg.step + 1;
          tr.querySelector(".time").textContent = fmt(msg.elapsed, 2);
          tr.querySelector(".left").textContent = fmt(msg.remaining, 2);
          const li = document.createElement("li");
          li.textContent = `${msg.method}: ${msg.from} → ${msg.to} took ${fmt(msg.time, 2)} min, ${fmt(msg.remaining, 2)} left`;
          $("#steps").appendChild(li);
          break;
        }
        case "result": {
          const tr = document.querySelector(`[data-testid="result-${msg.method}"]`);
          tr.dataset.outcome = msg.on_time ? "on-time" : "late";
          tr.dataset.time = String(msg.time);
          tr.querySelector(".time").textContent = fmt(msg.time, 2);
          tr.querySelector(".left").textContent = fmt(msg.remaining, 2);
          tr.querySelector(".outcome").textContent = (msg.on_time ? "on time" : outcomeText[msg.end] || msg.end) + (msg.handed_over ? " (the LET path drove the end: the model could no longer arrive within the step cap)" : "");
          tr.classList.add(msg.on_time ? "ok" : "late");
          tr.querySelector(".latency").textContent = fmt(msg.decision_ms, 3);
          if (msg.on_time_rate !== undefined) tr.querySelector(".rate").textContent = fmt(msg.on_time_rate, 3);
          if (msg.trips) {
            const color = getComputedStyle(tr.querySelector(".swatch")).backgroundColor;
            drives.push({ name: msg.method, short: msg.method, color, p: msg.on_time_rate, trips: msg.trips.map((t) => (t === null ? NaN : t)) });
          }
          break;
        }
        case "done":
          status($("#status").textContent + ` · done in ${msg.elapsed_ms} ms`);
          if (drives.length) showTrips(drives, budget);
          // The same query replays the same drives on the server, written
          // as a file (GET /api/routes).
          document.querySelectorAll("#route-downloads a").forEach((a) => { a.href = `/api/routes?${params}&format=${a.dataset.format}`; });
          $("#route-downloads").hidden = false;
          document.body.dataset.done = "1";
          break;
        case "error":
          runFailed(msg.message);
          break;
      }
    };
    const mine = ws;
    ws.onerror = async () => {
      const why = await streamRefusal("/ws/compare", params);
      if (mine.dropped) return;
      runFailed(why);
    };
  }
  // showTrips lets the visitor drive the 1,000 days each method's P(on
  // time) was counted on, the same days for every method. A trip's time
  // is known only when it arrived within the budget (an episode stops when
  // the budget runs out), so the axis ends at T and cut-off trips stand
  // apart; the budget is fixed here (an adaptive method would drive other
  // routes under another budget: move the slider to rerun).
  function showTrips(drives, budget) {
    const finite = drives.flatMap((d) => d.trips.filter(Number.isFinite));
    const lo = finite.length ? Math.min(...finite) : 0;
    const pad = (budget - lo) * 0.04 || 1;
    $("#compare-trips").hidden = false;
    tripsPanel($("#trips-panel"), {
      routes: drives, budget, domain: [Math.max(0, lo - pad), budget + pad],
      pName: "the share of all 1,000", rowName: "method",
    });
  }

  form.addEventListener("submit", (e) => { e.preventDefault(); run(); });
  $("#new-realization").addEventListener("click", () => {
    const r = form.querySelector('[name="r"]');
    r.value = String(Number(r.value || 0) + 1);
    run();
  });
  document.body.dataset.ready = "1";
  run(); // the page opens on a comparison: its defaults are chosen to differ
  armed = true;
}
