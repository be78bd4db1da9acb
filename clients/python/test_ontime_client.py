"""Tests of ontime_client against a real server on loopback.

`make test` runs them through client_test.go, which starts a dashboard and
sets ONTIME_URL; without it they are skipped.
"""

import os
import subprocess
import sys
import tempfile
import unittest

from ontime_client import APIError, Client, summary_table

URL = os.environ.get("ONTIME_URL")


@unittest.skipUnless(URL, "ONTIME_URL is not set: run through `go test ./clients/python` (make test)")
class ClientTest(unittest.TestCase):
    def setUp(self):
        self.c = Client(URL, timeout=300)

    def test_networks_and_map(self):
        names = [n["name"] for n in self.c.networks()]
        self.assertIn("ringtown", names)
        m = self.c.network("ringtown")
        self.assertEqual(len(m["links"]), next(n["links"] for n in self.c.networks() if n["name"] == "ringtown"))
        with self.assertRaises(APIError) as e:
            self.c.network("no-such-network")
        self.assertEqual(e.exception.status, 404)

    def test_compare_drives_add_up(self):
        cmp = self.c.compare("ringtown", factor=1.1, realization=2, methods=["let", "dot"])
        self.assertEqual([d["method"] for d in cmp["drives"]], ["let", "dot"])
        for d in cmp["drives"]:
            self.assertEqual(len(d["links"]), len(d["times"]))
            self.assertEqual(len(d["nodes"]), len(d["links"]) + 1)
            if d["end"] == "arrived":
                self.assertAlmostEqual(sum(d["times"]), d["time"], places=9)
                self.assertEqual(d["on_time"], d["time"] <= cmp["budget"])
        routes = self.c.routes("ringtown", factor=1.1, realization=2, methods=["let", "dot"])
        self.assertEqual([f["properties"]["links"] for f in routes["features"]], [d["links"] for d in cmp["drives"]])
        with self.assertRaises(APIError) as e:
            self.c.compare("ringtown", factor="abc")
        self.assertEqual((e.exception.status, e.exception.field), (400, "f"))

    def test_plan(self):
        p = self.c.plan("ringtown", reliability=0.9, methods=["let", "dot"], episodes=200, routes=2)
        self.assertEqual(p["alpha"], 0.9)
        for row in p["methods"]:
            self.assertLessEqual(row["lo"], row["budget"])
            self.assertGreaterEqual(row["rate"], 0.9)
        self.assertEqual(len(p["routes"]), 2)
        for r in p["routes"]:
            self.assertGreaterEqual(r["planning_time_index"], r["travel_time_index"])
        with self.assertRaises(APIError) as e:
            self.c.plan("ringtown", reliability=1.5)
        self.assertEqual(e.exception.field, "reliability")

    def test_depart(self):
        a = self.c.depart("rushtown", "08:00", window=30, every=10, methods=["let", "clairvoyant"], days=100, reliability=0.9)
        self.assertEqual([c["method"] for c in a["curves"]], ["let", "clairvoyant"])
        let, bound = a["curves"]
        self.assertEqual(len(let["depart"]), 3)
        for i in range(3):  # the clairvoyant bounds let on the same days
            self.assertLessEqual(let["on_time"][i], bound["on_time"][i])
        self.assertTrue(a["latest"][1]["bound"])
        one = self.c.depart("rushtown", "08:00", depart="07:50", methods=["let"], days=100)
        self.assertEqual(one["depart"], "07:50")
        with self.assertRaises(APIError) as e:
            self.c.depart("rushtown", "08:00", depart="08:30")
        self.assertEqual((e.exception.status, e.exception.field), (400, "depart"))

    def test_add_run_delete_network(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "square.csv")
            with open(path, "w") as f:
                f.write("From,To,Cost,Var\n1,2,10,4\n2,3,10,4\n3,4,10,4\n1,4,31,1\n")
            stored = self.c.add_network([path], name="py-square", ods=["1-4"])
        try:
            self.assertEqual((stored["name"], stored["nodes"], stored["links"], stored["ods"]), ("py-square", 4, 4, ["1-4"]))
            self.assertIn("py-square", [n["name"] for n in self.c.networks()])
            cmp = self.c.compare("py-square", origin="1", dest="4", methods=["let"])
            self.assertEqual(cmp["drives"][0]["nodes"][-1], "4")
        finally:
            self.c.delete_network("py-square")
        self.assertNotIn("py-square", [n["name"] for n in self.c.networks()])
        with self.assertRaises(APIError) as e:
            self.c.add_network([("bad.csv", b"From,To,Cost,Var\n1,2,ten,4\n")], name="py-bad")
        self.assertEqual(e.exception.status, 422)
        problem = e.exception.report["problems"][0]
        self.assertEqual((problem["file"], problem["line"]), ("bad.csv", 2))

    def test_benchmark_with_progress(self):
        seen = []
        report = self.c.benchmark("twobranch", methods=["let", "dot"], pools=2, pool_size=100, progress=seen.append, poll=0.05)
        self.assertTrue(seen)
        self.assertEqual(seen[-1]["state"], "done")
        self.assertEqual(report["methods"], ["let", "dot"])
        table = summary_table(report)
        self.assertEqual([b for b, _ in table], report["budgets"])
        for _, rates in table:
            self.assertGreaterEqual(rates["dot"], rates["let"] - 0.2)
        self.assertIn("go_version", report["provenance"])

    def test_service(self):
        self.assertIn("ready", self.c.ready())
        self.assertIn("/api/compare", self.c.openapi()["paths"])

    def test_example_reproduces_the_published_table(self):
        # twobranch everywhere; Sioux Falls where its data is.
        net = "sfn" if "sfn" in [n["name"] for n in self.c.networks() if n["available"]] else "twobranch"
        ex = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples", "sioux_falls.py")
        out = subprocess.run([sys.executable, ex, "--url", URL, "--network", net, "--methods", "let,dot"],
                             capture_output=True, text=True, timeout=900)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("Largest difference from the published table: 0", out.stdout)


if __name__ == "__main__":
    unittest.main()
