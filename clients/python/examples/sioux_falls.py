#!/usr/bin/env python3
"""Reproduce the Sioux Falls table through ontime's API.

Runs a benchmark on the dashboard with the published report's pools (10
common test pools of 2,000 realizations, the paper's budget factors) and
prints each method's mean on-time rate beside the published one. The pools
are seeded, so every method that learns nothing (let, dot, cdot, cgr, fma,
mlr, bestpath) reproduces its published rate exactly; the exit status is 1
when one does not.

    python3 examples/sioux_falls.py --url http://127.0.0.1:8080
    python3 examples/sioux_falls.py --methods let,dot,cdot,cgr --pools 2

Standard library and ontime_client.py only.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ontime_client import Client, summary_table  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=os.environ.get("ONTIME_URL", "http://127.0.0.1:8080"))
    ap.add_argument("--network", default="sfn", help="a network with a published report (default: sfn, Sioux Falls)")
    ap.add_argument("--methods", default="let,dot,cdot,cgr,fma,mlr,bestpath", help="comma-separated methods")
    ap.add_argument("--pools", type=int, help="test pools (default: the published report's)")
    ap.add_argument("--size", type=int, help="realizations per pool (default: the published report's)")
    args = ap.parse_args()

    c = Client(args.url)
    published = c.published(args.network)
    pv = published["provenance"]
    pools = args.pools or len(pv["pools"])
    size = args.size or pv["pools"][0]["size"]
    methods = args.methods.split(",")
    print("%s: %s on %d pools of %d, budget factors %s" % (args.network, ", ".join(methods), pools, size, published["budgets"]))

    def progress(st):
        print("  %-8s %5.1f%% %s" % (st["state"], 100 * st.get("fraction", 0), st.get("stage", "")), file=sys.stderr)

    report = c.benchmark(args.network, methods=methods, budgets=published["budgets"], pools=pools, pool_size=size, progress=progress)
    ours = dict(summary_table(report))
    theirs = dict(summary_table(published))
    same_pools = pools == len(pv["pools"]) and size == pv["pools"][0]["size"]
    print("\n| budget | method | on-time rate | published | difference |")
    print("|---|---|---|---|---|")
    worst = 0.0
    for b in sorted(ours):
        for m in methods:
            mine, pub = ours[b].get(m), theirs.get(b, {}).get(m)
            if mine is None:
                continue
            diff = "" if pub is None else "%+.4f" % (mine - pub)
            print("| %.2f | %s | %.4f | %s | %s |" % (b, m, mine, "–" if pub is None else "%.4f" % pub, diff))
            if pub is not None and same_pools:
                worst = max(worst, abs(mine - pub))
    if not same_pools:
        print("\nOther pools than the published report's: the rates differ by sampling.")
        return 0
    print("\nLargest difference from the published table: %.2g" % worst)
    return 1 if worst > 1e-9 else 0


if __name__ == "__main__":
    sys.exit(main())
