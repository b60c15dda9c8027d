"""The overhead benchmark's PyTorch workload: x.add_(1) on 1024 floats, N times.

    python3 add_loop.py [ops=20000] [reps=1] [--torch-profiler]
Prints "TORCH <ops> <microseconds per op>": the median over `reps` timed loops of
`ops` ops each, in one process (process start-up and placement stay out of it).
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
    reps = int(args[1]) if len(args) > 1 else 1
    if "--torch-profiler" in sys.argv:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]):
            times = [run(n) for _ in range(reps)]
    else:
        times = [run(n) for _ in range(reps)]
    times.sort()
    print(f"TORCH {n} {times[len(times) // 2]:.4f} reps {' '.join(f'{t:.3f}' for t in times)}")


if __name__ == "__main__":
    main()
