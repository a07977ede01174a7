#!/usr/bin/env python3
"""What service-test.sh collected, checked: the planted stalls against the
watch's journal entries, and its metrics as Prometheus scraped them.

    check_service.py WORK RESTARTS PROMETHEUS_PORT READY_NS

READY_NS: CLOCK_MONOTONIC when the watch was ready, unless the journal's
"Start watching" entry tells it: a stall planted before is not the
watch's to see.
"""
import json
import re
import sys
import urllib.parse
import urllib.request

STALL_ID = "8a0b5d3c7e2f4e61b9c4d2a7f0e1c356"  # journal_writer.cpp's MESSAGE_ID
PER_MINUTE = 5  # config.h's kJournalStallsPerMinute


def fail(text):
    print("service-test: FAILED: " + text, file=sys.stderr)
    sys.exit(1)


def planted(path):
    stalls, polls = [], []
    for line in open(path, encoding="utf-8", errors="replace"):
        words = line.split()
        if len(words) == 6 and words[0] == "stall":
            tid, start, end = int(words[1]), int(words[2]), int(words[3])
            stalls.append((tid, start, end))
        elif len(words) == 2 and words[0] == "polls":
            polls.append(int(words[1]))
    return stalls, polls


def journal(path):
    entries = []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line:
            entries.append(json.loads(line))
    return entries


def query(port, promql):
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (port, urllib.parse.urlencode({"query": promql}))
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        fail("Prometheus refused %s: %s" % (promql, body))
    result = body["data"]["result"]
    return float(result[0]["value"][1]) if result else None


def main():
    work, restarts, port, ready = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    planted_all, polls = planted(work + "/planted")
    entries = journal(work + "/journal")
    # The watch sees what begins after its start (its marker's time in the
    # journal is later still); one begun a little before may be seen too.
    starts = [int(e["__MONOTONIC_TIMESTAMP"]) * 1000 for e in entries
              if e["MESSAGE"].startswith("Start watching for stalls")]
    if starts:
        ready = starts[0]
    stalls = [p for p in planted_all if p[1] >= ready]
    reports = [e for e in entries if e.get("MESSAGE_ID") == STALL_ID]
    if not stalls:
        fail("kd-svc planted no stall")
    lost = [e["MESSAGE"] for e in entries if "KDELAY_LOST" in e]
    if lost:
        fail("the watch lost: %s" % lost)
    for e in reports:
        if not e["MESSAGE"].startswith("stall of ") or e.get("PRIORITY") != "4":
            fail("a stall entry's MESSAGE or PRIORITY: %s" % e)
        j = json.loads(e["KDELAY_JSON"])
        if j["type"] != "stall" or j["thread"]["tid"] != int(e["KDELAY_TID"]):
            fail("KDELAY_JSON is not the stall's object: %s" % e["KDELAY_JSON"])
        profile = j["thread"]["budget"].get("profile")
        if not isinstance(profile, dict) or profile["hz"] != 99:
            fail("KDELAY_JSON has no profile at 99 Hz: %s" % e["KDELAY_JSON"])
        if int(e["KDELAY_RUNNING_NS"]) + int(e["KDELAY_READY_NS"]) > int(e["KDELAY_STALL_NS"]) + 1000000:
            fail("RUNNING and READY exceed the stall: %s" % e)
    full = set()
    covered = 0
    for tid, start, end in planted_all:
        covering = [i for i, e in enumerate(reports) if int(e["KDELAY_TID"]) == tid and
                    int(e["KDELAY_START_NS"]) <= start and int(e["KDELAY_START_NS"]) + int(e["KDELAY_STALL_NS"]) >= end]
        if len(covering) > 1:
            fail("the stall planted in thread %d from %d to %d is in the journal %d times" %
                 (tid, start, end, len(covering)))
        full.update(covering)
    if len(full) != len(reports):
        fail("stall entries of no planted stall:\n%s" %
             "\n".join(reports[i]["MESSAGE"] for i in range(len(reports)) if i not in full))
    # The rest were held back: counted in the once-a-minute lines, and only
    # for a thread name with its minute's full reports given.
    held = 0
    for e in entries:
        if " more stalls not reported in full " in e["MESSAGE"]:
            held += sum(int(n.replace(",", "")) for n in re.findall(r" (\d[\d,]*) \(longest ", e["MESSAGE"]))
    seen = len(full) + held
    if not len(stalls) <= seen <= len(planted_all):
        fail("%d stalls planted after the watch began (%d in all): %d in full in the journal and %d counted as "
             "held back" % (len(stalls), len(planted_all), len(full), held))
    by_kind = {}
    for e in reports:
        by_kind.setdefault(re.sub(r"[0-9]", "", e["KDELAY_THREAD"]), []).append(int(e["KDELAY_START_NS"]))
    if held and not any(len(v) >= PER_MINUTE for v in by_kind.values()):
        fail("stalls were held back before any thread name had %d full reports" % PER_MINUTE)
    restart_entries = [e for e in entries if "KDELAY_CGROUP_ID" in e]
    if len(restart_entries) != restarts:
        fail("%d restart entries for %d restarts" % (len(restart_entries), restarts))
    print("service-test: %d planted stalls, each in the journal once: %d in full, %d in the held-back count; "
          "%d restarts followed" % (seen, len(full), held, restarts))

    # Prometheus, through its HTTP API: what it scraped from node_exporter.
    counted = query(port, "sum(kdelay_stalls_total)")
    if counted != seen:
        fail("Prometheus counts %s stalls, the journal %d" % (counted, seen))
    if query(port, "kdelay_target_restarts_total") != restarts:
        fail("Prometheus counts %s restarts" % query(port, "kdelay_target_restarts_total"))
    if query(port, 'sum(kdelay_stall_seconds_count{process="kd-main"})') != seen:
        fail("the stall-length histogram does not count every stall")
    intervals = query(port, 'sum(kdelay_loop_intervals_total{process="kd-main"})')
    # Every poll of kd-svc's loops begins an interval; the first life's
    # first polls came before the watch was ready.
    if len(polls) != restarts + 1 or intervals is None or not sum(polls[1:]) <= intervals <= sum(polls):
        fail("Prometheus counts %s loop intervals; kd-svc's lives polled %s times" % (intervals, polls))
    tracked = query(port, "kdelay_threads_tracked")
    if tracked is None or tracked > 64:
        fail("the watch tracks %s threads after kd-svc stopped (its maps grow)" % tracked)
    print("service-test: Prometheus counts %d stalls, %d restarts, %d loop intervals (kd-svc polled %d times)" %
          (counted, restarts, intervals, sum(polls)))


main()
