#!/usr/bin/env python3
"""Export torchvision classification models with torch.onnx (offline tooling, never a test dependency).

make_models.py writes the seed networks without torch, the way torch.onnx's TorchScript exporter
names things. This script runs the real exporter, to check the importer on what users' torch writes:
  --exporter dynamo      torch.onnx.export(..., dynamo=True), the default since torch 2.9
                         (opset 18 by default here; initializers in MODEL.onnx.data)
  --exporter torchscript torch.onnx.export(..., dynamo=False) (opset 14 by default: ViT's
                         scaled_dot_product_attention needs it)
Weights are random (torch.manual_seed(0), torchvision's own init); tensors torchvision initialises
to all zeros (ViT's classifier head) are redrawn from N(0, 0.02²) so the outputs are not constant.
Input 1×3×224×224 (inception_v3: 299), names "input" / "output"; googlenet and inception_v3 without
aux logits.

usage: export_torchvision.py OUT_DIR [--models resnet50,vit_b_16,...] [--exporter dynamo]
                             [--opset N]
then:  check_ort.py OUT_DIR/*.onnx   and   bench.py OUT_DIR --models ...
"""
import argparse
import os
import sys
import warnings

DEFAULT = ("resnet50,mobilenet_v2,vgg16,convnext_tiny,vit_b_16,swin_t,maxvit_t,efficientnet_v2_s,"
           "mnasnet1_0,regnet_y_400mf")


def _Out(model):
    import torch

    class Out(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)["out"]

    return Out(model).eval()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--models", default=DEFAULT)
    ap.add_argument("--exporter", choices=["dynamo", "torchscript"], default="dynamo")
    ap.add_argument("--opset", type=int, default=0)
    a = ap.parse_args()
    try:
        import torch
        import torchvision
    except ImportError as e:
        sys.exit(f"export_torchvision.py needs torch and torchvision in this Python ({e})")
    warnings.filterwarnings("ignore")
    opset = a.opset or (18 if a.exporter == "dynamo" else 14)
    os.makedirs(a.out, exist_ok=True)
    failed = []
    for name in a.models.split(","):
        torch.manual_seed(0)
        kw = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
        # "segmentation.fcn_resnet50", "video.r3d_18": the sub-packages' models
        ns, _, short = name.rpartition(".")
        pkg = getattr(torchvision.models, ns) if ns else torchvision.models
        if ns == "segmentation":
            kw = {"aux_loss": False, "weights_backbone": None}
        try:
            m = getattr(pkg, short)(weights=None, **kw).eval()
        except AttributeError:
            failed.append(name)
            print(f"FAIL {name}: not a torchvision model", flush=True)
            continue
        with torch.no_grad():
            for p in m.parameters():
                if p.dim() >= 2 and not p.any():
                    p.normal_(0, 0.02)
        if ns == "segmentation":  # returns {"out": ...}; export the tensor
            m = _Out(m)
        size = 299 if name == "inception_v3" else 224
        x = torch.randn(1, 3, 16, 112, 112) if ns == "video" else torch.randn(1, 3, size, size)
        path = os.path.join(a.out, short + ".onnx")
        try:
            torch.onnx.export(m, (x,), path, opset_version=opset, input_names=["input"],
                              output_names=["output"], dynamo=a.exporter == "dynamo")
            print(f"ok {name} -> {path}", flush=True)
        except Exception as e:  # report and go on with the others
            failed.append(name)
            print(f"FAIL {name}: {type(e).__name__}: {str(e)[:300]}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
