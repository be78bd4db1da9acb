// A link's course on the map: straight from node to node, or through the
// bend points its source gave (OpenStreetMap ways, GMNS geometry). Pure
// geometry, so the renderers share it and node's test runner checks it.

// course is the link's points [x, y] from its tail node to its head node.
export function course(nodes, l) {
  const a = nodes[l.from], b = nodes[l.to];
  return [[a.x, a.y], ...(l.shape || []), [b.x, b.y]];
}

// offsetCourse shifts every point s to the right of the direction of
// travel (the mean of its two segments' normals at a bend), so that the
// two directions of a two-way road are drawn side by side.
export function offsetCourse(pts, s) {
  const normal = (p, q) => {
    const dx = q[0] - p[0], dy = q[1] - p[1], len = Math.hypot(dx, dy);
    return len ? [dy / len, -dx / len] : null;
  };
  return pts.map((p, i) => {
    const n1 = i > 0 ? normal(pts[i - 1], p) : null;
    const n2 = i < pts.length - 1 ? normal(p, pts[i + 1]) : null;
    let nx = (n1 ? n1[0] : 0) + (n2 ? n2[0] : 0), ny = (n1 ? n1[1] : 0) + (n2 ? n2[1] : 0);
    const len = Math.hypot(nx, ny);
    if (!len) return [p[0], p[1]];
    // At a bend the mean normal is shorter than 1: scale it back so the
    // offset is s from both segments (capped where the bend turns back).
    const cos = n1 && n2 ? Math.max(0.5, (n1[0] * n2[0] + n1[1] * n2[1] + 1) / 2) : 1;
    nx /= len; ny /= len;
    const k = s / Math.sqrt(cos);
    return [p[0] + nx * k, p[1] + ny * k];
  });
}

// courseBox is [minX, minY, maxX, maxY] of the points.
export function courseBox(pts) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [x, y] of pts) {
    x0 = Math.min(x0, x); y0 = Math.min(y0, y);
    x1 = Math.max(x1, x); y1 = Math.max(y1, y);
  }
  return [x0, y0, x1, y1];
}

// networkBox is the box of every node and every road's bends: what a map's
// view must hold.
export function networkBox(nodes, links) {
  return courseBox([...nodes.map((n) => [n.x, n.y]), ...links.flatMap((l) => l.shape || [])]);
}

// segDist is the distance from (px, py) to the segment a–b.
export function segDist(px, py, ax, ay, bx, by) {
  const dx = bx - ax, dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}

// courseDist is the distance from (px, py) to the nearest of the course's
// segments.
export function courseDist(pts, px, py) {
  let d = Infinity;
  for (let i = 1; i < pts.length; i++) d = Math.min(d, segDist(px, py, pts[i - 1][0], pts[i - 1][1], pts[i][0], pts[i][1]));
  return d;
}
