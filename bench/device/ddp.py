#!/usr/bin/env python3
"""Issue 13's two-GPU check, on the GPU machine (2 GPUs, PyTorch, no network):

    python3 bench/device/ddp.py BUILD_DIR OUT_DIR [steps=20]

Runs `cuscope run --output=OUT/ddp.%r.sqlite -- torchrun --standalone --nproc-per-node=2
examples/python/ddp_train.py STEPS` (DDP, NCCL all-reduce, NVTX "step" ranges), then
checks: one profile per rank named by %r and nothing else (the torchrun launcher does no
CUDA work: no profile, no report, no line), exactly one end-of-run report (rank 0's),
the merged `cuscope report` (both ranks, NCCL time, stragglers), the merged Chrome trace
(a process per rank, NCCL kernels on each), the merged .pftrace (the same, read back
with a small protobuf decoder), each rank's own trace (distributedInfo; event waits
linked to their cudaEventRecord). Writes logs and traces to OUT and a compact summary
on stdout; exits 1 when a check failed.
"""
import glob
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

build = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2])
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 20
repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
cuscope = os.path.join(build, "bin", "cuscope")
os.makedirs(out, exist_ok=True)
env = dict(os.environ, PYTHONUNBUFFERED="1")
env.setdefault("NCCL_SOCKET_IFNAME", "lo")  # one host, no network: the loopback
libs = os.path.join(build, "device-libs")
if os.path.isdir(libs):
    env["LD_LIBRARY_PATH"] = libs + ":" + env.get("LD_LIBRARY_PATH", "")
RANK_STRIDE = 10_000_000  # lib/report/chrome_trace.h kRankPidStride
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
    return ok


def sh(args, log, timeout=300):
    with open(os.path.join(out, log), "w") as f:
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=env, cwd=repo, timeout=timeout)
        f.write(p.stdout)
    return p.returncode, p.stdout


# --- the run -------------------------------------------------------------------------
for old in glob.glob(os.path.join(out, "ddp.*")):
    os.remove(old)
torchrun = shutil.which("torchrun")
launcher = [torchrun] if torchrun else [sys.executable, "-m", "torch.distributed.run"]
cmd = [cuscope, "run", f"--output={out}/ddp.%r.sqlite", "--"] + launcher + [
    "--standalone", "--nproc-per-node=2", "examples/python/ddp_train.py", str(steps)]
gpus = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                      stdout=subprocess.PIPE, text=True).stdout.split("\n")
torch_v = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                         stdout=subprocess.PIPE, text=True).stdout.strip()
print(f"gpus: {[g for g in gpus if g]}  torch: {torch_v}")
print("run: " + " ".join(cmd[1:]).replace(out, "OUT"))
rc, log = sh(cmd, "run.log", timeout=400)
check(rc == 0, f"run exit code {rc}")
step_lines = re.findall(r"rank (\d) step (\d+) ([0-9.]+)", log)
check(len(step_lines) == 2 * steps, f"{len(step_lines)} step lines from the ranks "
      f"(expected {2 * steps})")

# --- files and printed reports -------------------------------------------------------
left = sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "ddp.*")))
print(f"files: {left}")
profiles = [os.path.join(out, f"ddp.{r}.sqlite") for r in (0, 1)]
check(all(os.path.exists(p) for p in profiles), "ddp.0.sqlite and ddp.1.sqlite exist")
check(left == ["ddp.0.sqlite", "ddp.1.sqlite"],
      "no other file (no ddp.none.sqlite of the launcher, no journal)")
reports = len(re.findall(r"^(?:\S*\s)?cuscope report$", log, re.M))
written = re.findall(r"cuscope: profile written to (\S+)", log)
no_work = re.findall(r"cuscope: no CUDA work.*", log)
check(reports == 1, f"{reports} end-of-run report(s) printed (expected 1, rank 0's)")
check(sorted(os.path.basename(w) for w in written) == ["ddp.0.sqlite", "ddp.1.sqlite"],
      f"'profile written to' lines: {[os.path.basename(w) for w in written]}")
check(not no_work, f"no 'no CUDA work' line ({no_work[:1]})")

for p in profiles:
    if not os.path.exists(p):
        continue
    db = sqlite3.connect(p)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    names = dict(db.execute("SELECT id, text FROM strings"))
    kernels = db.execute("SELECT name_id, end_ns - start_ns FROM kernels").fetchall()
    nccl = [d for n, d in kernels if "nccl" in names.get(n, "").lower()]
    steps_seen = sum(1 for (n,) in db.execute("SELECT name_id FROM ranges")
                     if names.get(n) == "step")
    syncs = db.execute("SELECT count(*) FROM syncs").fetchone()[0]
    print(f"{os.path.basename(p)}: rank {meta.get('rank')} ({meta.get('extra.rank_source')}, "
          f"local {meta.get('extra.local_rank')}, world {meta.get('extra.world_size')}), "
          f"{len(kernels)} kernels, {len(nccl)} NCCL ({sum(nccl) / 1e6:.2f} ms), "
          f"{steps_seen} steps, {syncs} syncs")
    check(len(nccl) > 0 and steps_seen == steps,
          f"{os.path.basename(p)} has NCCL kernels and {steps} step ranges")

# --- merged report -------------------------------------------------------------------
rc, text = sh([cuscope, "report"] + profiles, "merged-report.txt")
check(rc == 0, f"cuscope report A B exit code {rc}")
print("--- cuscope report ddp.0.sqlite ddp.1.sqlite (first 40 lines)")
print("\n".join(text.replace(out + "/", "").splitlines()[:40]))
print("---")
check(re.search(r"strag", text, re.I) is not None and "NCCL" in text,
      "merged report has stragglers and NCCL time")

# --- merged Chrome trace -------------------------------------------------------------
merged = os.path.join(out, "ddp-merged.json")
rc, _ = sh([cuscope, "export"] + profiles + ["--chrome", "-o", merged], "export-chrome.log")
check(rc == 0, f"export --chrome exit code {rc}")
if rc == 0:
    trace = json.load(open(merged))
    procs = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"]
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    ranks_named = sorted({int(m.group(1)) for n in procs.values()
                          for m in [re.match(r"rank (\d+):", n)] if m})
    nccl_by_rank = {}
    for e in trace["traceEvents"]:
        if e.get("cat") == "kernel" and "nccl" in e.get("name", "").lower():
            r = e["pid"] // RANK_STRIDE
            nccl_by_rank[r] = nccl_by_rank.get(r, 0) + 1
    print(f"merged chrome: {len(trace['traceEvents'])} events, processes "
          f"{sorted(set(procs.values()))[:6]}, NCCL kernels by rank {nccl_by_rank}, "
          f"distributedInfo {trace.get('distributedInfo')}")
    check(ranks_named == [0, 1], f"merged Chrome trace names ranks {ranks_named}")
    check(sorted(nccl_by_rank) == [0, 1], "merged Chrome trace has NCCL kernels on both ranks")


# --- merged .pftrace -----------------------------------------------------------------
def fields(b):
    """(field number, value) of a protobuf message: ints for varints and fixed, bytes
    for length-delimited."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wt == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError(f"wire type {wt}")
        yield num, v


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def pftrace_facts(path):
    """Track names, process names and NCCL slices per rank of a .pftrace."""
    tracks, seq_track, names = {}, {}, {}
    nccl = {}
    processes = []
    data = open(path, "rb").read()
    for num, packet in fields(data):
        if num != 1:
            continue
        f = list(fields(packet))
        seq = next((v for n, v in f if n == 10), 0)
        for n, v in f:
            if n == 60:  # track_descriptor
                d = dict(fields(v))
                tracks[d.get(1)] = (d.get(2, b"").decode(), d.get(5))
                if 3 in d:
                    processes.append(dict(fields(d[3])).get(6, b"").decode())
            elif n == 59:  # trace_packet_defaults.track_event_defaults.track_uuid
                ted = dict(fields(v)).get(11)
                if ted is not None:
                    seq_track[seq] = dict(fields(ted)).get(11)
            elif n == 12:  # interned_data.event_names
                for m, en in fields(v):
                    if m == 2:
                        e = dict(fields(en))
                        names[(seq, e.get(1))] = e.get(2, b"").decode()
        for n, v in f:
            if n != 11:
                continue
            te = dict(fields(v))
            if te.get(9) != 1:  # TYPE_SLICE_BEGIN
                continue
            name = names.get((seq, te.get(10)), "")
            if "nccl" not in name.lower():
                continue
            uuid, rank = seq_track.get(seq), None
            while uuid in tracks and rank is None:
                m = re.match(r"rank (\d+):", tracks[uuid][0])
                rank = int(m.group(1)) if m else None
                uuid = tracks[uuid][1]
            nccl[rank] = nccl.get(rank, 0) + 1
    return processes, nccl, len(data)


pf = os.path.join(out, "ddp-merged.pftrace")
rc, log = sh([cuscope, "export"] + profiles + ["--perfetto", "-o", pf], "export-pftrace.log")
check(rc == 0, f"export --perfetto exit code {rc}: {log.strip()[-200:]}")
if rc == 0:
    processes, nccl, size = pftrace_facts(pf)
    print(f"merged pftrace: {size} bytes, processes {processes[:4]}, NCCL slices by rank {nccl}")
    check(sorted({int(p.split(":")[0][5:]) for p in processes if p.startswith("rank ")}) == [0, 1],
          "merged .pftrace has a process per rank")
    check(sorted(k for k in nccl if k is not None) == [0, 1],
          "merged .pftrace has NCCL kernels on both ranks")

# --- each rank's own trace: distributedInfo and event waits --------------------------
for r, p in enumerate(profiles):
    if not os.path.exists(p):
        continue
    path = os.path.join(out, f"ddp.{r}.trace.json")
    rc, _ = sh([cuscope, "export", p, "--chrome", "-o", path], f"export-{r}.log")
    if not check(rc == 0, f"export rank {r} exit code {rc}"):
        continue
    trace = json.load(open(path))
    info = trace.get("distributedInfo", {})
    records = {e["args"].get("correlation") for e in trace["traceEvents"]
               if e.get("cat") in ("cuda_runtime", "cuda_driver") and "EventRecord" in e["name"]}
    waits = [e for e in trace["traceEvents"] if e.get("cat") == "cuda_sync"
             and "wait_on_cuda_event_record_corr_id" in e.get("args", {})]
    linked = [e for e in waits if e["args"]["wait_on_cuda_event_record_corr_id"] != -1]
    good = [e for e in linked if e["args"]["wait_on_cuda_event_record_corr_id"] in records]
    print(f"rank {r} trace: distributedInfo {info}; {len(records)} event-record calls, "
          f"{len(waits)} event waits, {len(linked)} linked, {len(good)} to a recorded call")
    check(info.get("rank") == r and info.get("world_size") == 2,
          f"rank {r} trace's distributedInfo says rank {r} of 2")
    check(len(waits) == 0 or len(linked) > 0, f"rank {r}: event waits linked to their record")
    check(len(good) == len(linked), f"rank {r}: every linked wait names a cudaEventRecord call")

print(f"{len(failures)} check(s) failed" if failures else "all checks passed")
sys.exit(1 if failures else 0)
