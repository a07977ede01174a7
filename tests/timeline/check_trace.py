#!/usr/bin/env python3
"""Checks a kdelay timeline (a Perfetto trace) decoded by protoc.

    check_trace.py PROTO TRACE [START_NS END_NS]

Decodes TRACE with `protoc --decode` against PROTO (kdelay's part of
Perfetto's format), then checks that on each track the slices nest (each
begin has its end, and an inner slice ends before its outer one), that every
flow has a start and an end, and, given the interval, that the slices of
the "state" track cover it without gap or overlap (within 1 us an event).
Profile samples (PerfSample packets): every interned id they use resolves,
in a sequence whose interning state was cleared before, and, given the
interval, each falls inside it.
Prints one JSON object: each track's name, slices and the time its
outermost slices cover, each state's total, the samples with their frames,
and the problems found; exits 1 when there is a problem.
"""
import json
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format


def message_class(proto, name):
    with tempfile.NamedTemporaryFile(suffix=".desc") as desc:
        subprocess.run(["protoc", "-I", proto.rsplit("/", 1)[0] or ".", "--descriptor_set_out=" + desc.name, proto],
                       check=True)
        files = descriptor_pb2.FileDescriptorSet.FromString(open(desc.name, "rb").read())
    pool = descriptor_pool.DescriptorPool()
    for f in files.file:
        pool.Add(f)
    return message_factory.MessageFactory(pool).GetPrototype(pool.FindMessageTypeByName(name))


def main():
    proto, trace_path = sys.argv[1], sys.argv[2]
    interval = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else None
    decoded = subprocess.run(["protoc", "-I", proto.rsplit("/", 1)[0] or ".", "--decode=perfetto.protos.Trace",
                              proto], stdin=open(trace_path, "rb"), capture_output=True, text=True)
    problems = []
    if decoded.returncode != 0:
        print(json.dumps({"problems": ["protoc cannot decode it: " + decoded.stderr.strip()]}))
        return 1
    trace = message_class(proto, "perfetto.protos.Trace")()
    text_format.Parse(decoded.stdout, trace)

    tracks = {}
    for p in trace.packet:
        if p.HasField("track_descriptor"):
            d = p.track_descriptor
            name = d.name or d.thread.thread_name or d.process.process_name
            tracks[d.uuid] = {"uuid": d.uuid, "name": name, "tid": d.thread.tid, "pid": d.thread.pid or d.process.pid,
                              "parent": d.parent_uuid, "slices": []}
    open_slices = {}
    flows_out, flows_in = set(), set()
    last_time = {}
    for p in trace.packet:
        if not p.HasField("track_event"):
            continue
        e, ts = p.track_event, p.timestamp
        if e.track_uuid not in tracks:
            problems.append(f"an event on track {e.track_uuid}, which is not described")
            continue
        if ts < last_time.get(e.track_uuid, 0):
            problems.append(f"track {tracks[e.track_uuid]['name']}: an event at {ts} after one at "
                            f"{last_time[e.track_uuid]}")
        last_time[e.track_uuid] = ts
        flows_out.update(e.flow_ids)
        flows_in.update(e.terminating_flow_ids)
        stack = open_slices.setdefault(e.track_uuid, [])
        if e.type == e.TYPE_SLICE_BEGIN or e.type == e.TYPE_INSTANT:
            s = {"name": e.name, "start_ns": ts, "end_ns": ts,
                 "args": {a.name: a.string_value for a in e.debug_annotations},
                 "frames": [f.function_name for f in e.callstack.frames], "depth": len(stack)}
            tracks[e.track_uuid]["slices"].append(s)
            if e.type == e.TYPE_SLICE_BEGIN:
                stack.append(s)
        elif e.type == e.TYPE_SLICE_END:
            if not stack:
                problems.append(f"track {tracks[e.track_uuid]['name']}: an end at {ts} without a begin")
                continue
            stack.pop()["end_ns"] = ts
    for uuid, stack in open_slices.items():
        for s in stack:
            problems.append(f"track {tracks[uuid]['name']}: slice {s['name']} never ends")
    for f in flows_out ^ flows_in:
        problems.append(f"flow {f} has only one end")

    states = {}
    for uuid, t in tracks.items():
        if t["name"] != "state":
            continue
        slices = sorted(t["slices"], key=lambda s: s["start_ns"])
        if interval:
            at, slack = interval[0], 1000 * max(1, len(slices))
            covered = sum(s["end_ns"] - s["start_ns"] for s in slices)
            if abs(covered - (interval[1] - interval[0])) > slack:
                problems.append(f"the states cover {covered} ns of an interval of {interval[1] - interval[0]} ns")
            for s in slices:
                if abs(s["start_ns"] - at) > 1000:
                    problems.append(f"state {s['name']} begins at {s['start_ns']}, where the last ended at {at}")
                at = s["end_ns"]
        for s in slices:
            if s["depth"] != 0:
                problems.append(f"state {s['name']} at {s['start_ns']} nests in another state")
            states[s["name"]] = states.get(s["name"], 0) + s["end_ns"] - s["start_ns"]

    samples = []
    names, paths, mappings, frames, stacks = {}, {}, {}, {}, {}
    build_ids, module_build_ids = {}, {}
    cleared = False
    for p in trace.packet:
        if p.sequence_flags & 1:
            cleared = True
        if p.HasField("interned_data"):
            d = p.interned_data
            names.update({s.iid: s.str.decode() for s in d.function_names})
            paths.update({s.iid: s.str.decode() for s in d.mapping_paths})
            mappings.update({m.iid: [paths.get(i) for i in m.path_string_ids] for m in d.mappings})
            build_ids.update({s.iid: s.str.hex() for s in d.build_ids})
            for m in d.mappings:
                if m.HasField("build_id"):
                    if m.build_id not in build_ids:
                        problems.append(f"mapping {m.iid}: build-id {m.build_id} is not interned")
                    for i in m.path_string_ids:
                        module_build_ids[paths.get(i)] = build_ids.get(m.build_id)
            frames.update({f.iid: (names.get(f.function_name_id), mappings.get(f.mapping_id)) for f in d.frames})
            stacks.update({c.iid: list(c.frame_ids) for c in d.callstacks})
        if not p.HasField("perf_sample"):
            continue
        s = p.perf_sample
        if not cleared or not p.sequence_flags & 2:
            problems.append(f"a sample at {p.timestamp} outside a sequence with interning state")
        if s.callstack_iid not in stacks:
            problems.append(f"a sample at {p.timestamp} has no interned callstack {s.callstack_iid}")
            continue
        named = []
        for f in stacks[s.callstack_iid]:
            name, mapping = frames.get(f, (None, None))
            if name is None or not mapping or None in mapping:
                problems.append(f"callstack {s.callstack_iid}: frame {f} does not resolve")
            # kdelay's frames read "function [module]", or the address alone
            # where no module is known (its mapping: "[unknown]").
            module = mapping[0] if mapping else None
            named.append(name if module == "[unknown]" else f"{name} [{module}]")
        if interval and not interval[0] <= p.timestamp <= interval[1]:
            problems.append(f"a sample at {p.timestamp} is outside the interval")
        samples.append({"ts": p.timestamp, "pid": s.pid, "tid": s.tid, "frames": named,
                        "kernel": s.cpu_mode == 1})

    for t in tracks.values():
        t["covered_ns"] = sum(s["end_ns"] - s["start_ns"] for s in t["slices"] if s["depth"] == 0)
    print(json.dumps({"tracks": list(tracks.values()), "states": states, "flows": len(flows_out),
                      "samples": samples, "build_ids": module_build_ids, "problems": problems},
                     indent=1, sort_keys=True))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
