// ontime's front end: one bundle (esbuild), one module per page. The server
// computes everything; the browser draws.
import "leaflet/dist/leaflet.css";
import "./app.css";
import { networkPage } from "./network.js";
import { storyPage } from "./story.js";
import { comparePage } from "./compare.js";
import { livePage } from "./live.js";
import { teachPage } from "./teach.js";
import { benchPage } from "./bench.js";
import { jobPage } from "./job.js";
import { status } from "./util.js";

const pages = { networks: () => (document.querySelector("#story") ? storyPage() : document.querySelector("#map") ? networkPage() : (document.body.dataset.ready = "1")), compare: comparePage, live: livePage, teach: teachPage, bench: benchPage, jobs: jobPage };

const start = pages[document.body.dataset.page];
if (start) {
  Promise.resolve()
    .then(start)
    .catch((err) => status(String(err.message || err), "error"));
} else {
  document.body.dataset.ready = "1";
}
