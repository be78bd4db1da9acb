// Figure downloads: every figure as SVG and PNG (the drawing shown) and the
// numbers it draws as CSV. The files are made in the browser from what the
// page holds, so a download is exactly the figure on screen.
import { escapeHTML } from "./util.js";

// csv turns rows (arrays of numbers or strings) into CSV text.
export function csv(rows) {
  const cell = (v) => (typeof v === "number" ? String(v) : /[",\n]/.test(v) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  return rows.map((r) => r.map(cell).join(",")).join("\n") + "\n";
}

// standaloneSVG makes a page-drawn SVG a file of its own: the page's
// styles (font, white ground) inline, and its HTML legend (the swatches in
// legendEl) drawn into a band above the plot, so the file reads without
// the page.
export function standaloneSVG(svg, legendEl) {
  const vb = svg.viewBox.baseVal;
  const W = vb.width, H = vb.height;
  const keys = legendEl ? [...legendEl.querySelectorAll(".story-key")] : [];
  const row = 16, band = keys.length ? row * Math.ceil(keys.length / 2) + 6 : 0;
  const legend = keys.map((k, i) => {
    const x = 8 + (i % 2) * (W / 2), y = 12 + Math.floor(i / 2) * row;
    const sw = k.querySelector(".swatch");
    let color = sw ? getComputedStyle(sw).backgroundColor : "#000";
    if (!color || color === "rgba(0, 0, 0, 0)" || color === "transparent") color = "#000";
    return `<rect x="${x}" y="${y - 9}" width="12" height="10" fill="${color}"/><text x="${x + 16}" y="${y}">${escapeHTML(k.textContent.trim())}</text>`;
  }).join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H + band}" viewBox="0 0 ${W} ${H + band}" font-family="sans-serif" font-size="11">` +
    `<rect width="${W}" height="${H + band}" fill="#fff"/>${legend}<g transform="translate(0 ${band})">${svg.innerHTML}</g></svg>`;
}

// png rasterizes SVG text at twice its size on white.
export async function png(svgText) {
  const url = URL.createObjectURL(new Blob([svgText], { type: "image/svg+xml" }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = 2 * (img.naturalWidth || 600);
    c.height = 2 * (img.naturalHeight || 350);
    const g = c.getContext("2d");
    g.fillStyle = "#fff";
    g.fillRect(0, 0, c.width, c.height);
    g.drawImage(img, 0, 0, c.width, c.height);
    return await new Promise((resolve) => c.toBlob(resolve, "image/png"));
  } finally {
    URL.revokeObjectURL(url);
  }
}

function save(blob, filename) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

// downloads returns a "Download SVG · PNG · CSV" line for a figure: get()
// answers { svg, csv } (text) at the moment of the click. id prefixes the
// buttons' test ids (id-svg, id-png, id-csv) and names the files; kinds
// leaves some out (a table's figure has its data only).
export function downloads(id, get, kinds = ["svg", "png", "csv"]) {
  const p = document.createElement("p");
  p.className = "downloads";
  p.append("Download ");
  const button = (kind, label, make) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "link";
    b.textContent = label;
    b.dataset.testid = `${id}-${kind}`;
    b.addEventListener("click", async () => save(await make(get()), `ontime-${id}.${kind}`));
    return b;
  };
  const all = {
    svg: () => button("svg", "SVG", (f) => new Blob([f.svg], { type: "image/svg+xml" })),
    png: () => button("png", "PNG", (f) => png(f.svg)),
    csv: () => button("csv", "data (CSV)", (f) => new Blob([f.csv], { type: "text/csv" })),
  };
  kinds.forEach((k, i) => p.append(...(i ? [" · "] : []), all[k]()));
  return p;
}

// axisValue maps a pointer's x (client pixels) on an svg drawn with
// data-lo/hi/x0/x1 to a value on its axis, clamped to the axis.
export function axisValue(svg, rect, clientX) {
  const vb = svg.viewBox.baseVal;
  const vx = ((clientX - rect.left) / (rect.width || 1)) * vb.width + vb.x;
  const d = svg.dataset;
  const lo = Number(d.lo), hi = Number(d.hi), x0 = Number(d.x0), x1 = Number(d.x1);
  const t = lo + ((vx - x0) / (x1 - x0 || 1)) * (hi - lo);
  return Math.max(lo, Math.min(hi, t));
}

// dragBudget lets the pointer move a figure's budget line: a press or a
// drag anywhere on the plot (el's svg, drawn with its axis in data-lo/hi/
// x0/x1) calls onValue with the time under the pointer. The listeners sit
// on el, so a figure redrawn on every move keeps them; the slider beside
// the figure stays the keyboard's way to the same value.
export function dragBudget(el, onValue) {
  let dragging = false;
  const at = (e) => {
    const svg = el.querySelector("svg[data-lo]");
    if (svg) onValue(axisValue(svg, svg.getBoundingClientRect(), e.clientX));
  };
  el.addEventListener("pointerdown", (e) => {
    if (!e.target.closest("svg[data-lo]")) return;
    dragging = true;
    el.setPointerCapture(e.pointerId);
    e.preventDefault();
    at(e);
  });
  el.addEventListener("pointermove", (e) => { if (dragging) at(e); });
  const end = () => { dragging = false; };
  el.addEventListener("pointerup", end);
  el.addEventListener("pointercancel", end);
  el.classList.add("draggable-budget");
}
