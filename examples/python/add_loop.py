"""The overhead benchmark's PyTorch workload: x.add_(1) on 1024 floats, N times.

    python3 add_loop.py [ops=20000] [--torch-profiler]
Prints "TORCH <ops> <microseconds per op>".
"""
import sys
import time

import torch


def run(n):
    x = torch.zeros(1024, device="cuda")
    for _ in range(200):
        x.add_(1)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        x.add_(1)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e6 / n


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 20000
    if "--torch-profiler" in sys.argv:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]):
            us = run(n)
    else:
        us = run(n)
    print(f"TORCH {n} {us:.4f}")


if __name__ == "__main__":
    main()
