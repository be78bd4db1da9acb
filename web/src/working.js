// A form whose answer takes a while (an upload read and checked in a
// worker) says so while it is sent: what is happening, for how long so
// far, and the limit after which the dashboard stops it. The browser's own
// indicator is easy to miss, and a second click would send it again.
export function workingForms() {
  for (const form of document.querySelectorAll("form[data-working]")) {
    form.addEventListener("submit", () => {
      const button = form.querySelector('button[type="submit"], button:not([type])');
      let note = form.querySelector(".working");
      if (!note) {
        note = document.createElement("p");
        note.className = "working";
        note.setAttribute("role", "status");
        note.dataset.testid = "working";
        form.append(note);
      }
      const limit = Number(form.dataset.workingLimit) || 0;
      const started = Date.now();
      const tell = () => {
        const s = Math.round((Date.now() - started) / 1000);
        note.textContent = `${form.dataset.working}… ${s} s` + (limit ? ` (the dashboard stops after ${limit} s of reading and checking)` : "");
      };
      tell();
      setInterval(tell, 1000);
      // Disabled after the browser has taken the submission: a disabled
      // button submits nothing.
      if (button) setTimeout(() => (button.disabled = true), 0);
      form.setAttribute("aria-busy", "true");
    });
  }
}

// A network page whose link-time model is being built follows the build:
// its progress bar moves by the estimate, and when the model is ready the
// notice says so and links to the runs. Polled every 5 s; the page itself
// (its map) is never reloaded.
export function modelBuilds() {
  for (const notice of document.querySelectorAll("[data-model-src]")) {
    const bar = notice.querySelector("progress");
    const text = notice.querySelector("[data-testid=building-text]");
    const poll = async () => {
      let res;
      try {
        res = await fetch(notice.dataset.modelSrc, { headers: { Accept: "application/json" } });
      } catch {
        setTimeout(poll, 5000);
        return;
      }
      const body = await res.json().catch(() => ({}));
      if (res.ok) {
        const net = encodeURIComponent(notice.dataset.modelSrc.split("/")[3]);
        text.textContent = "Its link-time model is ready: ";
        const a = document.createElement("a");
        a.href = `/compare?net=${net}`;
        a.textContent = "compare routes";
        text.append(a, ".");
        bar.remove();
        notice.dataset.ready = "1";
        return;
      }
      if (body.building) bar.value = body.building.fraction;
      else if (body.error) text.textContent = body.error; // the build failed: say why
      if (res.status === 503) setTimeout(poll, 5000);
    };
    setTimeout(poll, 5000);
  }
}
