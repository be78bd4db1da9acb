// The sketchpad's drawing as data: ontime's JSON network format and the
// link CSV, without the page (node tests read them).

// nodeName is the k-th crossing's id: A … Z, then AA, AB, ….
export function nodeName(k) {
  let s = "";
  for (k += 1; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(65 + ((k - 1) % 26)) + s;
  return s;
}

// linkKey names a road by its ends (a sketch has one road each way).
export const linkKey = (l) => `${l.from}>${l.to}`;

// nearestNode is the crossing within radius of p, if any.
export function nearestNode(nodes, p, radius) {
  let best = null, bestD = radius;
  for (const n of nodes) {
    const d = Math.hypot(n.x - p.x, n.y - p.y);
    if (d < bestD) [best, bestD] = [n, d];
  }
  return best;
}

// covariance is the links' covariance matrix: σ² on the diagonal, ρ σa σb
// for each correlated pair, 0 elsewhere (null when no pair is correlated).
export function covariance(st) {
  if (st.corr.length === 0) return null;
  const index = new Map(st.links.map((l, i) => [linkKey(l), i]));
  const c = st.links.map((a, i) => st.links.map((b, j) => (i === j ? a.sd * a.sd : 0)));
  for (const { a, b, rho } of st.corr) {
    const i = index.get(a), j = index.get(b);
    if (i === undefined || j === undefined || i === j) continue;
    c[i][j] = c[j][i] = rho * st.links[i].sd * st.links[j].sd;
  }
  return c;
}

// sketchJSON writes the drawing in ontime's network format. The drawing's y
// grows downwards; the format's y is north.
export function sketchJSON(st, name, ods = []) {
  const cov = covariance(st);
  return JSON.stringify({
    format: "ontime-network",
    version: 1,
    name: name || "sketch",
    description: "drawn on ontime's sketchpad",
    coordinates: "planar",
    nodes: st.nodes.map((n) => ({ id: n.id, x: n.x, y: -n.y })),
    links: st.links.map((l) => ({ from: l.from, to: l.to, mean: l.mean, variance: l.sd * l.sd })),
    correlation: cov ? { model: "explicit", covariance: cov } : { model: "independent" },
    ...(ods.length ? { ods } : {}),
  });
}

// sketchCSV writes the roads as the link CSV (From,To,Cost,Var).
export function sketchCSV(st) {
  return ["From,To,Cost,Var", ...st.links.map((l) => `${l.from},${l.to},${l.mean},${l.sd * l.sd}`)].join("\n") + "\n";
}
