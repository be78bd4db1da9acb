import { $, status, getJSON, getText, patiently, lostJob, askingAgain } from "./util.js";

// jobPage follows a background job: state, progress with its ETA, the
// learning curve (redrawn by the server when a checkpoint is validated)
// and the log, until the job ends.
export async function jobPage() {
  const box = $("#job");
  if (!box) { document.body.dataset.ready = "1"; return; }
  const id = box.dataset.job;
  const bar = $("#progress");
  const curve = $("#job-curve");
  const log = $("#job-log");
  let seen = 0;
  document.body.dataset.ready = "1";
  for (;;) {
    let ans;
    try { ans = await patiently(() => getJSON(`/api/jobs/${id}?from=${seen}`), askingAgain); } catch (err) { lostJob(err); return; }
    const st = ans.status;
    bar.value = st.fraction;
    const eta = st.eta_seconds ? `, about ${Math.ceil(st.eta_seconds / 60)} min left` : st.state === "running" ? ", no estimate of the time left until a tenth is done" : "";
    const where = st.state === "queued" ? ` (${st.position} in line)` : st.state === "running" && st.stage ? ` — ${st.stage}` : "";
    $("#job-state").textContent = st.error ? `${st.state}: ${st.error}` : st.state + where;
    status(`${st.state}${where}, ${st.seconds.toFixed(0)} s${eta}`, ["failed", "interrupted"].includes(st.state) ? "error" : "");
    if (ans.events && ans.events.length) {
      seen += ans.events.length;
      if (curve) curve.src = `/plots/job/${id}.svg?n=${seen}`;
      $("#job-curve-downloads")?.removeAttribute("hidden");
      document.body.dataset.points = String(seen);
    }
    try {
      const text = await getText(`/api/jobs/${id}/log`); // an error page is not the log
      log.textContent = text;
      log.hidden = !text;
      $("#job-log-empty").hidden = !!text;
    } catch { /* the next poll retries */ }
    if (!["queued", "running"].includes(st.state)) {
      const cancel = $("#cancel-form");
      if (cancel) cancel.remove();
      document.body.dataset.done = st.state;
      return;
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
}
