// The plan box: "how much time must I allow?" for the run form's pair and
// methods, answered by /api/plan (each method's least budget for a target
// on-time rate, on the same test days for every method). A row's button
// sets the budget slider to that budget.
import { $, fmt, formParams, getJSON, escapeHTML, status } from "./util.js";

export function planBox(form) {
  const box = $("#plan");
  if (!box) return;
  const rows = $("#plan-rows");
  const table = box.querySelector('[data-testid="plan-table"]');
  const routesTable = box.querySelector('[data-testid="plan-routes"]');
  const routeRows = $("#plan-route-rows");
  const say = (text, kind = "") => status(text, kind, $("#plan-status"));
  const colour = (name) => form.querySelector(`[data-testid="method-${name}"]`)?.closest("label")?.querySelector(".swatch")?.style.background || "";
  // A plan on a city takes minutes (Delaware's four methods on 1,190 days:
  // about 4): while it runs, the status counts the seconds and the button
  // stops it (the request's end cancels the search on the server).
  // forget empties the box's answer (a new search, or a new pair).
  const forget = () => {
    table.hidden = true;
    routesTable.hidden = true;
    $("#plan-routes-note").hidden = true;
    rows.innerHTML = "";
    routeRows.innerHTML = "";
    delete box.dataset.done;
  };
  const button = $("#plan-run");
  const idleLabel = button.textContent;
  let running = null;
  button.addEventListener("click", async () => {
    if (running) {
      running.abort();
      return;
    }
    const params = formParams(form);
    params.delete("f");
    params.delete("r");
    params.set("reliability", $("#plan-target").value);
    params.set("routes", "3");
    forget();
    const started = Date.now();
    const finding = "Finding each method's least budget (each tries several budgets on the same days)…";
    say(finding);
    const tick = setInterval(() => say(`${finding} ${Math.round((Date.now() - started) / 1000)} s`), 1000);
    running = new AbortController();
    button.textContent = "Stop finding";
    try {
      const p = await getJSON(`/api/plan?${params}`, { signal: running.signal });
      for (const r of p.methods) {
        const tr = document.createElement("tr");
        tr.dataset.method = r.method;
        const name = `<th scope="row"><span class="swatch" style="background:${escapeHTML(colour(r.method))}"></span>${escapeHTML(r.method)}</th>`;
        if (r.error) {
          tr.innerHTML = `${name}<td colspan="5" class="unavailable">${escapeHTML(r.error)}</td>`;
        } else {
          const hi = r.hi === null ? `> ${fmt(r.searched_to || p.max_budget, 1)}` : fmt(r.hi, 2);
          const tableNote = (r.table && !r.table.error ? `<br><small class="muted">its table: ${fmt(r.table.budget, 2)}</small>` : "") +
            (r.note ? `<br><small class="muted" data-testid="plan-note-${escapeHTML(r.method)}">${escapeHTML(r.note)}</small>` : "");
          const factor = r.budget / p.let_time;
          tr.innerHTML = `${name}<td class="num" data-testid="plan-budget-${escapeHTML(r.method)}">${fmt(r.budget, 2)}${tableNote}</td><td class="num">${fmt(factor, 2)}</td>` +
            `<td class="ci">${fmt(r.lo, 2)} – ${hi}</td><td class="rate">${fmt(r.rate, 3)}</td>` +
            `<td><button type="button" class="plan-use" data-factor="${factor}" data-budget="${r.budget}" data-alpha="${p.alpha}" data-testid="plan-use-${escapeHTML(r.method)}">Use this budget</button></td>`;
        }
        rows.append(tr);
      }
      table.hidden = false;
      for (const [k, r] of (p.routes || []).entries()) {
        const tr = document.createElement("tr");
        tr.dataset.testid = `plan-route-${k}`;
        tr.setAttribute("data-testid", `plan-route-${k}`);
        tr.innerHTML = `<th scope="row" class="route-nodes">${escapeHTML(r.nodes.join("–"))}</th><td class="num">${fmt(r.mean, 2)}</td><td class="num">${fmt(r.p95, 2)}</td>` +
          `<td class="num tti">${fmt(r.travel_time_index, 3)}</td><td class="num bi">${fmt(100 * r.buffer_index, 1)}%</td><td class="num pti">${fmt(r.planning_time_index, 3)}</td>`;
        routeRows.append(tr);
      }
      if (p.routes?.length) {
        routesTable.hidden = false;
        $("#plan-routes-note").hidden = false;
        $("#plan-routes-geojson").href = `/api/plan/routes?${params}&format=geojson`;
        $("#plan-routes-csv").href = `/api/plan/routes?${params}&format=csv`;
      }
      say(`OD ${p.od}: budgets for P(on time) ≥ ${p.alpha} (LET time ${fmt(p.let_time, 2)} min), on ${p.days} days.` + (p.note ? ` ${p.note}.` : ""));
      box.dataset.done = "1";
    } catch (err) {
      if (err.name === "AbortError") {
        say("Stopped: no budgets were found.");
        box.dataset.done = "stopped";
      } else {
        say(String(err.message || err), "error");
        box.dataset.done = "error";
      }
    } finally {
      clearInterval(tick);
      running = null;
      button.textContent = idleLabel;
    }
  });
  // "Use this budget" sets the slider to the budget planned, whole: the
  // slider widens to take it and leaves its 0.01 steps (a clamp to its ends
  // once turned dot's 1.17 × LET into 1.15, with the only word of it in
  // this box, out of sight). Beside the slider it says which budget it is.
  const slider = form.querySelector('[name="f"]');
  const used = $("#plan-used");
  let ours = false;
  slider.addEventListener("input", () => {
    if (ours) return;
    slider.step = "0.01";
    if (used) used.textContent = "";
  });
  rows.addEventListener("click", (e) => {
    const b = e.target.closest(".plan-use");
    if (!b) return;
    const want = Number(b.dataset.factor);
    if (want > Number(slider.max)) slider.max = (Math.ceil(want * 100) / 100).toFixed(2);
    if (want < Number(slider.min)) slider.min = (Math.floor(want * 100) / 100).toFixed(2);
    slider.step = "any";
    slider.value = String(want);
    ours = true;
    slider.dispatchEvent(new Event("input", { bubbles: true }));
    ours = false;
    const tr = b.closest("tr");
    if (used) used.textContent = `Budget from the plan: ${tr.dataset.method}'s least budget for P(on time) ≥ ${b.dataset.alpha}, ${fmt(Number(b.dataset.budget), 2)} min (${fmt(want, 3)} × LET).`;
    slider.focus({ preventScroll: true });
    // On a phone the rerun's results lie a screen or more below the
    // slider (the map comes between): the page goes to them.
    const results = window.innerWidth < 600 && document.querySelector(".split table.results");
    (results || slider).scrollIntoView({ block: results ? "start" : "nearest" });
  });
  // Budgets found for one pair are not another's: a new pair or network
  // clears them.
  form.addEventListener("change", (e) => {
    if (!["o", "d", "net"].includes(e.target.name) || table.hidden) return;
    forget();
    say("The pair changed: find the budgets again for it.");
  });
  // The link beside the slider opens the box.
  document.querySelector('[data-testid="plan-link"]')?.addEventListener("click", () => { box.open = true; });
}
