// The network sketchpad: draw crossings and roads with the pointer (or the
// forms, by keyboard), set each road's mean and σ and pairs' correlations,
// run every method on the drawing, save it through the upload's check, or
// export it. The drawing is ontime's JSON network format; the server reads
// and runs it like any file.
import { $, escapeHTML, fmt, getJSON } from "./util.js";
import { sketchJSON, sketchCSV, nodeName, nearestNode, linkKey } from "./sketchmodel.js";

const NS = "http://www.w3.org/2000/svg";

// say shows a message beside the part of the pad it is about (the drawing,
// the road, the correlations, the trip, saving); one message at a time.
function say(where, text, kind = "") {
  for (const el of document.querySelectorAll(".sketch-status")) {
    el.textContent = "";
    delete el.dataset.kind;
  }
  const el = $(`#sketch-status-${where}`);
  el.textContent = text;
  el.dataset.kind = kind;
}
const R = 15; // a crossing's radius in drawing units

// The example opens where the point shows: the direct road is fastest on
// average but spread; the way through B is steadier; at C a traveller who
// sees a slow first road can still switch to B.
const EXAMPLE = {
  nodes: [
    { id: "A", x: 60, y: 200 },
    { id: "B", x: 300, y: 70 },
    { id: "C", x: 300, y: 330 },
    { id: "D", x: 540, y: 200 },
  ],
  links: [
    { from: "A", to: "D", mean: 10, sd: 4 },
    { from: "A", to: "B", mean: 5, sd: 1 },
    { from: "B", to: "D", mean: 5.5, sd: 1 },
    { from: "A", to: "C", mean: 4, sd: 2 },
    { from: "C", to: "D", mean: 6, sd: 2 },
    { from: "C", to: "B", mean: 1.5, sd: 0.3 },
  ],
  corr: [{ a: "A>C", b: "C>D", rho: 0.8 }],
  origin: "A",
  dest: "D",
};

export function sketchPage() {
  const pad = $("#sketchpad");
  const svg = $("#sketch");
  const maxNodes = Number(pad.dataset.maxNodes), maxLinks = Number(pad.dataset.maxLinks);
  const methods = JSON.parse($("#sketch-methods").textContent);
  const st = { nodes: [], links: [], corr: [], selected: null };
  let ran = false, timer = 0, inflight = null;
  // rerunSoon runs the methods again once edits pause (after a first run).
  const rerunSoon = (ms) => {
    if (!ran) return;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
  };

  const tool = () => pad.querySelector('[name="tool"]:checked').value;
  const node = (id) => st.nodes.find((n) => n.id === id);
  const linkIndex = (from, to) => st.links.findIndex((l) => l.from === from && l.to === to);

  function load(s) {
    st.nodes = s.nodes.map((n) => ({ ...n }));
    st.links = s.links.map((l) => ({ ...l }));
    st.corr = s.corr.map((c) => ({ ...c }));
    st.selected = null;
    changed({ origin: s.origin, dest: s.dest });
  }

  // addLink adds a road (and its reverse when two-way), or updates it.
  function addLink(from, to, mean, sd) {
    if (from === to) return;
    const both = $("#two-way").checked;
    for (const [a, b] of both ? [[from, to], [to, from]] : [[from, to]]) {
      const i = linkIndex(a, b);
      if (i >= 0) Object.assign(st.links[i], { mean, sd });
      else if (st.links.length >= maxLinks) return say("draw", `A sketch holds at most ${maxLinks} roads; upload a larger network as a file.`, "error");
      else st.links.push({ from: a, to: b, mean, sd });
    }
    st.selected = linkIndex(from, to);
    changed();
  }

  function addNode(x, y) {
    if (st.nodes.length >= maxNodes) {
      say("draw", `A sketch holds at most ${maxNodes} crossings; upload a larger network as a file.`, "error");
      return null;
    }
    const used = new Set(st.nodes.map((n) => n.id));
    let k = 0;
    while (used.has(nodeName(k))) k++;
    const n = { id: nodeName(k), x: Math.round(x), y: Math.round(y) };
    st.nodes.push(n);
    changed();
    return n;
  }

  // ---- drawing ----
  function svgPoint(ev) {
    const p = svg.createSVGPoint();
    p.x = ev.clientX;
    p.y = ev.clientY;
    const q = p.matrixTransform(svg.getScreenCTM().inverse());
    return { x: Math.max(R, Math.min(600 - R, q.x)), y: Math.max(R, Math.min(400 - R, q.y)) };
  }
  const el = (tag, attrs, parent) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  };

  function draw() {
    svg.replaceChildren();
    const defs = el("defs", {}, svg);
    for (const [id, color] of [["arrow", "#555"], ["arrow-sel", "#d55e00"]]) {
      const m = el("marker", { id, viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 11, markerHeight: 11, markerUnits: "userSpaceOnUse", orient: "auto" }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", fill: color }, m);
    }
    el("rect", { x: 0, y: 0, width: 600, height: 400, class: "sketch-bg" }, svg);
    st.links.forEach((l, i) => {
      const a = node(l.from), b = node(l.to);
      const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
      const ux = dx / len, uy = dy / len;
      // A road with its reverse is drawn to its own right, so both show.
      const off = linkIndex(l.to, l.from) >= 0 ? 5 : 0;
      const ox = -uy * off, oy = ux * off;
      const x1 = a.x + ux * R + ox, y1 = a.y + uy * R + oy, x2 = b.x - ux * (R + 2) + ox, y2 = b.y - uy * (R + 2) + oy;
      const sel = st.selected === i;
      const g = el("g", { class: "sketch-link" + (sel ? " selected" : ""), "data-link": linkKey(l) }, svg);
      el("line", { x1, y1, x2, y2, class: "hit" }, g);
      el("line", { x1, y1, x2, y2, class: "road", "marker-end": `url(#${sel ? "arrow-sel" : "arrow"})`, "stroke-width": 1.5 + Math.min(5, l.sd) }, g);
      // Labels sit 42% along from the road's start: two roads that cross
      // at their middles keep their labels apart.
      const label = el("text", { x: x1 + (x2 - x1) * 0.42 + ox * 2.6, y: y1 + (y2 - y1) * 0.42 + oy * 2.6 + 4, class: "road-label" }, g);
      label.textContent = `${fmt(l.mean, 1)}±${fmt(l.sd, 1)}`;
      g.addEventListener("pointerdown", (ev) => {
        if (tool() !== "draw") return;
        ev.stopPropagation();
        st.selected = i;
        syncForms();
        $("#corr-a").value = linkKey(l); // a newly selected road is the first of a pair to correlate
        draw();
      });
    });
    const o = $("#trip-o").value, d = $("#trip-d").value;
    for (const n of st.nodes) {
      const g = el("g", { class: "sketch-node" + (n.id === o ? " origin" : n.id === d ? " dest" : ""), "data-node": n.id, transform: `translate(${n.x},${n.y})` }, svg);
      el("circle", { r: R }, g);
      const t = el("text", { y: 5 }, g);
      t.textContent = n.id;
      g.addEventListener("pointerdown", (ev) => startDrag(ev, n));
    }
    $("#sketch-count").textContent = `${st.nodes.length} crossings, ${st.links.length} roads` + (st.corr.length ? `, ${st.corr.length} correlated pairs` : "") + ".";
  }

  // A drag from a crossing: in draw mode a road to where it ends (a new
  // crossing on an empty spot); in move mode the crossing follows.
  function startDrag(ev, n) {
    ev.stopPropagation();
    ev.preventDefault();
    svg.setPointerCapture(ev.pointerId);
    const moving = tool() === "move";
    const rubber = moving ? null : el("line", { x1: n.x, y1: n.y, x2: n.x, y2: n.y, class: "rubber" }, svg);
    const move = (e) => {
      const p = svgPoint(e);
      if (moving) {
        n.x = Math.round(p.x);
        n.y = Math.round(p.y);
        draw();
      } else {
        rubber.setAttribute("x2", p.x);
        rubber.setAttribute("y2", p.y);
      }
    };
    const up = (e) => {
      svg.removeEventListener("pointermove", move);
      svg.removeEventListener("pointerup", up);
      if (moving) return changed();
      rubber.remove();
      const p = svgPoint(e);
      if (Math.hypot(p.x - n.x, p.y - n.y) < R) return; // a click on a crossing: nothing to draw
      let to = nearestNode(st.nodes, p, R * 1.6);
      if (!to) to = addNode(p.x, p.y);
      if (to && to.id !== n.id) addLink(n.id, to.id, Number($("#link-mean").value) || 5, Math.max(0, Number($("#link-sd").value) || 0));
    };
    svg.addEventListener("pointermove", move);
    svg.addEventListener("pointerup", up);
  }

  svg.addEventListener("pointerdown", (ev) => {
    if (tool() !== "draw" || ev.button !== 0) return;
    const p = svgPoint(ev);
    if (nearestNode(st.nodes, p, R * 2.2)) return; // too close to a crossing: crossings never stack
    st.selected = null;
    addNode(p.x, p.y);
  });

  // ---- forms ----
  function fillSelect(sel, items, keep) {
    const was = keep ?? sel.value;
    sel.replaceChildren(...items.map(([v, label]) => new Option(label, v)));
    if (items.some(([v]) => v === was)) sel.value = was;
  }
  function syncForms(trip = {}) {
    const ids = st.nodes.map((n) => [n.id, n.id]);
    fillSelect($("#link-from"), ids);
    fillSelect($("#link-to"), ids);
    fillSelect($("#trip-o"), ids, trip.origin);
    fillSelect($("#trip-d"), ids, trip.dest);
    if (!trip.dest && $("#trip-d").value === $("#trip-o").value && ids.length > 1) $("#trip-d").value = ids[ids.length - 1][0];
    const roads = st.links.map((l) => [linkKey(l), `${l.from} → ${l.to}`]);
    fillSelect($("#corr-a"), roads);
    fillSelect($("#corr-b"), roads);
    if ($("#corr-b").value === $("#corr-a").value && roads.length > 1) $("#corr-b").value = roads.find(([k]) => k !== $("#corr-a").value)[0];
    const l = st.links[st.selected];
    $("#link-delete").disabled = !l;
    $("#link-none").hidden = !!l;
    if (l) {
      $("#link-from").value = l.from;
      $("#link-to").value = l.to;
      $("#link-mean").value = l.mean;
      $("#link-sd").value = l.sd;
    }
    $("#corr-list").replaceChildren(
      ...st.corr.map((c, i) => {
        const li = document.createElement("li");
        li.innerHTML = `${escapeHTML(c.a.replace(">", " → "))} with ${escapeHTML(c.b.replace(">", " → "))}: ρ = ${fmt(c.rho, 2)} `;
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = "Remove";
        b.setAttribute("aria-label", `Remove the correlation of ${c.a} and ${c.b}`);
        b.addEventListener("click", () => {
          st.corr.splice(i, 1);
          changed();
        });
        li.appendChild(b);
        return li;
      })
    );
  }

  // changed redraws and, once the methods have run, runs them again.
  function changed(trip) {
    const keys = new Set(st.links.map(linkKey));
    st.corr = st.corr.filter((c) => keys.has(c.a) && keys.has(c.b));
    if (st.selected !== null && !st.links[st.selected]) st.selected = null;
    syncForms(trip);
    draw();
    rerunSoon(400);
  }

  // The selected road's fields edit it as they are typed.
  for (const [id, key, ok, why] of [
    ["#link-mean", "mean", (v) => v > 0, "A road's mean time must be positive."],
    ["#link-sd", "sd", (v) => v >= 0, "σ cannot be negative."],
  ]) {
    $(id).addEventListener("change", () => {
      const l = st.links[st.selected];
      const v = Number($(id).value);
      if (!l) return;
      if (!ok(v)) return say("link", why, "error");
      l[key] = v;
      changed();
    });
  }
  $("#link-add").addEventListener("click", () => {
    const mean = Number($("#link-mean").value), sd = Number($("#link-sd").value);
    if (!(mean > 0) || !(sd >= 0)) return say("link", "Give a positive mean time and a σ of 0 or more.", "error");
    if ($("#link-from").value === $("#link-to").value) return say("link", "A road joins two different crossings.", "error");
    addLink($("#link-from").value, $("#link-to").value, mean, sd);
  });
  $("#link-delete").addEventListener("click", () => {
    if (st.selected === null) return;
    st.links.splice(st.selected, 1);
    st.selected = null;
    changed();
  });
  $("#corr-set").addEventListener("click", () => {
    const a = $("#corr-a").value, b = $("#corr-b").value, rho = Number($("#corr-rho").value);
    if (!a || !b || a === b) return say("corr", "Pick two different roads.", "error");
    if (!(rho >= -1 && rho <= 1)) return say("corr", `ρ is from −1 to 1, not ${$("#corr-rho").value}.`, "error");
    const c = st.corr.find((c) => (c.a === a && c.b === b) || (c.a === b && c.b === a));
    if (c) c.rho = rho;
    else st.corr.push({ a, b, rho });
    changed();
    say("corr", `ρ = ${rho} between ${a} and ${b}.`, "ok");
  });
  $("#sketch-example").addEventListener("click", () => load(EXAMPLE));
  $("#sketch-clear").addEventListener("click", () => load({ nodes: [], links: [], corr: [] }));
  const fOut = () => ($("#trip-f-out").textContent = Number($("#trip-f").value).toFixed(2));
  $("#trip-f").addEventListener("input", () => {
    fOut();
    rerunSoon(250);
  });
  for (const id of ["#trip-o", "#trip-d"]) $(id).addEventListener("change", () => changed());

  // ---- run ----
  async function run() {
    clearTimeout(timer); // this run is the one a pending rerun would have been
    const o = $("#trip-o").value, d = $("#trip-d").value;
    if (!o || !d || o === d) return say("trip", "Pick an origin and a different destination.", "error");
    ran = true;
    inflight?.abort();
    const ctl = (inflight = new AbortController());
    const body = new URLSearchParams({ network: sketchJSON(st, $("#sketch-name").value), od: `${o}-${d}`, f: $("#trip-f").value });
    pad.setAttribute("aria-busy", "true");
    say("trip", "Running every method on 2,000 sampled days…");
    try {
      const res = await getJSON("/api/sketch", { method: "POST", body, signal: ctl.signal });
      if (ctl !== inflight) return;
      show(res);
      say("trip", `Done: ${res.od} with a budget of ${fmt(res.budget, 2)} min; the results are below.`, "ok");
    } catch (err) {
      if (err.name !== "AbortError") say("trip", String(err.message || err), "error");
    } finally {
      if (ctl === inflight) pad.removeAttribute("aria-busy");
    }
  }
  $("#sketch-run").addEventListener("click", run);

  function show(res) {
    const byName = Object.fromEntries(methods.map((m) => [m.name, m]));
    const rows = res.rates.map((r) => {
      const m = byName[r.method] || { name: r.method, label: "", color: "#777" };
      const tr = document.createElement("tr");
      tr.dataset.method = r.method;
      tr.dataset.testid = `sketch-row-${r.method}`;
      const name = `<th scope="row"><span class="swatch" style="background:${escapeHTML(m.color)}"></span><span class="method-name">${escapeHTML(m.name)}</span> <span class="muted method-label">${escapeHTML(m.label)}</span></th>`;
      if (r.error) {
        tr.innerHTML = `${name}<td colspan="2" class="muted" data-testid="sketch-reason">${escapeHTML(r.error)}</td>`;
      } else {
        const bar = `<span class="rate-bar" aria-hidden="true"><span style="left:${(r.lo * 100).toFixed(1)}%;width:${((r.hi - r.lo) * 100).toFixed(1)}%"></span><i style="left:${(r.rate * 100).toFixed(1)}%;background:${escapeHTML(m.color)}"></i></span>`;
        tr.innerHTML = `${name}<td class="num" data-testid="sketch-rate">${fmt(r.rate, 3)}</td><td class="num">${fmt(r.lo, 3)}–${fmt(r.hi, 3)} ${bar}</td>`;
      }
      return tr;
    });
    $(".sketch-results tbody").replaceChildren(...rows);
    // The methods a traveller could follow that were on time most often
    // (ties named together: on one pool several often take the same way).
    const ran = res.rates.filter((r) => !r.error && !byName[r.method]?.bound);
    const top = Math.max(...ran.map((r) => r.on_time));
    const best = ran.filter((r) => r.on_time === top).map((r) => r.method);
    let text = `Trip ${res.od}: fastest on average ${fmt(res.let_time, 2)} min, budget ${fmt(res.budget, 2)} min.` + (best.length ? ` Most often on time: ${best.join(", ")} (${fmt(top / ran[0].n, 3)}).` : "");
    if (res.clipped > 0) text += ` The correlations asked for cannot all hold at once: ${res.clipped} negative eigenvalue${res.clipped > 1 ? "s were" : " was"} set to 0, so the drawn network is the nearest one that can.`;
    $("#sketch-summary").textContent = text;
  }

  // ---- keep ----
  const download = (text, type, file) => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type }));
    a.download = file;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  const fileName = () => ($("#sketch-name").value.trim() || "sketch").replace(/[^A-Za-z0-9._-]+/g, "-");
  $("#sketch-json").addEventListener("click", () => download(sketchJSON(st, fileName()), "application/json", `${fileName()}.json`));
  $("#sketch-csv").addEventListener("click", () => download(sketchCSV(st), "text/csv", `${fileName()}.csv`));
  $("#sketch-save").addEventListener("submit", (ev) => {
    if (st.links.length === 0) {
      ev.preventDefault();
      return say("save", "Draw at least one road before saving.", "error");
    }
    const o = $("#trip-o").value, d = $("#trip-d").value;
    const dt = new DataTransfer();
    dt.items.add(new File([sketchJSON(st, fileName(), o && d && o !== d ? [`${o}-${d}`] : [])], `${fileName()}.json`, { type: "application/json" }));
    $("#sketch-file").files = dt.files;
  });

  load(EXAMPLE);
  document.body.dataset.ready = "1";
}
