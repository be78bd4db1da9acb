// The map beside a run form (Compare, Live): the network coloured by mean
// link time, the chosen origin and destination marked, a click picking the
// origin then the destination, and the budget in minutes beside the slider.
import { loadNetwork, drawNetwork } from "./map.js";
import { $, fmt } from "./util.js";
import { shortestTimes } from "./paths.js";

export async function odMap(form, el, { onPick } = {}) {
  const net = await loadNetwork(el.dataset.network);
  const field = (name) => form.querySelector(`[name="${name}"]`);
  const m = drawNetwork(el, net, {
    onNodeClick(i, n) {
      // click: origin, then destination
      if (form.dataset.pick !== "d") { field("o").value = n.id; form.dataset.pick = "d"; }
      else { field("d").value = n.id; form.dataset.pick = "o"; }
      markOD();
      // A pair picked on the map is run at once (the old answer would
      // otherwise answer a question no longer asked).
      if (form.dataset.pick === "o" && onPick) onPick();
    },
  });
  m.colorBy("mean");
  function markOD() {
    net.nodes.forEach((_, i) => m.markNode(i, "none"));
    const idx = (id) => net.nodes.findIndex((n) => n.id === id);
    const o = idx(field("o").value), d = idx(field("d").value);
    if (o >= 0) m.markNode(o, "origin");
    if (d >= 0) m.markNode(d, "dest");
    showBudget();
  }
  // Any pair's LET time: the benchmark's pairs carry theirs, any other is
  // the shortest mean-time path, found here (the budget is its multiple).
  const letFrom = new Map();
  function letTime(o, d) {
    const od = net.ods.find((x) => x.origin === o && x.destination === d);
    if (od) return od.let_time;
    const idx = (id) => net.nodes.findIndex((n) => n.id === id);
    const oi = idx(o), di = idx(d);
    if (oi < 0 || di < 0 || oi === di) return NaN;
    if (!letFrom.has(oi)) letFrom.set(oi, shortestTimes(net, oi));
    return letFrom.get(oi)[di];
  }
  function showBudget() {
    const t = letTime(field("o").value, field("d").value);
    const f = Number(field("f").value);
    $("#budget-minutes").textContent = Number.isFinite(t) ? `T = ${fmt(f * t, 2)} min (LET ${fmt(t, 2)})` : field("o").value === field("d").value ? "" : "no route between these nodes";
  }
  markOD();
  return { map: m, net, markOD, showBudget };
}

