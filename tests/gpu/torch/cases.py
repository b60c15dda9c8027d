"""The PyTorch hook's GPU cases (tests/gpu/torch_hook.sh): python3 cases.py CASE.

threads: torch work on the main thread and on 4 threads of its own; compile: a
torch.compile'd MLP trained for 4 steps; exit_forward / exit_backward: the process exits
mid-step (os._exit(3) inside the forward, sys.exit(5) inside the backward); plain: 4
eager training steps of an MLP (the attribution is checked on its profile); long: 10
of them (run with CUSCOPE_PYTORCH_STEPS=2: later steps without op and line ranges).
"""
import os
import sys
import threading

import torch


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(256, 1024)
        self.down = torch.nn.Linear(1024, 256)

    def forward(self, x):
        h = torch.nn.functional.gelu(self.up(x))  # line of the up projection
        return self.down(h)


class Exit(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        sys.exit(5)


def train(model, steps, hook=None):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(64, 256, device="cuda")
    for i in range(steps):
        y = model(x)
        if hook is not None:
            y = hook(i, y)
        y.square().mean().backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()


def main(case):
    model = Mlp().cuda()
    if case == "plain":
        train(model, 4)
    elif case == "long":
        train(model, 10)
        hook = getattr(sys.modules.get("_cuscope_torch_hook"), "hook", None)
        print("cuscope hook: " + (hook.state() if hook is not None else "not installed"))
    elif case == "threads":
        def work():
            a = torch.randn(512, 512, device="cuda")
            for _ in range(20):
                a = (a @ a).tanh()
            torch.cuda.synchronize()
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        train(model, 4)
        for t in threads:
            t.join()
    elif case == "compile":
        train(torch.compile(model), 4)
    elif case == "exit_forward":
        train(model, 4, hook=lambda i, y: os._exit(3) if i == 2 else y)
    elif case == "exit_backward":
        train(model, 4, hook=lambda i, y: Exit.apply(y) if i == 2 else y)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
