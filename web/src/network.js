import { loadNetwork, drawNetwork, legend } from "./map.js";
import { $, addODPair } from "./util.js";

export async function networkPage() {
  const el = $("#map");
  const net = await loadNetwork(el.dataset.network, el.dataset.src);
  if (el.dataset.pickLink) {
    // A fitted network's data page: a click on a link shows that link's
    // observed times (the menu beside it does the same by keyboard).
    const shown = Number(el.dataset.pickLink) - 1;
    const m = drawNetwork(el, net, {
      onLinkClick(e) { location.search = `?link=${e + 1}`; },
    });
    // The observed links stand out (coloured by CV, they were the palest
    // and nobody found them); the others keep the default law.
    const observed = new Set((el.dataset.observed || "").split(",").filter(Boolean).map((k) => Number(k) - 1));
    m.links.forEach((line, i) => line.setStyle(observed.has(i) ? { color: "#0b4f9c", weight: 5, opacity: 1 } : { color: "#9a9a9a", weight: 2, opacity: 0.8 }));
    $("#legend").innerHTML = '<span class="stop"><span class="swatch" style="background:#0b4f9c"></span>observed (its times and fitted law)</span>' +
      '<span class="stop"><span class="swatch" style="background:#9a9a9a"></span>not observed: default law</span>' +
      '<span class="stop"><span class="swatch" style="background:#c20aa3"></span>the link shown</span>';
    const line = m.links[shown];
    if (line) { line.options.picked = true; line.setStyle({ color: "#c20aa3", weight: 7 }); line.bringToFront(); }
    document.body.dataset.ready = "1";
    return;
  }
  if (el.dataset.src) {
    // An upload's preview, coloured by mean time: a click on an origin,
    // then on a destination, adds the pair to the OD field saved with it.
    const field = $("#save-ods");
    let from = null;
    const m = drawNetwork(el, net, {
      onNodeClick(i) {
        if (from === null) {
          from = i;
          m.markNode(i, "origin");
          return;
        }
        if (i === from) return;
        m.markNode(i, "dest");
        field.value = addODPair(field.value, `${net.nodes[from].id}-${net.nodes[i].id}`);
        const a = from;
        from = null;
        setTimeout(() => { m.markNode(a, "none"); m.markNode(i, "none"); }, 600);
      },
    });
    m.colorBy("mean");
    document.body.dataset.ready = "1";
    return;
  }
  let origin = null, dest = null;
  const link = $("#compare-link");
  const m = drawNetwork(el, net, {
    onNodeClick(i) {
      if (origin === null || dest !== null) {
        if (origin !== null) m.markNode(origin, "none");
        if (dest !== null) m.markNode(dest, "none");
        origin = i; dest = null;
        m.markNode(i, "origin");
      } else if (i !== origin) {
        dest = i;
        m.markNode(i, "dest");
      }
      $("#od-origin").textContent = origin === null ? "–" : net.nodes[origin].id;
      $("#od-dest").textContent = dest === null ? "–" : net.nodes[dest].id;
      if (origin !== null && dest !== null) {
        link.href = `/compare?net=${encodeURIComponent(net.name)}&o=${encodeURIComponent(net.nodes[origin].id)}&d=${encodeURIComponent(net.nodes[dest].id)}`;
      }
    },
  });
  const sel = $("#color-by");
  const apply = () => legend($("#legend"), m.colorBy(sel.value));
  sel.addEventListener("change", apply);
  apply();
  document.body.dataset.ready = "1";
}

