"""A few PyTorch ops in a loop, with NVTX ranges: the smallest Python workload.

    cuscope run -- python3 examples/python/torch_loop.py [steps]
"""
import sys

import torch


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    if not torch.cuda.is_available():
        print("torch_loop: no CUDA device", file=sys.stderr)
        return 3
    x = torch.randn(1024, 1024, device="cuda")
    w = torch.randn(1024, 1024, device="cuda")
    for step in range(steps):
        with torch.cuda.nvtx.range(f"step"):
            with torch.cuda.nvtx.range("matmul"):
                y = x @ w
            with torch.cuda.nvtx.range("pointwise"):
                y = torch.relu(y) + 1.0
            x = y / y.norm()
    torch.cuda.synchronize()
    print(f"OPS {steps * 5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
