// Where a hover tooltip goes beside the pointer: tipSide is pure
// arithmetic, so node's test runner checks it; turnTooltip reads the page
// and sets a Leaflet tooltip by it.
//
// Above the pointer and centred reads best, but the map's frame cuts off
// what crosses it and its controls cover what lies under them: on a phone
// the map is about 365 px wide and a link's tooltip about 230, so centred
// on a pointer within half its width of a side it lost its first or last
// words. There it turns below, or aside.

// TIP_GAP is the pixels between the pointer and the tooltip.
export const TIP_GAP = 8;

// ARROW is the margin Leaflet's style puts between a tooltip and the
// point it is placed at, for its arrow (leaflet.css: 6px on each side).
const ARROW = 6;

// tipBox is a tooltip's box [left, top, right, bottom] on a side of the
// pointer at (x, y), as Leaflet places it with tipOffset's offset.
export function tipBox(side, x, y, tipW, tipH) {
  const g = TIP_GAP + ARROW;
  switch (side) {
    case "top": return [x - tipW / 2, y - g - tipH, x + tipW / 2, y - g];
    case "bottom": return [x - tipW / 2, y + g, x + tipW / 2, y + g + tipH];
    case "right": return [x + g, y - tipH / 2, x + g + tipW, y + tipH / 2];
    default: return [x - g - tipW, y - tipH / 2, x - g, y + tipH / 2];
  }
}

// overlap is the area two boxes [left, top, right, bottom] share.
const overlap = ([l, t, r, b], [l2, t2, r2, b2]) => Math.max(0, Math.min(r, r2) - Math.max(l, l2)) * Math.max(0, Math.min(b, b2) - Math.max(t, t2));

// tipSide is the side of the pointer at (x, y), on a map w × h pixels,
// that a tooltip tipW × tipH pixels goes: the first of above, below, and
// aside (towards the map's wider half first) where it lies pad pixels
// inside the map's edges and off every box of avoid (the map's controls,
// [left, top, right, bottom] each). Where none is (a tooltip wider than
// half the map, beside a control), the side that shows the most of it.
export function tipSide(x, y, w, h, tipW, tipH, avoid = [], pad = 4) {
  const inner = [pad, pad, w - pad, h - pad];
  const clear = (side) => {
    const box = tipBox(side, x, y, tipW, tipH), [l, t, r, b] = box;
    return l >= pad && t >= pad && r <= w - pad && b <= h - pad && avoid.every((c) => overlap(box, c) === 0);
  };
  const shown = (side) => {
    const box = tipBox(side, x, y, tipW, tipH);
    return overlap(box, inner) - avoid.reduce((a, c) => a + overlap(box, c), 0);
  };
  const aside = x < w / 2 ? ["right", "left"] : ["left", "right"];
  const sides = ["top", "bottom", ...aside];
  return sides.find(clear) || sides.reduce((best, s) => (shown(s) > shown(best) ? s : best));
}

// tipOffset is Leaflet's offset for a tooltip on that side: TIP_GAP
// pixels away from the pointer.
export function tipOffset(side) {
  return { top: [0, -TIP_GAP], bottom: [0, TIP_GAP], right: [TIP_GAP, 0], left: [-TIP_GAP, 0] }[side];
}

// turnTooltip sets a Leaflet tooltip's side for a pointer at point (the
// event's containerPoint) on map, before Leaflet places it. Its size is
// read from the page: unknown before it first opens, it is left as it is.
export function turnTooltip(tip, point, map) {
  const el = tip && tip.getElement();
  if (!el) return;
  const size = map.getSize(), frame = map.getContainer().getBoundingClientRect();
  const controls = [...map.getContainer().querySelectorAll(".leaflet-control")].map((c) => {
    const r = c.getBoundingClientRect();
    return [r.left - frame.left, r.top - frame.top, r.right - frame.left, r.bottom - frame.top];
  });
  const side = tipSide(point.x, point.y, size.x, size.y, el.offsetWidth, el.offsetHeight, controls);
  tip.options.direction = side;
  tip.options.offset = tipOffset(side);
}
