// Small helpers shared by the pages.
export const $ = (sel, root = document) => root.querySelector(sel);
export const fmt = (x, d = 4) => (x === null || x === undefined || Number.isNaN(x) ? "–" : Number(x).toFixed(d));

export function wsURL(path, params) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}${path}?${params.toString()}`;
}

// streamRefusal says why a stream could not open: the server answers a
// refused upgrade with HTTP and {"error"} (docs/protocol.md), which the
// browser's WebSocket hides, so the same request is asked again as plain
// HTTP for its message (a method list left empty, a model being built).
export async function streamRefusal(path, params) {
  try {
    const res = await fetch(`${path}?${params.toString()}`, { headers: { Accept: "application/json" } });
    const body = await res.json().catch(() => ({}));
    if (body.error) return body.error;
  } catch {
    // the server is not answering at all
  }
  return "The stream failed; is the server running?";
}

// dropStream ends a stream a newer run (or Stop) replaces. Closing a
// socket that is still connecting fires its error event, and the refusal
// asked for then was the old request's (a bare "Bad Request" for a valid
// one), which wrote "The stream failed" over the new run's status: a
// dropped stream is marked, and its handlers say nothing more.
export function dropStream(ws) {
  if (!ws) return;
  ws.dropped = true;
  ws.onmessage = null;
  ws.close();
}

// formParams reads a run form into URL parameters (methods joined by commas).
export function formParams(form) {
  const fd = new FormData(form);
  const p = new URLSearchParams();
  const methods = [];
  for (const [k, v] of fd.entries()) {
    if (k === "m") methods.push(v);
    else p.set(k, v);
  }
  p.set("m", methods.join(","));
  return p;
}

// getJSON fetches a JSON answer; errors come as JSON too (the server reads
// the Accept header) and are thrown with their message.
export async function getJSON(url, init = {}) {
  const res = await fetch(url, { ...init, headers: { Accept: "application/json", ...(init.headers || {}) } });
  const body = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

// patiently runs ask (a request of a page that follows a job) and, when it
// fails (the server busy, the connection dropped), asks again, up to tries
// times with a pause that grows by pauseMs, telling onRetry each time; the
// job runs on whatever one request sees, so one failure must not end the
// following. The last failure is thrown.
export async function patiently(ask, onRetry, tries = 5, pauseMs = 1000) {
  for (let n = 1; ; n++) {
    try {
      return await ask();
    } catch (err) {
      if (n >= tries) throw err;
      onRetry(err, n);
      await new Promise((r) => setTimeout(r, pauseMs * n));
    }
  }
}

// getText is the body of url as text; an answer other than 2xx throws.
export async function getText(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status} ${res.statusText}`);
  return res.text();
}

// runFailed says text as an error in the page's status line and marks the
// page's run as ended with an error (data-done, which the browser tests
// wait on with the run's other ends: done and stopped).
export function runFailed(text) {
  status(text, "error");
  document.body.dataset.done = "error";
}

// askingAgain tells a page's status line that a failed request is being
// asked again (patiently's onRetry for a page that follows a job).
export function askingAgain(err) {
  status(`asking the server again (${err.message})…`);
}

// lostJob ends a page that follows a job when its status cannot be had:
// the job itself goes on in the background, which the page says, with
// where to find it.
export function lostJob(err) {
  runFailed(`lost the job's status: ${err.message}. The job goes on without this page: reload it, or find the job under Jobs (/jobs).`);
}

// status says text in a page's status line (#status, or el), of kind
// "error" or "".
export function status(text, kind = "", el = $("#status")) {
  if (!el) return;
  el.textContent = text;
  el.dataset.kind = kind;
}

export function escapeHTML(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// budgetControls wires the factor slider, its output and the presets.
export function budgetControls(form, onChange) {
  const slider = form.querySelector('[name="f"]');
  const out = $("#factor-out");
  const sync = () => {
    out.textContent = Number(slider.value).toFixed(2);
    onChange && onChange(Number(slider.value));
  };
  slider.addEventListener("input", sync);
  form.querySelectorAll(".preset").forEach((b) =>
    b.addEventListener("click", () => {
      slider.value = b.dataset.factor;
      sync();
    })
  );
  sync();
}

// reducedMotion says whether the visitor asked for reduced motion (then
// trips are driven at once and nothing races on the map).
export const reducedMotion = () => Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);

// addODPair appends "O-D" to a comma-separated list of pairs, once.
export function addODPair(list, pair) {
  const pairs = list.split(",").map((p) => p.trim()).filter(Boolean);
  if (!pairs.includes(pair)) pairs.push(pair);
  return pairs.join(", ");
}

// outsideNote is the visible note beside a method asked outside what it
// was trained for (a hover title alone is missed, and a phone has none).
export function outsideNote(name, warning) {
  const note = document.createElement("small");
  note.className = "outside-note";
  note.setAttribute("data-testid", `outside-${name}`);
  note.innerHTML = `† ${escapeHTML(warning)}: not ${escapeHTML(name)}'s own number.<span class="handed"></span>`;
  return note;
}
