// How a map places the drawing frame's points (x, y), and back. Pure
// arithmetic, so node's test runner checks it.
//
// Without tiles the map is Leaflet's flat CRS.Simple on the frame itself:
// the network alone, nothing fetched, works offline. With a tile server
// (ontime serve --tiles) and a longitude/latitude network, the map is Web
// Mercator and a point goes back to its longitude/latitude through the
// frame's inverse (the map JSON's `frame`, engine.LocalFrame), so the
// network lies on the tiles.

// tileSettings reads the server's tile setting from the page (the body's
// data-tiles), or null.
export function tileSettings(body) {
  const url = body && body.dataset && body.dataset.tiles;
  return url ? { url, attribution: body.dataset.tilesAttribution || "" } : null;
}

// mapFrame is the frame a network is drawn in: whether on tiles (mercator),
// its zoom range, point conversions as [lat, lng] pairs, and how many frame
// units (metres on a lon/lat network) a screen pixel covers at a zoom.
export function mapFrame(net, tiles) {
  const f = tiles ? net.frame : null;
  if (!f) {
    return {
      mercator: false, minZoom: -12, maxZoom: 6,
      toLatLng: (x, y) => [y, x],
      fromLatLng: (lat, lng) => [lng, lat],
      unitsPerPx: (zoom) => 2 ** -zoom, // CRS.Simple: 2^zoom pixels a unit
    };
  }
  const ky = f.metres_per_degree, kx = ky * f.cos_lat0;
  return {
    mercator: true, minZoom: 2, maxZoom: 19,
    toLatLng: (x, y) => [f.lat0 + y / ky, f.lon0 + x / kx],
    fromLatLng: (lat, lng) => [(lng - f.lon0) * kx, (lat - f.lat0) * ky],
    // Web Mercator's world is 256·2^zoom pixels around the equator, 360
    // degrees of longitude: at the frame's latitude a pixel covers this many
    // metres (the frame's scale there, within 0.1% across a state).
    unitsPerPx: (zoom) => (360 * kx) / (256 * 2 ** zoom),
  };
}
