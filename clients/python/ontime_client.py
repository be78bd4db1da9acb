"""A client for ontime's JSON API (GET /api/openapi.json describes it).

Standard library only, so it runs on any Python 3.8 or newer without
installing anything: copy this file beside your script, or
``pip install clients/python``.

    from ontime_client import Client
    c = Client("http://127.0.0.1:8080")
    print([n["name"] for n in c.networks()])
    plan = c.plan("sfn", origin="2", dest="15", reliability=0.95)
    report = c.benchmark("sfn", methods=["let", "dot", "cdot"], progress=print)

Times are minutes; a budget factor multiplies the OD pair's
least-expected-time (LET) travel time.
"""

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

__all__ = ["Client", "APIError"]
__version__ = "0.1.0"


class APIError(Exception):
    """An answer other than success: the server's message, its HTTP status,
    the error code and the parameter at fault (field), and for a refused
    upload the import report (whose problems name file, line and field)."""

    def __init__(self, status, message, code=None, field=None, report=None):
        super().__init__("%d: %s" % (status, message))
        self.status = status
        self.message = message
        self.code = code
        self.field = field
        self.report = report


class Client:
    """One dashboard's API. token: a class server's access token, needed
    for changes (uploads, jobs, deletions)."""

    def __init__(self, url="http://127.0.0.1:8080", token=None, timeout=600):
        self.url = url.rstrip("/")
        self.token = token if token is not None else os.environ.get("ONTIME_TOKEN")
        self.timeout = timeout

    # -- plumbing ---------------------------------------------------------

    def _request(self, method, path, params=None, body=None, content_type=None):
        url = self.url + path
        if params:
            url += "?" + urllib.parse.urlencode(
                [(k, v) for k, vs in params.items() if vs is not None
                 for v in (vs if isinstance(vs, (list, tuple)) else [vs])])
        req = urllib.request.Request(url, data=body, method=method)
        req.add_header("Accept", "application/json")
        if content_type:
            req.add_header("Content-Type", content_type)
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return res.status, res.headers.get_content_type(), res.read()
        except urllib.error.HTTPError as e:
            data = e.read()
            try:
                answer = json.loads(data)
            except ValueError:
                raise APIError(e.code, data.decode("utf-8", "replace").strip() or e.reason) from None
            raise APIError(e.code, answer.get("error", e.reason), answer.get("code"),
                           answer.get("field"), answer.get("report")) from None

    def _json(self, method, path, params=None, body=None, content_type=None):
        _, ctype, data = self._request(method, path, params, body, content_type)
        if not data:
            return None
        if ctype.endswith("json"):
            return json.loads(data)
        return data.decode("utf-8")

    def _form(self, path, fields):
        body = urllib.parse.urlencode({k: v for k, v in fields.items() if v is not None}).encode()
        return self._json("POST", path, body=body, content_type="application/x-www-form-urlencoded")

    @staticmethod
    def _run_params(network, origin, dest, factor=None, realization=None, methods=None, episodes=None):
        return {"net": network, "o": origin, "d": dest, "f": factor, "r": realization,
                "m": ",".join(methods) if methods else None, "n": episodes}

    # -- the service --------------------------------------------------------

    def ready(self):
        """The readiness report: ready is False (HTTP 503) while the server
        warms up or a model cannot load, and the report says which part."""
        req = urllib.request.Request(self.url + "/readyz", headers={"Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return json.loads(res.read())
        except urllib.error.HTTPError as e:
            if e.code == 503:
                return json.loads(e.read())
            raise APIError(e.code, e.reason) from None

    def openapi(self):
        """The OpenAPI 3.1 document of the API."""
        return self._json("GET", "/api/openapi.json")

    # -- networks -------------------------------------------------------------

    def networks(self):
        """Every network: name, description, available (and why not), nodes, links, stored."""
        return self._json("GET", "/api/networks")

    def network(self, name):
        """A network's map: nodes, links (mean and SD), benchmark OD pairs."""
        return self._json("GET", "/api/networks/" + urllib.parse.quote(name, safe=""))

    def add_network(self, files, name=None, observations=(), ods=None, **settings):
        """Upload and store a network in one request. files: paths, or
        (file name, bytes) pairs, in any format the dashboard reads (TNTP,
        OpenStreetMap, GMNS, GeoJSON, link CSV, ontime JSON); observations:
        observed link times to fit; ods: OD pairs "O-D"; settings: the import
        settings by name (correlation="spatial", law="lognormal", …). Returns
        what was stored with its import report; a refused upload raises
        APIError whose report lists every problem."""
        fields = dict(settings)
        if name:
            fields["name"] = name
        if ods:
            fields["ods"] = ",".join(ods)
        parts = [("files", f) for f in files] + [("observations", f) for f in observations]
        body, ctype = _multipart(fields, parts)
        return self._json("POST", "/api/networks", body=body, content_type=ctype)

    def delete_network(self, name):
        """Delete a stored network (built-in networks cannot be)."""
        self._request("DELETE", "/api/networks/" + urllib.parse.quote(name, safe=""))

    # -- runs -------------------------------------------------------------------

    def compare(self, network, origin=None, dest=None, factor=None, realization=0, methods=None):
        """Every method's drive through one realization: links, minutes on
        each, arrival time, on time or not."""
        return self._json("GET", "/api/compare", self._run_params(network, origin, dest, factor, realization, methods))

    def routes(self, network, origin=None, dest=None, factor=None, realization=0, methods=None, format="geojson"):
        """A comparison's drives as GeoJSON (a dict) or GPX (text)."""
        params = self._run_params(network, origin, dest, factor, realization, methods)
        params["format"] = format
        return self._json("GET", "/api/routes", params)

    def plan(self, network, origin=None, dest=None, reliability=0.95, methods=None, episodes=None, routes=0):
        """How much time to allow: each method's least budget with
        P(on time) >= reliability, with its 95% interval; with routes=K the
        K fastest routes' travel-time, buffer and planning-time indices."""
        params = self._run_params(network, origin, dest, methods=methods, episodes=episodes)
        params.update(reliability=reliability, routes=routes)
        return self._json("GET", "/api/plan", params)

    def depart(self, network, arrive_by, depart=None, origin=None, dest=None, reliability=0.95,
               window=None, every=None, methods=None, days=None):
        """When to leave, on a network whose law changes over the day: with
        depart ("08:15"), each method's P(arriving by arrive_by ("09:00"))
        leaving then; without it, every `every` minutes over the `window`
        before the deadline, each method's curve and its latest departure
        whose on-time rate reaches reliability (with its 95% interval). All
        on the same days."""
        params = self._run_params(network, origin, dest, methods=methods, episodes=days)
        params.update(arrive_by=arrive_by, depart=depart, reliability=reliability, window=window, every=every)
        return self._json("GET", "/api/depart", params)

    # -- benchmarks and jobs ----------------------------------------------------

    def start_benchmark(self, network, methods=None, budgets=None, pools=None, pool_size=None):
        """Queue a benchmark job; returns its status (id, state, fraction)."""
        return self._form("/api/bench", {
            "net": network, "m": ",".join(methods) if methods else None,
            "b": ",".join(str(b) for b in budgets) if budgets else None,
            "pools": pools, "size": pool_size})

    def job(self, job_id):
        """A job's status."""
        return self._json("GET", "/api/jobs/" + job_id)["status"]

    def wait(self, job_id, progress=None, poll=1.0, timeout=None):
        """Wait for a job to end, calling progress(status) whenever its
        progress changes; returns the final status, raises APIError when
        the job failed or was canceled."""
        start, last = time.monotonic(), None
        while True:
            st = self.job(job_id)
            seen = (st["state"], st.get("done"), st.get("stage"))
            if progress and seen != last:
                progress(st)
            last = seen
            if st["state"] == "done":
                return st
            if st["state"] in ("failed", "canceled", "interrupted"):
                raise APIError(409, "job %s %s: %s" % (job_id, st["state"], st.get("error", "")), "conflict")
            if timeout is not None and time.monotonic() - start > timeout:
                raise TimeoutError("job %s still %s after %.0f s" % (job_id, st["state"], timeout))
            time.sleep(poll)

    def report(self, job_id, format="json"):
        """A finished benchmark's report: a dict (json), or text (csv,
        summary.csv, tex)."""
        return self._json("GET", "/api/bench/%s.%s" % (job_id, format))

    def published(self, network, format="json"):
        """A network's published benchmark report."""
        return self._json("GET", "/api/bench/published/%s.%s" % (network, format))

    def benchmark(self, network, methods=None, budgets=None, pools=None, pool_size=None, progress=None, poll=1.0):
        """Run a benchmark to its end and return its report as a dict."""
        st = self.start_benchmark(network, methods, budgets, pools, pool_size)
        self.wait(st["id"], progress, poll)
        return self.report(st["id"])


def summary_table(report):
    """A report's summary as rows: (budget, {method: mean on-time rate})."""
    rows = {}
    for s in report["summary"]:
        rows.setdefault(s["budget"], {})[s["method"]] = s["mean"]
    return sorted(rows.items())


def _multipart(fields, files):
    """A multipart/form-data body of fields and files (paths or (name, bytes))."""
    boundary = uuid.uuid4().hex
    out = []
    for k, v in fields.items():
        out.append(('--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n' % (boundary, k, v)).encode())
    for field, f in files:
        if isinstance(f, (tuple, list)):
            fname, data = f
        else:
            fname = os.path.basename(f)
            with open(f, "rb") as fh:
                data = fh.read()
        out.append(('--%s\r\nContent-Disposition: form-data; name="%s"; filename="%s"\r\n'
                    'Content-Type: application/octet-stream\r\n\r\n' % (boundary, field, fname.replace('"', ""))).encode())
        out.append(data)
        out.append(b"\r\n")
    out.append(("--%s--\r\n" % boundary).encode())
    return b"".join(out), "multipart/form-data; boundary=" + boundary
