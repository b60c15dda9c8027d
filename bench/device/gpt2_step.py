#!/usr/bin/env python3
"""A Hugging Face transformers GPT-2 training step (random weights), the real workload of
issues 10 and 11: cuBLAS, cutlass, cuDNN flash attention, CUB, fused AdamW.

    python3 gpt2_step.py [steps=12] [layers=6] [batch=8] [seq=512]

Each step is an NVTX range `step` (with `forward`, `backward`, `optimizer` inside);
prints one line per step: "step <i> <ms>" (CUDA events around the whole step); the loop
is bench/device/step_loop.py. STEP_PROFILE_RANGE=k: cudaProfilerStart before step k and
cudaProfilerStop after it (for ncu --profile-from-start off; bench/device/sol_breakdown.py).
GPT2_TORCH_PROFILER=1 runs the steps inside torch.profiler.profile (CPU and CUDA
activities), for the training-step benchmark (bench/device/train_step.py); with
GPT2_TORCH_PROFILER_STACK=1 also with_stack=True (bench/device/torch_attribution.py).
GPT2_COMPILE=MODE compiles the model with torch.compile(mode=MODE) (reduce-overhead:
Inductor's Triton kernels replayed from CUDA graphs; the optimizer stays eager).
GPT2_HOOK_PART=nvtx|mode|walk, without cuscope, for the parts of `--pytorch`'s cost
(bench/device/torch_attribution.py): torch's NVTX op ranges (emit_nvtx) alone; an empty
TorchFunctionMode; cuscope's line mode (its frame walk and site cache) with no-op
library calls.
"""
import contextlib
import os
import sys

import torch
from transformers import GPT2Config, GPT2LMHeadModel

from step_loop import run_steps


def forward(model, ids):
    """The step's loss; under CUDA graphs (GPT2_COMPILE=reduce-overhead) each call is a
    new step of cudagraph trees, whose outputs of the last one may be overwritten."""
    if os.environ.get("GPT2_COMPILE"):
        torch.compiler.cudagraph_mark_step_begin()
    return model(input_ids=ids, labels=ids).loss


def hook_part(part):
    """One part of cuscope's PyTorch hook, with no library (GPT2_HOOK_PART)."""
    if part == "nvtx":
        return torch.autograd.profiler.emit_nvtx()
    if part == "mode":
        class Empty(torch.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))
        return Empty()
    if part == "walk":
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.join(here, "..", "..", "python"))
        from cuscope import torch_hook

        class NoLibrary:
            @staticmethod
            def cuscope_range_push_python(site):
                return 0

            @staticmethod
            def cuscope_range_pop_python():
                return 0

        frames = torch_hook.FrameFilter(os.path.dirname(torch.__file__))
        steps = torch_hook.StepTracker(lambda name: None, lambda handle: None)
        return torch_hook.make_line_mode(torch, NoLibrary(), frames, torch_hook.SiteCache(),
                                         steps)
    raise SystemExit(f"GPT2_HOOK_PART={part}: expected nvtx, mode or walk")


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    layers = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    seq = int(sys.argv[4]) if len(sys.argv) > 4 else 512
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=layers, n_positions=seq)).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    if os.environ.get("GPT2_COMPILE"):
        model = torch.compile(model, mode=os.environ["GPT2_COMPILE"])
    ids = torch.randint(0, model.config.vocab_size, (batch, seq), device="cuda")
    profiler = contextlib.nullcontext()
    if os.environ.get("GPT2_TORCH_PROFILER") == "1":
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        stack = os.environ.get("GPT2_TORCH_PROFILER_STACK") == "1"
        profiler = torch.profiler.profile(activities=acts, with_stack=stack)
    part = os.environ.get("GPT2_HOOK_PART")
    if part:
        profiler = hook_part(part)
    with profiler:
        run_steps(lambda: forward(model, ids), opt, steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
