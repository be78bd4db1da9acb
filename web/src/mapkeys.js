// Keyboard picking on a network map, for both renderers (SVG and canvas).
import { nodeKey } from "./nodekeys.js";

// pickByKeyboard makes the map one keyboard widget: with it focused, N and
// P step through the nodes (the node's label opens and is announced), digits
// go to the node of that id, Enter
// picks the node as a click would; arrows and +/− still pan and zoom. show
// and hide mark the node under the keyboard's cursor (each renderer its way);
// at(i) is node i's place on the map.
export function pickByKeyboard(el, map, net, onNodeClick, { show, hide, at }) {
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
  let keys = { cur: -1, typed: "", typedAt: 0 };
  let shown = -1;
  const go = (i) => {
    if (shown >= 0) hide(shown);
    shown = i;
    show(i);
    map.panTo(at(i), { animate: false });
    live.textContent = `node ${net.nodes[i].id}`;
  };
  container.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const r = nodeKey(keys, e.key, e.timeStamp, byId, net.nodes.length);
    keys = r.state;
    if (!r.handled) return;
    if (r.go !== undefined) go(r.go);
    if (r.say) live.textContent = r.say;
    if (r.pick) {
      onNodeClick(keys.cur, net.nodes[keys.cur]);
      live.textContent = `picked node ${net.nodes[keys.cur].id}`;
    }
    e.preventDefault();
  });
}
