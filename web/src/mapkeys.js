// Keyboard picking on a network map, for both renderers (SVG and canvas).
import L from "leaflet";

// pickByKeyboard makes the map one keyboard widget: with it focused, N and
// P step through the nodes (the node's label opens and is announced), digits
// go to the node of that id, Enter
// picks the node as a click would; arrows and +/− still pan and zoom. show
// and hide mark the node under the keyboard's cursor (each renderer its way).
export function pickByKeyboard(el, map, net, onNodeClick, { show, hide }) {
  const container = map.getContainer();
  const hint = document.createElement("p");
  hint.className = "visually-hidden";
  hint.id = `${el.id}-keys`;
  hint.textContent = "Map: N and P step through the nodes, or type a node's number; Enter picks the node as origin, then destination.";
  const live = document.createElement("p");
  live.className = "visually-hidden";
  live.setAttribute("aria-live", "polite");
  live.dataset.testid = "map-announce";
  el.after(hint, live);
  container.setAttribute("aria-describedby", hint.id);
  container.setAttribute("aria-keyshortcuts", "N P 0 1 2 3 4 5 6 7 8 9 Enter");
  // Typed digits go to the node of that id: on a city's thousands of nodes
  // N and P alone would be no way to get anywhere.
  const byId = new Map(net.nodes.map((n, i) => [String(n.id), i]));
  let cur = -1, typed = "", typedAt = 0;
  const go = (i) => {
    if (cur >= 0) hide(cur);
    cur = i;
    show(cur);
    map.panTo(L.latLng(net.nodes[cur].y, net.nodes[cur].x), { animate: false });
    live.textContent = `node ${net.nodes[cur].id}`;
  };
  container.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const step = { n: 1, N: 1, p: -1, P: -1 }[e.key];
    if (step) {
      typed = "";
      go((cur + step + net.nodes.length) % net.nodes.length);
      e.preventDefault();
    } else if (/^[0-9]$/.test(e.key)) {
      typed = (e.timeStamp - typedAt < 1500 ? typed : "") + e.key;
      typedAt = e.timeStamp;
      if (byId.has(typed)) go(byId.get(typed));
      else live.textContent = `no node ${typed} yet`;
      e.preventDefault();
    } else if (e.key === "Enter" && cur >= 0) {
      typed = ""; // the next digits name the next node
      onNodeClick(cur, net.nodes[cur]);
      live.textContent = `picked node ${net.nodes[cur].id}`;
      e.preventDefault();
    }
  });
}
