// A network's map data as the server sends it (server/mapjson.go): the
// columns layout, read back into an object per node and per link. No
// Leaflet here, so node's tests read it.

// mapURL is a network's map data in the columns layout (server/mapjson.go):
// a third of the objects layout's size at 249,000 links, and parsed
// several times faster. Pages with a map preload this URL (web.MapURL).
export const mapURL = (name) => `/api/networks/${encodeURIComponent(name)}?layout=columns`;

// fromColumns reads the columns layout back into the objects layout. A
// link's bends stay in the flat column (net.bends) and become its shape
// only when asked: a city's 170,000 bends are not 170,000 arrays.
export function fromColumns(j) {
  if (j.layout !== "columns") return j;
  const N = j.nodes, E = j.links;
  const bends = E.shape_at ? { at: E.shape_at, xy: E.shape } : null;
  class Link {
    constructor(id) {
      this.id = id;
      this.from = E.from[id];
      this.to = E.to[id];
      this.mean = E.mean[id];
      this.sd = E.sd[id];
    }
    // shape is the road's course between its ends ([x, y] each), or
    // undefined for a straight link, as in the objects layout.
    get shape() {
      const a = bends ? bends.at[this.id] : 0, z = bends ? bends.at[this.id + 1] : 0;
      if (z <= a) return undefined;
      const out = [];
      for (let k = a; k < z; k++) out.push([bends.xy[2 * k], bends.xy[2 * k + 1]]);
      return out;
    }
  }
  const nodes = N.id.map((id, i) => ({ id, x: N.x[i], y: N.y[i] }));
  const links = E.from.map((_, i) => new Link(i));
  return { name: j.name, coords: j.coords, nodes, links, ods: j.ods, bends, ...(j.frame ? { frame: j.frame } : {}) };
}
