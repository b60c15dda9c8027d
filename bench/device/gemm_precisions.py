#!/usr/bin/env python3
"""Matrix products through PyTorch in every tensor precision the H200 has, each inside
an NVTX range named for it, for checking verdicts (issue 10) against ncu.

    python3 gemm_precisions.py [n=4096,8192] [reps=2]

Precisions: fp16, bf16, tf32 (allow_tf32), fp32 (no tensor cores), fp8 e4m3
(torch._scaled_mm), int8 (torch._int_mm), fp64. Prints one line per product:
"<precision> <n> <ms> <TFLOP/s from 2n^3/time>"; one that this PyTorch or GPU
refuses prints "<precision> <n> skipped: <why>".
"""
import sys

import torch


def product(precision, n):
    dev = "cuda"
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    if precision in ("fp16", "bf16", "fp32", "tf32", "fp64"):
        dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32,
                 "tf32": torch.float32, "fp64": torch.float64}[precision]
        a = torch.randn(n, n, device=dev, dtype=dtype)
        b = torch.randn(n, n, device=dev, dtype=dtype)
        return lambda: a @ b
    if precision == "fp8":
        a = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn).t()  # column-major
        one = torch.tensor(1.0, device=dev)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    if precision == "int8":
        a = torch.randint(-8, 8, (n, n), device=dev, dtype=torch.int8)
        b = torch.randint(-8, 8, (n, n), device=dev, dtype=torch.int8)
        return lambda: torch._int_mm(a, b)
    raise ValueError(precision)


def main():
    sizes = [int(x) for x in (sys.argv[1] if len(sys.argv) > 1 else "4096,8192").split(",")]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for precision in ("fp16", "bf16", "tf32", "fp32", "fp8", "int8", "fp64"):
        for n in sizes:
            try:
                f = product(precision, n)
                f()  # warm-up: the library picks its kernel
                torch.cuda.synchronize()
            except Exception as e:  # an unsupported path on this build: say so, go on
                print(f"{precision} {n} skipped: {type(e).__name__}: {str(e)[:120]}", flush=True)
                continue
            with torch.cuda.nvtx.range(f"{precision}_{n}"):
                for _ in range(reps):
                    start.record()
                    f()
                    end.record()
                    torch.cuda.synchronize()
                    ms = start.elapsed_time(end)
                    print(f"{precision} {n} {ms:.4f} {2 * n ** 3 / (ms * 1e-3) / 1e12:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
