import { $, status, getJSON, getText, patiently, runFailed, lostJob, askingAgain } from "./util.js";

export function benchPage() {
  const form = $("#bench-form");
  const box = $("#bench-report");
  const bar = $("#progress");
  form.querySelector('[name="net"]').addEventListener("change", () => { location.href = `/bench?net=${encodeURIComponent(form.querySelector('[name="net"]').value)}`; });
  const runButton = form.querySelector('[type="submit"]');
  // While a run is under way its button is off: a second press would only
  // find the same job.
  async function poll(id) {
    runButton.disabled = true;
    try {
      await follow(id);
    } finally {
      runButton.disabled = false;
    }
  }
  async function follow(id) {
    bar.hidden = false;
    // A method's first build (a learner's training) has no estimate of its
    // own: the page says how long this step has run instead of a share of
    // the run that stands still.
    let step = "", stepAt = Date.now();
    for (;;) {
      let st;
      try { st = await patiently(() => getJSON(`/api/bench/${id}`), askingAgain); } catch (err) { lostJob(err); return; }
      bar.value = st.fraction;
      const stage = st.state === "queued" ? `waiting for ${st.position - 1} job(s) ahead (one runs at a time)`
        : st.stage.startsWith("methods:") ? `building ${st.stage.slice(8)} (method ${st.done + 1} of ${st.total}; learners train on first use), ${Math.round(100 * st.fraction)}% of the run`
        : st.stage === "methods" ? `built ${st.done} of ${st.total} methods` : `pool ${st.done} of ${st.total}, ${Math.round(100 * st.fraction)}% of the run`;
      if (st.stage !== step) { step = st.stage; stepAt = Date.now(); }
      const building = st.stage.startsWith("methods");
      const eta = building ? `; ${Math.round((Date.now() - stepAt) / 1000)} s on this step (no estimate until the pools start: a learner's training time is not known in advance)`
        : st.eta_seconds ? `, about ${Math.ceil(st.eta_seconds)} s left` : "";
      status(`${st.state}: ${stage}, ${st.seconds.toFixed(1)} s${eta}` + (st.flags ? ` · note: ${st.flags.join("; ")}` : ""));
      if (["failed", "interrupted", "canceled"].includes(st.state)) { runFailed(`${st.state}: ${st.error}`); return; }
      if (st.state === "done") {
        try { box.innerHTML = await patiently(() => getText(`/api/bench/${id}.html`), askingAgain); } catch (err) { runFailed(`could not load the report: ${err.message}`); return; }
        box.dataset.job = id;
        status(`done in ${st.seconds.toFixed(1)} s` + (st.flags ? ` · note: ${st.flags.join("; ")}` : ""));
        document.body.dataset.done = "1";
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    delete document.body.dataset.done;
    const body = new URLSearchParams(new FormData(form));
    let st;
    try { st = await getJSON("/api/bench", { method: "POST", body }); } catch (err) { runFailed(err.message); return; }
    poll(st.id);
  });
  if (box.dataset.job && !box.querySelector("table")) poll(box.dataset.job);
  document.body.dataset.ready = "1";
}
