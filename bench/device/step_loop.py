"""The training-step loop of the model scripts in bench/device (gpt2_step.py,
vit_step.py); imported by them, not run.

Each step is an NVTX range `step` with `forward` (under bf16 autocast), `backward` and
`optimizer` inside; prints one line per step: "step <i> <ms>" (CUDA events around the
whole step).
STEP_PROFILE_RANGE=k: cudaProfilerStart (torch.cuda.profiler.start) before step k and
cudaProfilerStop after it, each with the GPU idle, so a profiler whose capture starts
off (ncu --profile-from-start off, nsys --capture-range=cudaProfilerApi) sees exactly
the kernels of step k.
STEP_TORCH_PROFILER=cuda: the steps inside torch.profiler.profile with CUDA activities
only (what a CUPTI client that records kernels and API calls costs, beside cuscope's
trace: bench/device/default_cost.py's `tp`).
"""
import os
import sys

import torch


def profiled_step(steps):
    """The step STEP_PROFILE_RANGE names, or -1."""
    text = os.environ.get("STEP_PROFILE_RANGE", "")
    if text == "":
        return -1
    k = int(text)
    if not 0 <= k < steps:
        raise SystemExit(f"STEP_PROFILE_RANGE={k} is not a step of 0..{steps - 1}")
    return k


def run_steps(loss_fn, opt, steps):
    """`steps` training steps: loss_fn() (the forward, returning the loss), backward,
    opt.step() and opt.zero_grad(set_to_none=True)."""
    mode = os.environ.get("STEP_TORCH_PROFILER", "")
    if mode not in ("", "cuda"):
        raise SystemExit(f"STEP_TORCH_PROFILER={mode!r}: only 'cuda' (or unset) is accepted")
    if mode == "cuda":
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]):
            _steps(loss_fn, opt, steps)
    else:
        _steps(loss_fn, opt, steps)


def _steps(loss_fn, opt, steps):
    profiled = profiled_step(steps)
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for i in range(steps):
        if i == profiled:
            torch.cuda.synchronize()
            torch.cuda.profiler.start()
        start.record()
        with torch.cuda.nvtx.range("step"):
            with torch.cuda.nvtx.range("forward"), torch.autocast("cuda", dtype=torch.bfloat16):
                loss = loss_fn()
            with torch.cuda.nvtx.range("backward"):
                loss.backward()
            with torch.cuda.nvtx.range("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=True)
        end.record()
        torch.cuda.synchronize()
        if i == profiled:
            torch.cuda.profiler.stop()
        print(f"step {i} {start.elapsed_time(end):.2f}", flush=True)
    hook = getattr(sys.modules.get("_cuscope_torch_hook"), "hook", None)
    if hook is not None:  # under cuscope run --pytorch: what its hook left on
        print("cuscope hook: " + hook.state(), flush=True)
