#!/usr/bin/env python3
"""A ViT-B/16 training step (random weights, nothing downloaded): cuDNN's
patch-embedding convolution (with its NCHW-to-NHWC transposes), cuBLAS GEMMs, flash
attention, LayerNorm, GELU, the class token's torch.cat, fused AdamW.

    python3 vit_step.py [steps=12] [batch=32] [depth=12] [channels_last=0]

The model is timm's vit_base_patch16_224 (pretrained=False); where timm is not
installed (or VIT_IMPL=torchvision), torchvision's VisionTransformer of the same shape
(patch 16, 224 x 224, width 768, 12 heads, MLP 3072). The first line says which.
depth: transformer blocks (12 is the model; fewer keep every block's kernels and cut
the launches per step). channels_last=1 puts the images and the model in channels-last
memory format. Steps, NVTX ranges, the "step <i> <ms>" lines and STEP_PROFILE_RANGE=k
(cudaProfilerStart before step k, cudaProfilerStop after it) as bench/device/gpt2_step.py,
through bench/device/step_loop.py; bf16 autocast, AdamW fused, cross-entropy on random
labels of 1,000 classes.
"""
import os
import sys

import torch
import torch.nn.functional as F

from step_loop import run_steps

CLASSES = 1000


def build(depth):
    """(model, description)."""
    try:
        import timm
    except ImportError:
        timm = None
    if timm is not None and os.environ.get("VIT_IMPL") != "torchvision":
        model = timm.create_model("vit_base_patch16_224", pretrained=False, depth=depth,
                                  num_classes=CLASSES)
        return model, f"timm {timm.__version__} vit_base_patch16_224"
    from torchvision.models.vision_transformer import VisionTransformer
    model = VisionTransformer(image_size=224, patch_size=16, num_layers=depth, num_heads=12,
                              hidden_dim=768, mlp_dim=3072, num_classes=CLASSES)
    return model, "torchvision VisionTransformer ViT-B/16"


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 32
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 12
    channels_last = len(sys.argv) > 4 and sys.argv[4] == "1"
    torch.manual_seed(0)
    model, what = build(depth)
    print(f"model {what}, depth {depth}, batch {batch}, channels_last {int(channels_last)}",
          flush=True)
    model = model.cuda().train()
    images = torch.randn(batch, 3, 224, 224, device="cuda")
    labels = torch.randint(0, CLASSES, (batch,), device="cuda")
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        images = images.contiguous(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    run_steps(lambda: F.cross_entropy(model(images), labels), opt, steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
