#!/usr/bin/env python3
"""PC sampling of a Triton kernel (issue 36): its Python lines appear.

    tests/gpu/source_triton_test.py [BUILD]      (BUILD default: build)

Runs this file's `work` under `cuscope run --source`, then `cuscope report --source
--format=json`, and checks that the Triton kernel's hottest line is a line of this
file, the one marked HOT_TRITON, with its text kept. Exits 77 (skipped) without a GPU,
PyTorch or Triton.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.abspath(__file__)


def work():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def heavy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        for _ in range(512):
            x = x * 1.0001 + 0.5  # HOT_TRITON
        tl.store(out_ptr + offs, x, mask=mask)

    n = 1 << 22
    x = torch.rand(n, device="cuda")
    out = torch.empty_like(x)
    for _ in range(50):
        heavy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    torch.cuda.synchronize()


def marked_line():
    with open(HERE) as f:
        for number, line in enumerate(f, 1):
            if "# HOT_TRITON" in line and "marked" not in line:
                return number
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "work":
        work()
        return 0
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    try:
        import torch
        import triton  # noqa: F401
        if not torch.cuda.is_available():
            print("skipped: no CUDA GPU for PyTorch")
            return 77
    except ImportError as e:
        print(f"skipped: {e}")
        return 77
    cuscope = os.path.join(build, "bin", "cuscope")
    with tempfile.TemporaryDirectory() as tmp:
        profile = os.path.join(tmp, "triton.sqlite")
        run = subprocess.run([cuscope, "run", "--source", f"--output={profile}", "--",
                              sys.executable, HERE, "work"], capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stderr)
            return 1
        report = subprocess.run([cuscope, "report", profile, "--source", "--format=json",
                                 "--kernels=heavy_kernel"], capture_output=True, text=True)
        if report.returncode != 0:
            print(report.stderr)
            return 1
        hot = json.loads(report.stdout)
    if not hot["functions"]:
        print(f"FAIL: no sampled heavy_kernel (status: {hot['status']})\n{run.stderr}")
        return 1
    f = hot["functions"][0]
    top = f["lines"][0]
    want = marked_line()
    print(f"{f['name']}: {top['file']}:{top['line']} {top['pct']:.1f}% "
          f"{top['stalls'][0]['reason'] if top['stalls'] else '-'}: {top['text'].strip()}")
    ok = f["has_lines"] and os.path.basename(top["file"]) == os.path.basename(HERE)
    ok = ok and top["line"] == want and "HOT_TRITON" in top["text"]
    print("PASS" if ok else f"FAIL: expected {HERE}:{want} first")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
