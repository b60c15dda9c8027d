"""Trains a small transformer block for a few steps with NVTX regions, eager or
compiled, so that two cuscope profiles show what torch.compile changes.

    cuscope run --output=eager.sqlite -- python3 transformer_regions.py
    cuscope run --output=compiled.sqlite -- python3 transformer_regions.py --compile
    cuscope report eager.sqlite ; cuscope report compiled.sqlite

Regions: step/forward/attention, step/forward/mlp, step/backward, step/optimizer.
The first steps (warm-up, compilation) run outside the "step" ranges.
"""
import argparse
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.cuda import nvtx


class Block(nn.Module):
    def __init__(self, d=512, heads=8, hidden=2048):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)

    def attention(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / (d // self.heads) ** 0.5)
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(y)

    def mlp(self, x):
        return self.fc2(F.gelu(self.fc1(self.norm2(x))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("transformer_regions: no CUDA device", file=sys.stderr)
        return 3
    torch.manual_seed(0)
    block = Block().cuda()
    attention, mlp = block.attention, block.mlp
    if args.compile:
        attention = torch.compile(attention)
        mlp = torch.compile(mlp)
    opt = torch.optim.AdamW(block.parameters(), lr=1e-3)
    x = torch.randn(8, 256, 512, device="cuda")

    def step(measured):
        if measured:
            nvtx.range_push("forward")
            nvtx.range_push("attention")
        h = x + attention(x)
        if measured:
            nvtx.range_pop()
            nvtx.range_push("mlp")
        y = h + mlp(h)
        loss = y.float().pow(2).mean()
        if measured:
            nvtx.range_pop()
            nvtx.range_pop()
            nvtx.range_push("backward")
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if measured:
            nvtx.range_pop()
            nvtx.range_push("optimizer")
        opt.step()
        if measured:
            nvtx.range_pop()
        return loss

    for _ in range(args.warmup):
        step(False)
    torch.cuda.synchronize()
    for i in range(args.steps):
        with nvtx.range("step"):
            loss = step(True)
            torch.cuda.synchronize()
    print(f"{'compiled' if args.compile else 'eager'}: loss {loss.item():.4f} after {args.steps} steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
