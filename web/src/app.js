// ontime's front end: one bundle (esbuild), one module per page. The server
// computes everything; the browser draws.
import "leaflet/dist/leaflet.css";
import "./app.css";
import { networkPage } from "./network.js";
import { storyPage } from "./story.js";
import { comparePage } from "./compare.js";
import { livePage } from "./live.js";
import { teachPage } from "./teach.js";
import { lessonPage, lessonFrame } from "./lesson.js";
import { benchPage } from "./bench.js";
import { jobPage } from "./job.js";
import { sketchPage } from "./sketch.js";
import { status } from "./util.js";
import { workingForms, modelBuilds } from "./working.js";

const pages = { networks: () => (document.querySelector("#story") ? storyPage() : document.querySelector("#sketchpad") ? sketchPage() : document.querySelector("#map") ? networkPage() : (document.body.dataset.ready = "1")), compare: comparePage, live: livePage, teach: () => (document.querySelector("#observed") ? (lessonFrame(), teachPage()) : document.querySelector("#lesson") ? lessonPage() : (document.body.dataset.ready = "1")), bench: benchPage, jobs: jobPage };

// A region that scrolls must be reachable by keyboard (WCAG 2.1.1): tables
// scroll sideways on a phone, the steps list down. Each one that scrolls
// now gets a tab stop; checked again as pages fill in.
function focusableScrollers() {
  for (const el of document.querySelectorAll("table, .steps, .log")) {
    const scrolls = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
    if (scrolls && !el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
  }
}
// A table that becomes cards on a phone (CSS: table.phone-cards) labels
// each cell with its column's header, as rows arrive.
function labelCells() {
  for (const table of document.querySelectorAll("table.phone-cards")) {
    const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    for (const tr of table.querySelectorAll("tbody tr")) {
      [...tr.children].forEach((cell, i) => {
        if (cell.tagName === "TD" && heads[i] && !cell.dataset.label) cell.dataset.label = heads[i];
      });
    }
  }
}
let pending = 0;
new MutationObserver(() => {
  if (!pending) pending = requestAnimationFrame(() => { pending = 0; focusableScrollers(); labelCells(); });
}).observe(document.body, { childList: true, subtree: true });
window.addEventListener("resize", focusableScrollers);
focusableScrollers();
labelCells();
workingForms();
// A folded method list's summary names what is ticked.
for (const d of document.querySelectorAll("details.methods-choice")) {
  d.addEventListener("change", () => {
    const names = [...d.querySelectorAll('input[name="m"]:checked')].map((i) => i.value);
    d.querySelector(".methods-chosen").textContent = names.join(", ") || "none";
  });
}
modelBuilds();

const start = pages[document.body.dataset.page];
if (start) {
  Promise.resolve()
    .then(start)
    .catch((err) => status(String(err.message || err), "error"));
} else {
  document.body.dataset.ready = "1";
}
