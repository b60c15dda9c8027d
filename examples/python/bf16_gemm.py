"""A bf16 GEMM of 8192 through PyTorch (cuBLAS, tensor cores), timed with events.

    python3 bf16_gemm.py [n=8192] [reps=3]
Prints "GEMM <n> <ms per launch> <TFLOP/s from 2n^3/time>".
"""
import sys

import torch


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = a @ b  # warm-up: cuBLAS picks its kernel
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for _ in range(reps):
        start.record()
        c = a @ b
        end.record()
        torch.cuda.synchronize()
        ms = start.elapsed_time(end)
        print(f"GEMM {n} {ms:.4f} {2 * n ** 3 / (ms * 1e-3) / 1e12:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
