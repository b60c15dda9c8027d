"""torch.profiler started inside a program that cuscope already traces: two CUPTI
clients in one process. cuscope must say so in one line; the program must run on.

    cuscope run -- python3 with_torch_profiler.py
"""
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile


def ops(n):
    x = torch.ones(1024, device="cuda")
    for _ in range(n):
        x.add_(1)
    torch.cuda.synchronize()
    return x


def main():
    if not torch.cuda.is_available():
        return 3
    ops(100)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        ops(100)
    events = [e for e in prof.events() if "add" in e.name]
    # The program goes on after torch.profiler (for 0.3 s here): cuscope's flush
    # thread finds within one flush period that records no longer reach it.
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.3:
        ops(100)
    print(f"TORCH_PROFILER_EVENTS {len(events)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
