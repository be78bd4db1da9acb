#!/usr/bin/env python3
"""When must I leave to be there by 9:00, 95% of the time?

Asks ontime's API on a network whose law changes over the day (Rushtown is
built in: rush hours at 08:00 and 17:30) for every method's latest
departure that arrives by the deadline with the reliability asked, then
each method's chances leaving a little later (--later minutes, 2 by
default: Rushtown's trips take about seven) than the time-dependent DOT's
answer.

    python3 examples/when_to_leave.py --url http://127.0.0.1:8080
    python3 examples/when_to_leave.py --arrive-by 18:00 --reliability 0.9

Standard library and ontime_client.py only.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ontime_client import Client  # noqa: E402


def hhmm(minutes):
    return "%02d:%02d" % divmod(int(round(minutes)) % 1440, 60)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=os.environ.get("ONTIME_URL", "http://127.0.0.1:8080"))
    ap.add_argument("--network", default="rushtown")
    ap.add_argument("--origin", help="origin node (default: the network's first pair's)")
    ap.add_argument("--dest", help="destination node")
    ap.add_argument("--arrive-by", default="09:00")
    ap.add_argument("--reliability", type=float, default=0.95)
    ap.add_argument("--days", type=int, default=2000, help="common days every method and departure plays")
    ap.add_argument("--later", type=int, default=2, help="minutes later than dot's latest departure to try")
    args = ap.parse_args()
    c = Client(args.url)
    a = c.depart(args.network, args.arrive_by, origin=args.origin, dest=args.dest,
                 reliability=args.reliability, window=60, every=1, days=args.days)
    print("OD %s: leave by when to arrive by %s with P >= %g (%d days)" % (a["od"], a["arrive_by"], a["reliability"], a["days"]))
    for l in a["latest"]:
        note = "  (an upper bound: knows the day)" if l.get("bound") else ""
        if l["latest"] is None:
            print("  %-12s no departure in the hour before reaches it%s" % (l["method"], note))
        else:
            print("  %-12s %s  (95%% interval %s to %s; rate there %.3f)%s" % (
                l["method"], l["latest"], l["lo95"] or "none", l["hi95"] or "none", l["rate"], note))
    dot = next((l for l in a["latest"] if l["method"] == "dot" and l["latest"]), None)
    if dot:
        h, m = map(int, dot["latest"].split(":"))
        h2, m2 = map(int, a["arrive_by"].split(":"))
        if h * 60 + m + args.later >= h2 * 60 + m2:
            return
        later = hhmm(h * 60 + m + args.later)
        one = c.depart(args.network, args.arrive_by, depart=later, origin=args.origin, dest=args.dest, days=args.days)
        print("leaving %d minutes later, at %s:" % (args.later, later))
        for cv in one["curves"]:
            print("  %-12s P(on time) %.3f  [%.3f, %.3f]" % (cv["method"], cv["rate"][0], cv["lo95"][0], cv["hi95"][0]))


if __name__ == "__main__":
    main()
