#!/usr/bin/env python3
"""A small DistributedDataParallel training for multi-rank profiling (issue 13):

    cuscope run -o ddp.%r.sqlite -- torchrun --standalone --nproc-per-node=2 \\
        examples/python/ddp_train.py [steps=20] [straggle_ms=3]

Each rank trains a 4-layer MLP on random data on its own GPU (LOCAL_RANK); DDP
all-reduces the gradients with NCCL after each backward. Every step is an NVTX range
named "step" (what `cuscope report A B` compares across ranks). The last rank sleeps
`straggle_ms` before its backward pass, so the other ranks wait for it inside the
all-reduce: the merged report should name it the slowest and show the others' NCCL
excess. Prints one line per step and rank: "rank R step N MS".
"""
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    straggle_ms = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    # torchrun sets MASTER_ADDR/MASTER_PORT, RANK and WORLD_SIZE: env:// needs no network
    # beyond the loopback.
    dist.init_process_group("nccl", init_method="env://", device_id=torch.device("cuda", local_rank))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234 + rank)

    width = 2048
    model = torch.nn.Sequential(
        torch.nn.Linear(width, width), torch.nn.GELU(),
        torch.nn.Linear(width, width), torch.nn.GELU(),
        torch.nn.Linear(width, width), torch.nn.GELU(),
        torch.nn.Linear(width, 16)).cuda()
    ddp = DDP(model, device_ids=[local_rank])
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.randn(256, width, device="cuda")
    y = torch.randint(0, 16, (256,), device="cuda")
    straggler = rank == world - 1 and world > 1

    for step in range(steps):
        t0 = time.perf_counter()
        with torch.cuda.nvtx.range("step"):
            with torch.cuda.nvtx.range("forward"):
                loss = loss_fn(ddp(x), y)
            if straggler and straggle_ms > 0:
                time.sleep(straggle_ms / 1000)
            with torch.cuda.nvtx.range("backward"):
                loss.backward()  # DDP's NCCL all-reduce of the gradient buckets
            with torch.cuda.nvtx.range("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
        print(f"rank {rank} step {step} {(time.perf_counter() - t0) * 1e3:.3f}", flush=True)

    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
