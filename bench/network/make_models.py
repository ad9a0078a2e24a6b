#!/usr/bin/env python3
"""Write torchvision CNNs as ONNX files the way `torch.onnx.export` (TorchScript exporter, opset 13,
eval mode, constant folding on) emits them, with random weights, using only onnx.helper + numpy.

No torch needed (and none is installed here).  The graph structure follows
torchvision's network definitions and the TorchScript exporter's rules, as observed in real
exports:

* eval-mode BN directly after a single-use Conv is folded into the Conv (3-input Conv, initializers
  named `onnx::Conv_<n>`); BNs elsewhere (densenet's pre-activation BNs) stay BatchNormalization;
* ReLU6 -> Clip(x, min, max) with the bounds as outputs of `Constant` nodes (opset >= 11);
* hardswish -> HardSigmoid(alpha=1/6) + Mul (opset < 14); SiLU -> Sigmoid + Mul;
* AdaptiveAvgPool2d(1) -> GlobalAveragePool, AdaptiveAvgPool2d(7) on 7x7 -> AveragePool 1x1/1;
* torch.flatten(x, 1) -> Flatten(axis=1); Linear -> Gemm(alpha=1, beta=1, transB=1);
* dropout vanishes in eval mode;
* `_jit_pass_onnx_deduplicate_initializers`: initializers with identical values are merged into one,
  the other uses read it through an `Identity` node.  Untrained torchvision models have zero conv /
  linear biases, so all biases of one length coincide; here every bias of length C gets the same
  random vector b_C (so biases are non-zero, which makes the cross-check meaningful, and the Identity
  aliases appear exactly where torch's exporter puts them: resnet50 47, vgg16 10, mobilenet_v2 39).

Weights: Kaiming normal (std = sqrt(2 / fan_in)) for convs and linears; the last conv of a residual
branch gets an extra gain so that activations stay O(1) through deep nets (folded BN is just a
per-channel scale and bias; random running statistics would not keep deep nets bounded).
Pre-activation BN (densenet) gets random gamma/beta/mean/var around (1, 0, 0, 1).

Approximation (documented): the exact Constant-node layout of shufflenet's chunk (Shape -> Gather ->
Add -> Div -> Mul -> Slice) could not be checked against a real export here; the op counts match
a real export except that Constant nodes are not counted to 110.

Usage: make_models.py OUTDIR [MODEL ...]   (default: all models); --seed N (default 0);
       --opset {11,13,17} (default 13), --dynamic-batch, --legacy-flatten, --suffix S (file name suffix)
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13      # --opset: 11, 13 and 17 give the same graphs except HardSwish (>= 14)
LEGACY_FLATTEN = False   # --legacy-flatten: resnets end in Shape->Gather->Unsqueeze->Concat->Reshape
BATCH = None    # --dynamic-batch: dim 0 of input and output is the symbol "batch_size"


class Net:
    """A graph under construction, named the way torch.onnx.export names things."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []           # TensorProtos
        self.init_names = set()
        self.counter = 0          # for onnx::Op_<n> names
        self.bias_by_len = {}     # dedup: length -> initializer name
        self.identity_nodes = []
        self.used_names = set()
        self.shapes = {}          # tensor name -> shape (static shape tracking for builders)

    # --- names -------------------------------------------------------------------------------
    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}_{self.counter}"

    def node(self, op, inputs, scope, n_out=1, out_shape=None, **attrs):
        base = f"{scope}/{op}" if scope else f"/{op}"
        name = base
        k = 1
        while name in self.used_names:
            name = f"{base}_{k}"
            k += 1
        self.used_names.add(name)
        outs = [f"{name}_output_{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        if out_shape is not None:
            self.shapes[outs[0]] = tuple(out_shape)
        return outs[0] if n_out == 1 else outs

    def init(self, name, arr):
        assert name not in self.init_names, name
        self.init_names.add(name)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def constant(self, scope, value):
        """A `Constant` node (torch emits these for scalars such as Clip bounds)."""
        return self.node("Constant", [], scope, value=numpy_helper.from_array(np.asarray(value)))

    def bias(self, length, op):
        """A bias of this length; identical values are deduplicated into Identity aliases."""
        if length not in self.bias_by_len:
            b = (self.rng.standard_normal(length) * 0.1).astype(np.float32)
            name = self.init(self.fresh(f"onnx::{op}"), b)
            self.bias_by_len[length] = name
            return name
        src = self.bias_by_len[length]
        out = self.fresh(f"onnx::{op}")
        self.identity_nodes.append(helper.make_node("Identity", [src], [out], name=f"Identity_{len(self.identity_nodes)}"))
        return out

    # --- layers ------------------------------------------------------------------------------
    def conv(self, x, scope, cout, k, s=1, p=None, groups=1, gain=1.0, bias=True, param_name=None):
        """Conv with Kaiming weights.  bias=True: 3-input Conv (BN folded or conv bias).
        k and p: an int, or (h, w) pairs (Inception's 1x7 / 7x1)."""
        n, cin, h, w = self.shapes[x]
        kh, kw = (k, k) if isinstance(k, int) else k
        if p is None:
            p = ((kh - 1) // 2, (kw - 1) // 2)
        ph, pw = (p, p) if isinstance(p, int) else p
        fan_in = cin // groups * kh * kw
        wt = (self.rng.standard_normal((cout, cin // groups, kh, kw)) * (gain * np.sqrt(2.0 / fan_in))).astype(np.float32)
        if param_name:   # a conv whose parameters keep their module names (not BN-folded)
            wname = self.init(f"{param_name}.weight", wt)
        else:
            wname = self.init(self.fresh("onnx::Conv"), wt)
        ins = [x, wname]
        if bias:
            ins.append(self.bias(cout, "Conv"))
        ho = (h + 2 * ph - kh) // s + 1
        wo = (w + 2 * pw - kw) // s + 1
        return self.node("Conv", ins, scope, out_shape=(n, cout, ho, wo), dilations=[1, 1], group=groups,
                         kernel_shape=[kh, kw], pads=[ph, pw, ph, pw], strides=[s, s])

    def relu(self, x, scope):
        return self.node("Relu", [x], scope, out_shape=self.shapes[x])

    def relu6(self, x, scope):
        lo = self.constant(scope, np.array(0.0, np.float32))
        hi = self.constant(scope, np.array(6.0, np.float32))
        return self.node("Clip", [x, lo, hi], scope, out_shape=self.shapes[x])

    def hardsigmoid(self, x, scope):
        return self.node("HardSigmoid", [x], scope, out_shape=self.shapes[x], alpha=1.0 / 6)

    def hardswish(self, x, scope):
        if OPSET >= 14:   # symbolic_opset14.hardswish
            return self.node("HardSwish", [x], scope, out_shape=self.shapes[x])
        hs = self.hardsigmoid(x, scope)
        return self.node("Mul", [x, hs], scope, out_shape=self.shapes[x])

    def silu(self, x, scope):
        sg = self.node("Sigmoid", [x], scope, out_shape=self.shapes[x])
        return self.node("Mul", [x, sg], scope, out_shape=self.shapes[x])

    def add(self, a, b, scope):
        return self.node("Add", [a, b], scope, out_shape=self.shapes[a])

    def maxpool(self, x, scope, k, s, p=0, ceil=0):
        n, c, h, w = self.shapes[x]

        def osz(i):
            if ceil:
                o = -(-(i + 2 * p - k) // s) + 1
                if (o - 1) * s >= i + p:   # last window starting in the end padding is dropped
                    o -= 1
                return o
            return (i + 2 * p - k) // s + 1
        return self.node("MaxPool", [x], scope, out_shape=(n, c, osz(h), osz(w)), ceil_mode=ceil,
                         kernel_shape=[k, k], pads=[p, p, p, p], strides=[s, s])

    def avgpool(self, x, scope, k, s, p=0):
        n, c, h, w = self.shapes[x]
        return self.node("AveragePool", [x], scope, out_shape=(n, c, (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1),
                         ceil_mode=0, count_include_pad=1, kernel_shape=[k, k], pads=[p, p, p, p], strides=[s, s])

    def adaptive_avgpool(self, x, scope, out):
        """symbolic_opset9._adaptive_pool: 1x1 -> GlobalAveragePool, else AveragePool(k = s = in/out)."""
        n, c, h, w = self.shapes[x]
        if out == 1:
            return self.node("GlobalAveragePool", [x], scope, out_shape=(n, c, 1, 1))
        assert h % out == 0 and w % out == 0
        k = h // out
        return self.node("AveragePool", [x], scope, out_shape=(n, c, out, out), kernel_shape=[k, k], strides=[k, k])

    def flatten(self, x, scope):
        s = self.shapes[x]
        return self.node("Flatten", [x], scope, out_shape=(s[0], int(np.prod(s[1:]))), axis=1)

    def linear(self, x, scope, param, cout, gain=1.0):
        n, cin = self.shapes[x]
        wt = (self.rng.standard_normal((cout, cin)) * (gain * np.sqrt(2.0 / cin))).astype(np.float32)
        wname = self.init(f"{param}.weight", wt)
        bname = self.bias(cout, "Gemm")
        return self.node("Gemm", [x, wname, bname], scope, out_shape=(n, cout), alpha=1.0, beta=1.0, transB=1)

    def batchnorm(self, x, scope, param, eps=1e-5):
        c = self.shapes[x][1]
        r = self.rng
        g = self.init(f"{param}.weight", r.uniform(0.5, 1.5, c).astype(np.float32))
        b = self.init(f"{param}.bias", (r.standard_normal(c) * 0.1).astype(np.float32))
        m = self.init(f"{param}.running_mean", (r.standard_normal(c) * 0.1).astype(np.float32))
        v = self.init(f"{param}.running_var", r.uniform(0.5, 1.5, c).astype(np.float32))
        return self.node("BatchNormalization", [x, g, b, m, v], scope, out_shape=self.shapes[x],
                         epsilon=eps, momentum=0.9)

    def concat(self, xs, scope):
        s0 = self.shapes[xs[0]]
        c = sum(self.shapes[x][1] for x in xs)
        return self.node("Concat", xs, scope, out_shape=(s0[0], c) + tuple(s0[2:]), axis=1)

    # --- model ---------------------------------------------------------------------------------
    def model(self, x_shape=(1, 3, 224, 224)):
        self.shapes["input"] = x_shape
        return "input"

    def finish(self, out):
        # torch names the graph output after output_names=["output"]: rename the last node's output
        last = self.nodes[-1]
        assert last.output[0] == out
        last.output[0] = "output"
        oshape = self.shapes[out]
        graph = helper.make_graph(
            self.identity_nodes + self.nodes, "main_graph",
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, [BATCH or self.shapes["input"][0], *self.shapes["input"][1:]])],
            [helper.make_tensor_value_info("output", TensorProto.FLOAT, [BATCH or oshape[0], *oshape[1:]])],
            initializer=self.inits)
        m = helper.make_model(graph, producer_name="pytorch", producer_version="2.4.1",
                              opset_imports=[helper.make_opsetid("", OPSET)])
        m.ir_version = 7
        onnx.checker.check_model(m)
        return m


# ------------------------------------------------------------------------------------------------
# torchvision networks
# ------------------------------------------------------------------------------------------------
RES_GAIN = 0.5   # extra gain on the last conv of a residual branch (keeps deep residual nets O(1))


def resnet(seed, block, layers, groups=1, width_per_group=64):
    net = Net("resnet", seed)
    x = net.model()
    x = net.conv(x, "/conv1", 64, 7, 2, 3)
    x = net.relu(x, "/relu")
    x = net.maxpool(x, "/maxpool", 3, 2, 1)
    inplanes = 64
    for li, (planes, n) in enumerate(zip([64, 128, 256, 512], layers)):
        for bi in range(n):
            stride = 2 if (li > 0 and bi == 0) else 1
            sc = f"/layer{li + 1}/layer{li + 1}.{bi}"
            idn = x
            if block == "basic":
                out = net.conv(x, f"{sc}/conv1", planes, 3, stride)
                out = net.relu(out, f"{sc}/relu")
                out = net.conv(out, f"{sc}/conv2", planes, 3, 1, gain=RES_GAIN)
                exp = 1
            else:
                width = planes * width_per_group // 64 * groups   # torchvision's Bottleneck
                out = net.conv(x, f"{sc}/conv1", width, 1)
                out = net.relu(out, f"{sc}/relu")
                out = net.conv(out, f"{sc}/conv2", width, 3, stride, groups=groups)   # v1.5: stride on the 3x3
                out = net.relu(out, f"{sc}/relu_1")
                out = net.conv(out, f"{sc}/conv3", planes * 4, 1, gain=RES_GAIN)
                exp = 4
            if stride != 1 or inplanes != planes * exp:
                idn = net.conv(x, f"{sc}/downsample/downsample.0", planes * exp, 1, stride, 0)
            out = net.add(out, idn, sc)
            x = net.relu(out, f"{sc}/relu_2" if block != "basic" else f"{sc}/relu_1")
            inplanes = planes * exp
    x = net.adaptive_avgpool(x, "/avgpool", 1)
    if LEGACY_FLATTEN:   # older torchvision: x.reshape(x.size(0), -1)
        n, c = net.shapes[x][:2]
        shp = net.node("Shape", [x], "")
        d0 = net.node("Gather", [shp, net.constant("", np.array(0, np.int64))], "", axis=0)
        d0 = net.node("Unsqueeze", [d0, net.constant("", np.array([0], np.int64))], "")
        tgt = net.node("Concat", [d0, net.constant("", np.array([-1], np.int64))], "", axis=0)
        x = net.node("Reshape", [x, tgt], "", out_shape=(n, c))
    else:
        x = net.flatten(x, "")
    x = net.linear(x, "/fc", "fc", 1000, gain=0.5)
    return net.finish(x)


def make_divisible(v, divisor=8, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def mobilenet_v2(seed):
    net = Net("mobilenet_v2", seed)
    x = net.model()
    x = net.conv(x, "/features/features.0/features.0.0", 32, 3, 2)
    x = net.relu6(x, "/features/features.0/features.0.2")
    inp = 32
    idx = 1
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                       (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            sc = f"/features/features.{idx}/conv"
            hidden = inp * t
            y = x
            j = 0
            if t != 1:
                y = net.conv(y, f"{sc}/conv.0/conv.0.0", hidden, 1)
                y = net.relu6(y, f"{sc}/conv.0/conv.0.2")
                j = 1
            y = net.conv(y, f"{sc}/conv.{j}/conv.{j}.0", hidden, 3, stride, groups=hidden)
            y = net.relu6(y, f"{sc}/conv.{j}/conv.{j}.2")
            res = stride == 1 and inp == c
            y = net.conv(y, f"{sc}/conv.{j + 1}", c, 1, gain=RES_GAIN if res else 0.7)
            if res:
                y = net.add(x, y, f"/features/features.{idx}")
            x = y
            inp = c
            idx += 1
    x = net.conv(x, f"/features/features.{idx}/features.{idx}.0", 1280, 1)
    x = net.relu6(x, f"/features/features.{idx}/features.{idx}.2")
    x = net.adaptive_avgpool(x, "", 1)
    x = net.flatten(x, "")
    x = net.linear(x, "/classifier/classifier.1", "classifier.1", 1000, gain=0.5)
    return net.finish(x)


def vgg16(seed):
    net = Net("vgg16", seed)
    x = net.model()
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]
    i = 0
    for v in cfg:
        if v == "M":
            x = net.maxpool(x, f"/features/features.{i}", 2, 2)
            i += 1
        else:
            # plain conv with bias (no BN): parameters keep their names
            x = net.conv(x, f"/features/features.{i}", v, 3, 1, 1, param_name=f"features.{i}")
            x = net.relu(x, f"/features/features.{i + 1}")
            i += 2
    x = net.adaptive_avgpool(x, "/avgpool", 7)     # identity AveragePool 1x1/1 at 224 input
    x = net.flatten(x, "")
    x = net.linear(x, "/classifier/classifier.0", "classifier.0", 4096)
    x = net.relu(x, "/classifier/classifier.1")
    x = net.linear(x, "/classifier/classifier.3", "classifier.3", 4096)
    x = net.relu(x, "/classifier/classifier.4")
    x = net.linear(x, "/classifier/classifier.6", "classifier.6", 1000, gain=0.5)
    return net.finish(x)


def squeezenet1_1(seed):
    net = Net("squeezenet1_1", seed)
    x = net.model()
    x = net.conv(x, "/features/features.0", 64, 3, 2, 0, param_name="features.0")
    x = net.relu(x, "/features/features.1")

    def fire(x, i, sq, e1, e3):
        sc = f"/features/features.{i}"
        s = net.relu(net.conv(x, f"{sc}/squeeze", sq, 1, param_name=f"features.{i}.squeeze"), f"{sc}/squeeze_activation")
        a = net.relu(net.conv(s, f"{sc}/expand1x1", e1, 1, param_name=f"features.{i}.expand1x1"), f"{sc}/expand1x1_activation")
        b = net.relu(net.conv(s, f"{sc}/expand3x3", e3, 3, 1, 1, param_name=f"features.{i}.expand3x3"), f"{sc}/expand3x3_activation")
        return net.concat([a, b], sc)

    x = net.maxpool(x, "/features/features.2", 3, 2, 0, ceil=1)
    x = fire(x, 3, 16, 64, 64)
    x = fire(x, 4, 16, 64, 64)
    x = net.maxpool(x, "/features/features.5", 3, 2, 0, ceil=1)
    x = fire(x, 6, 32, 128, 128)
    x = fire(x, 7, 32, 128, 128)
    x = net.maxpool(x, "/features/features.8", 3, 2, 0, ceil=1)
    x = fire(x, 9, 48, 192, 192)
    x = fire(x, 10, 48, 192, 192)
    x = fire(x, 11, 64, 256, 256)
    x = fire(x, 12, 64, 256, 256)
    x = net.conv(x, "/classifier/classifier.1", 1000, 1, param_name="classifier.1", gain=0.5)
    x = net.relu(x, "/classifier/classifier.2")
    x = net.adaptive_avgpool(x, "/classifier/classifier.3", 1)
    x = net.flatten(x, "")
    return net.finish(x)


def mobilenet_v3_large(seed):
    net = Net("mobilenet_v3_large", seed)
    x = net.model()
    x = net.conv(x, "/features/features.0/features.0.0", 16, 3, 2)
    x = net.hardswish(x, "/features/features.0/features.0.2")
    cfg = [  # in, k, exp, out, se, act, stride
        (16, 3, 16, 16, False, "RE", 1), (16, 3, 64, 24, False, "RE", 2), (24, 3, 72, 24, False, "RE", 1),
        (24, 5, 72, 40, True, "RE", 2), (40, 5, 120, 40, True, "RE", 1), (40, 5, 120, 40, True, "RE", 1),
        (40, 3, 240, 80, False, "HS", 2), (80, 3, 200, 80, False, "HS", 1), (80, 3, 184, 80, False, "HS", 1),
        (80, 3, 184, 80, False, "HS", 1), (80, 3, 480, 112, True, "HS", 1), (112, 3, 672, 112, True, "HS", 1),
        (112, 5, 672, 160, True, "HS", 2), (160, 5, 960, 160, True, "HS", 1), (160, 5, 960, 160, True, "HS", 1)]
    for i, (cin, k, exp, cout, se, act, s) in enumerate(cfg, start=1):
        sc = f"/features/features.{i}/block"
        a = (lambda t, p: net.relu(t, p)) if act == "RE" else (lambda t, p: net.hardswish(t, p))
        y = x
        j = 0
        if exp != cin:
            y = a(net.conv(y, f"{sc}/block.0/block.0.0", exp, 1), f"{sc}/block.0/block.0.2")
            j = 1
        y = a(net.conv(y, f"{sc}/block.{j}/block.{j}.0", exp, k, s, groups=exp), f"{sc}/block.{j}/block.{j}.2")
        j += 1
        if se:
            ssc = f"{sc}/block.{j}"
            sq = make_divisible(exp // 4, 8)
            z = net.adaptive_avgpool(y, f"{ssc}/avgpool", 1)
            z = net.relu(net.conv(z, f"{ssc}/fc1", sq, 1, 1, 0), f"{ssc}/activation")
            z = net.hardsigmoid(net.conv(z, f"{ssc}/fc2", exp, 1, 1, 0, gain=0.5), f"{ssc}/scale_activation")
            y = net.node("Mul", [z, y], ssc, out_shape=net.shapes[y])
            j += 1
        res = s == 1 and cin == cout
        y = net.conv(y, f"{sc}/block.{j}/block.{j}.0", cout, 1, gain=RES_GAIN if res else 0.7)
        if res:
            y = net.add(y, x, f"/features/features.{i}")
        x = y
    x = net.hardswish(net.conv(x, "/features/features.16/features.16.0", 960, 1), "/features/features.16/features.16.2")
    x = net.adaptive_avgpool(x, "/avgpool", 1)
    x = net.flatten(x, "")
    x = net.hardswish(net.linear(x, "/classifier/classifier.0", "classifier.0", 1280), "/classifier/classifier.1")
    x = net.linear(x, "/classifier/classifier.3", "classifier.3", 1000, gain=0.5)
    return net.finish(x)


def efficientnet_b0(seed):
    net = Net("efficientnet_b0", seed)
    x = net.model()
    x = net.silu(net.conv(x, "/features/features.0/features.0.0", 32, 3, 2), "/features/features.0/features.0.2")
    cfg = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
           (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
    for si, (t, k, s, cin, cout, n) in enumerate(cfg, start=1):
        for bi in range(n):
            stride = s if bi == 0 else 1
            inp = cin if bi == 0 else cout
            sc = f"/features/features.{si}/features.{si}.{bi}/block"
            exp = make_divisible(inp * t, 8)
            y = x
            j = 0
            if exp != inp:
                y = net.silu(net.conv(y, f"{sc}/block.0/block.0.0", exp, 1), f"{sc}/block.0/block.0.2")
                j = 1
            y = net.silu(net.conv(y, f"{sc}/block.{j}/block.{j}.0", exp, k, stride, groups=exp), f"{sc}/block.{j}/block.{j}.2")
            j += 1
            ssc = f"{sc}/block.{j}"
            sq = max(1, inp // 4)
            z = net.adaptive_avgpool(y, f"{ssc}/avgpool", 1)
            z = net.silu(net.conv(z, f"{ssc}/fc1", sq, 1, 1, 0), f"{ssc}/activation")
            z = net.node("Sigmoid", [net.conv(z, f"{ssc}/fc2", exp, 1, 1, 0, gain=0.5)], f"{ssc}/scale_activation",
                         out_shape=net.shapes[y])
            y = net.node("Mul", [z, y], ssc, out_shape=net.shapes[y])
            j += 1
            res = stride == 1 and inp == cout
            y = net.conv(y, f"{sc}/block.{j}/block.{j}.0", cout, 1, gain=RES_GAIN if res else 1.0)
            if res:
                y = net.add(y, x, f"/features/features.{si}/features.{si}.{bi}")
            x = y
    x = net.silu(net.conv(x, "/features/features.8/features.8.0", 1280, 1), "/features/features.8/features.8.2")
    x = net.adaptive_avgpool(x, "/avgpool", 1)
    x = net.flatten(x, "")
    x = net.linear(x, "/classifier/classifier.1", "classifier.1", 1000, gain=0.5)
    return net.finish(x)


def shufflenet_v2_x1_0(seed):
    net = Net("shufflenet_v2_x1_0", seed)
    x = net.model()
    x = net.relu(net.conv(x, "/conv1/conv1.0", 24, 3, 2, 1), "/conv1/conv1.2")
    x = net.maxpool(x, "/maxpool", 3, 2, 1)

    def shuffle(x, sc):
        n, c, h, w = net.shapes[x]
        s1 = net.constant(sc, np.array([n, 2, c // 2, h, w], np.int64))
        y = net.node("Reshape", [x, s1], sc, out_shape=(n, 2, c // 2, h, w))
        y = net.node("Transpose", [y], sc, out_shape=(n, c // 2, 2, h, w), perm=[0, 2, 1, 3, 4])
        s2 = net.constant(sc, np.array([n, c, h, w], np.int64))
        return net.node("Reshape", [y, s2], sc, out_shape=(n, c, h, w))

    def chunk2(x, sc):
        """x.chunk(2, dim=1) as traced: Shape -> Gather(1) -> (+1)/2 -> *1, *2 -> two Slices."""
        n, c, h, w = net.shapes[x]
        shp = net.node("Shape", [x], sc)
        d = net.node("Gather", [shp, net.constant(sc, np.array([1], np.int64))], sc, axis=0)
        d = net.node("Add", [d, net.constant(sc, np.array([1], np.int64))], sc)
        cs = net.node("Div", [d, net.constant(sc, np.array([2], np.int64))], sc)
        e1 = net.node("Mul", [cs, net.constant(sc, np.array([1], np.int64))], sc)
        e2 = net.node("Mul", [cs, net.constant(sc, np.array([2], np.int64))], sc)
        axes = net.constant(sc, np.array([1], np.int64))
        zero = net.constant(sc, np.array([0], np.int64))
        a = net.node("Slice", [x, zero, e1, axes], sc, out_shape=(n, c // 2, h, w))
        b = net.node("Slice", [x, e1, e2, axes], sc, out_shape=(n, c - c // 2, h, w))
        return a, b

    inp = 24
    for si, (reps, oup) in enumerate(zip([4, 8, 4], [116, 232, 464]), start=2):
        for bi in range(reps):
            sc = f"/stage{si}/stage{si}.{bi}"
            bf = oup // 2
            if bi == 0:
                b1 = net.conv(x, f"{sc}/branch1/branch1.0", inp, 3, 2, 1, groups=inp)
                b1 = net.relu(net.conv(b1, f"{sc}/branch1/branch1.2", bf, 1), f"{sc}/branch1/branch1.4")
                b2 = net.relu(net.conv(x, f"{sc}/branch2/branch2.0", bf, 1), f"{sc}/branch2/branch2.2")
                b2 = net.conv(b2, f"{sc}/branch2/branch2.3", bf, 3, 2, 1, groups=bf)
                b2 = net.relu(net.conv(b2, f"{sc}/branch2/branch2.5", bf, 1), f"{sc}/branch2/branch2.7")
                out = net.concat([b1, b2], sc)
            else:
                x1, x2 = chunk2(x, sc)
                b2 = net.relu(net.conv(x2, f"{sc}/branch2/branch2.0", bf, 1), f"{sc}/branch2/branch2.2")
                b2 = net.conv(b2, f"{sc}/branch2/branch2.3", bf, 3, 1, 1, groups=bf)
                b2 = net.relu(net.conv(b2, f"{sc}/branch2/branch2.5", bf, 1), f"{sc}/branch2/branch2.7")
                out = net.concat([x1, b2], sc)
            x = shuffle(out, sc)
            inp = oup
    x = net.relu(net.conv(x, "/conv5/conv5.0", 1024, 1), "/conv5/conv5.2")
    n, c = net.shapes[x][:2]
    x = net.node("ReduceMean", [x], "", out_shape=(n, c), axes=[2, 3], keepdims=0)
    x = net.linear(x, "/fc", "fc", 1000, gain=0.5)
    return net.finish(x)


def densenet121(seed):
    net = Net("densenet121", seed)
    x = net.model()
    x = net.relu(net.conv(x, "/features/conv0", 64, 7, 2, 3), "/features/relu0")
    x = net.maxpool(x, "/features/pool0", 3, 2, 1)
    growth, bn_size = 32, 4
    c = 64
    for bi, n in enumerate([6, 12, 24, 16], start=1):
        feats = [x]
        for li in range(1, n + 1):
            sc = f"/features/denseblock{bi}/denselayer{li}"
            p = f"features.denseblock{bi}.denselayer{li}"
            y = net.concat(list(feats), sc)           # torch.cat(prev_features, 1), also for one tensor
            y = net.relu(net.batchnorm(y, f"{sc}/norm1", f"{p}.norm1"), f"{sc}/relu1")
            y = net.conv(y, f"{sc}/conv1", bn_size * growth, 1)           # norm2 folded into conv1
            y = net.relu(y, f"{sc}/relu2")
            y = net.conv(y, f"{sc}/conv2", growth, 3, 1, 1, bias=False, param_name=f"{p}.conv2")
            feats.append(y)
        x = net.concat(feats, f"/features/denseblock{bi}")
        c = net.shapes[x][1]
        if bi < 4:
            sc = f"/features/transition{bi}"
            y = net.relu(net.batchnorm(x, f"{sc}/norm", f"features.transition{bi}.norm"), f"{sc}/relu")
            y = net.conv(y, f"{sc}/conv", c // 2, 1, bias=False, param_name=f"features.transition{bi}.conv")
            x = net.avgpool(y, f"{sc}/pool", 2, 2)
    x = net.relu(net.batchnorm(x, "/features/norm5", "features.norm5"), "")
    x = net.adaptive_avgpool(x, "", 1)
    x = net.flatten(x, "")
    x = net.linear(x, "/classifier", "classifier", 1000, gain=0.5)
    return net.finish(x)


def googlenet(seed):
    net = Net("googlenet", seed)
    x = net.model()

    def basic(x, sc, cout, k, s=1, p=0, gain=1.0):   # BasicConv2d: conv (no bias) + BN (folded) + relu
        return net.relu(net.conv(x, f"{sc}/conv", cout, k, s, p, gain=gain), sc)

    x = basic(x, "/conv1", 64, 7, 2, 3)
    x = net.maxpool(x, "/maxpool1", 3, 2, 0, ceil=1)
    x = basic(x, "/conv2", 64, 1)
    x = basic(x, "/conv3", 192, 3, 1, 1)
    x = net.maxpool(x, "/maxpool2", 3, 2, 0, ceil=1)

    def inception(x, name, c1, c3r, c3, c5r, c5, pp):
        sc = f"/{name}"
        b1 = basic(x, f"{sc}/branch1", c1, 1)
        b2 = basic(basic(x, f"{sc}/branch2/branch2.0", c3r, 1), f"{sc}/branch2/branch2.1", c3, 3, 1, 1)
        b3 = basic(basic(x, f"{sc}/branch3/branch3.0", c5r, 1), f"{sc}/branch3/branch3.1", c5, 3, 1, 1)
        b4 = net.maxpool(x, f"{sc}/branch4/branch4.0", 3, 1, 1, ceil=1)
        b4 = basic(b4, f"{sc}/branch4/branch4.1", pp, 1)
        return net.concat([b1, b2, b3, b4], sc)

    x = inception(x, "inception3a", 64, 96, 128, 16, 32, 32)
    x = inception(x, "inception3b", 128, 128, 192, 32, 96, 64)
    x = net.maxpool(x, "/maxpool3", 3, 2, 0, ceil=1)
    x = inception(x, "inception4a", 192, 96, 208, 16, 48, 64)
    x = inception(x, "inception4b", 160, 112, 224, 24, 64, 64)
    x = inception(x, "inception4c", 128, 128, 256, 24, 64, 64)
    x = inception(x, "inception4d", 112, 144, 288, 32, 64, 64)
    x = inception(x, "inception4e", 256, 160, 320, 32, 128, 128)
    x = net.maxpool(x, "/maxpool4", 2, 2, 0, ceil=1)
    x = inception(x, "inception5a", 256, 160, 320, 32, 128, 128)
    x = inception(x, "inception5b", 384, 192, 384, 48, 128, 128)
    x = net.adaptive_avgpool(x, "/avgpool", 1)
    x = net.flatten(x, "")
    x = net.linear(x, "/fc", "fc", 1000, gain=0.5)
    return net.finish(x)


def inception_v3(seed):
    """torchvision's inception_v3 (eval: no aux logits, transform_input=False), 299x299 input.
    BasicConv2d = conv (no bias) + BN (folded) + relu; branch pools are avg_pool2d(3, 1, 1) with
    count_include_pad (torch's default)."""
    net = Net("inception_v3", seed)
    x = net.model((1, 3, 299, 299))

    def basic(x, sc, cout, k, s=1, p=0):
        return net.relu(net.conv(x, f"{sc}/conv", cout, k, s, p), sc)

    def pool_branch(x, sc, cout):
        return basic(net.avgpool(x, f"{sc}/avg_pool2d", 3, 1, 1), f"{sc}/branch_pool", cout, 1)

    x = basic(x, "/Conv2d_1a_3x3", 32, 3, 2)
    x = basic(x, "/Conv2d_2a_3x3", 32, 3)
    x = basic(x, "/Conv2d_2b_3x3", 64, 3, 1, 1)
    x = net.maxpool(x, "/maxpool1", 3, 2)
    x = basic(x, "/Conv2d_3b_1x1", 80, 1)
    x = basic(x, "/Conv2d_4a_3x3", 192, 3)
    x = net.maxpool(x, "/maxpool2", 3, 2)

    def block_a(x, sc, pool_features):
        b1 = basic(x, f"{sc}/branch1x1", 64, 1)
        b5 = basic(basic(x, f"{sc}/branch5x5_1", 48, 1), f"{sc}/branch5x5_2", 64, 5, 1, 2)
        b3 = basic(x, f"{sc}/branch3x3dbl_1", 64, 1)
        b3 = basic(b3, f"{sc}/branch3x3dbl_2", 96, 3, 1, 1)
        b3 = basic(b3, f"{sc}/branch3x3dbl_3", 96, 3, 1, 1)
        return net.concat([b1, b5, b3, pool_branch(x, sc, pool_features)], sc)

    def block_b(x, sc):
        b3 = basic(x, f"{sc}/branch3x3", 384, 3, 2)
        bd = basic(x, f"{sc}/branch3x3dbl_1", 64, 1)
        bd = basic(bd, f"{sc}/branch3x3dbl_2", 96, 3, 1, 1)
        bd = basic(bd, f"{sc}/branch3x3dbl_3", 96, 3, 2)
        return net.concat([b3, bd, net.maxpool(x, f"{sc}/max_pool2d", 3, 2)], sc)

    def block_c(x, sc, c7):
        b1 = basic(x, f"{sc}/branch1x1", 192, 1)
        b7 = basic(x, f"{sc}/branch7x7_1", c7, 1)
        b7 = basic(b7, f"{sc}/branch7x7_2", c7, (1, 7), 1, (0, 3))
        b7 = basic(b7, f"{sc}/branch7x7_3", 192, (7, 1), 1, (3, 0))
        bd = basic(x, f"{sc}/branch7x7dbl_1", c7, 1)
        bd = basic(bd, f"{sc}/branch7x7dbl_2", c7, (7, 1), 1, (3, 0))
        bd = basic(bd, f"{sc}/branch7x7dbl_3", c7, (1, 7), 1, (0, 3))
        bd = basic(bd, f"{sc}/branch7x7dbl_4", c7, (7, 1), 1, (3, 0))
        bd = basic(bd, f"{sc}/branch7x7dbl_5", 192, (1, 7), 1, (0, 3))
        return net.concat([b1, b7, bd, pool_branch(x, sc, 192)], sc)

    def block_d(x, sc):
        b3 = basic(basic(x, f"{sc}/branch3x3_1", 192, 1), f"{sc}/branch3x3_2", 320, 3, 2)
        b7 = basic(x, f"{sc}/branch7x7x3_1", 192, 1)
        b7 = basic(b7, f"{sc}/branch7x7x3_2", 192, (1, 7), 1, (0, 3))
        b7 = basic(b7, f"{sc}/branch7x7x3_3", 192, (7, 1), 1, (3, 0))
        b7 = basic(b7, f"{sc}/branch7x7x3_4", 192, 3, 2)
        return net.concat([b3, b7, net.maxpool(x, f"{sc}/max_pool2d", 3, 2)], sc)

    def block_e(x, sc):
        b1 = basic(x, f"{sc}/branch1x1", 320, 1)
        b3 = basic(x, f"{sc}/branch3x3_1", 384, 1)
        b3 = net.concat([basic(b3, f"{sc}/branch3x3_2a", 384, (1, 3), 1, (0, 1)),
                         basic(b3, f"{sc}/branch3x3_2b", 384, (3, 1), 1, (1, 0))], f"{sc}/cat")
        bd = basic(x, f"{sc}/branch3x3dbl_1", 448, 1)
        bd = basic(bd, f"{sc}/branch3x3dbl_2", 384, 3, 1, 1)
        bd = net.concat([basic(bd, f"{sc}/branch3x3dbl_3a", 384, (1, 3), 1, (0, 1)),
                         basic(bd, f"{sc}/branch3x3dbl_3b", 384, (3, 1), 1, (1, 0))], f"{sc}/cat_1")
        return net.concat([b1, b3, bd, pool_branch(x, sc, 192)], sc)

    x = block_a(x, "/Mixed_5b", 32)
    x = block_a(x, "/Mixed_5c", 64)
    x = block_a(x, "/Mixed_5d", 64)
    x = block_b(x, "/Mixed_6a")
    for name, c7 in [("6b", 128), ("6c", 160), ("6d", 160), ("6e", 192)]:
        x = block_c(x, f"/Mixed_{name}", c7)
    x = block_d(x, "/Mixed_7a")
    x = block_e(x, "/Mixed_7b")
    x = block_e(x, "/Mixed_7c")
    x = net.adaptive_avgpool(x, "/avgpool", 1)
    x = net.flatten(x, "")
    x = net.linear(x, "/fc", "fc", 1000, gain=0.5)
    return net.finish(x)


def regnet_y_400mf(seed):
    """torchvision regnet_y_400mf: stages of ResBottleneckBlocks (1x1, grouped 3x3 with groups of 8
    channels, squeeze-and-excitation, 1x1) with widths 48/104/208/440 and depths 1/3/6/6."""
    net = Net("regnet_y_400mf", seed)
    x = net.model()
    x = net.relu(net.conv(x, "/stem/stem.0", 32, 3, 2), "/stem/stem.2")
    w_in = 32
    for si, (w_out, depth) in enumerate(zip([48, 104, 208, 440], [1, 3, 6, 6]), start=1):
        for bi in range(depth):
            stride = 2 if bi == 0 else 1
            sc = f"/trunk_output/block{si}/block{si}-{bi}"
            idn = x
            if w_in != w_out or stride != 1:
                idn = net.conv(x, f"{sc}/proj/0", w_out, 1, stride, 0)
            y = net.relu(net.conv(x, f"{sc}/f/a/0", w_out, 1), f"{sc}/f/a/2")
            y = net.relu(net.conv(y, f"{sc}/f/b/0", w_out, 3, stride, groups=w_out // 8), f"{sc}/f/b/2")
            sq = int(round(0.25 * w_in))
            z = net.adaptive_avgpool(y, f"{sc}/f/se/avgpool", 1)
            z = net.relu(net.conv(z, f"{sc}/f/se/fc1", sq, 1, 1, 0), f"{sc}/f/se/activation")
            z = net.conv(z, f"{sc}/f/se/fc2", w_out, 1, 1, 0, gain=0.5)
            z = net.node("Sigmoid", [z], f"{sc}/f/se/scale_activation", out_shape=net.shapes[z])
            y = net.node("Mul", [z, y], f"{sc}/f/se", out_shape=net.shapes[y])
            y = net.conv(y, f"{sc}/f/c/0", w_out, 1, gain=RES_GAIN)
            x = net.relu(net.add(idn, y, sc), f"{sc}/activation")
            w_in = w_out
    x = net.adaptive_avgpool(x, "/avgpool", 1)
    x = net.flatten(x, "")
    x = net.linear(x, "/fc", "fc", 1000, gain=0.5)
    return net.finish(x)


def alexnet(seed):
    """torchvision alexnet: 11x11/4 and 5x5 convolutions, three 3x3, max pools 3/2, and three
    fully connected layers (9216 -> 4096 -> 4096 -> 1000); the 6x6 adaptive pool on 6x6 maps is
    an AveragePool 1x1/1."""
    net = Net("alexnet", seed)
    x = net.model()
    x = net.maxpool(net.relu(net.conv(x, "/features/features.0", 64, 11, 4, 2), "/features/features.1"),
                    "/features/features.2", 3, 2)
    x = net.maxpool(net.relu(net.conv(x, "/features/features.3", 192, 5, 1, 2), "/features/features.4"),
                    "/features/features.5", 3, 2)
    x = net.relu(net.conv(x, "/features/features.6", 384, 3), "/features/features.7")
    x = net.relu(net.conv(x, "/features/features.8", 256, 3), "/features/features.9")
    x = net.relu(net.conv(x, "/features/features.10", 256, 3), "/features/features.11")
    x = net.maxpool(x, "/features/features.12", 3, 2)
    x = net.adaptive_avgpool(x, "/avgpool", 6)
    x = net.flatten(x, "")
    x = net.relu(net.linear(x, "/classifier/classifier.1", "classifier.1", 4096), "/classifier/classifier.2")
    x = net.relu(net.linear(x, "/classifier/classifier.4", "classifier.4", 4096), "/classifier/classifier.5")
    x = net.linear(x, "/classifier/classifier.6", "classifier.6", 1000, gain=0.5)
    return net.finish(x)


MODELS = {
    "resnet50": lambda s: resnet(s, "bottleneck", [3, 4, 6, 3]),
    "mobilenet_v2": mobilenet_v2,
    "vgg16": vgg16,
    "resnet18": lambda s: resnet(s, "basic", [2, 2, 2, 2]),
    "squeezenet1_1": squeezenet1_1,
    "mobilenet_v3_large": mobilenet_v3_large,
    "efficientnet_b0": efficientnet_b0,
    "shufflenet_v2_x1_0": shufflenet_v2_x1_0,
    "densenet121": densenet121,
    "googlenet": googlenet,
    "resnext50_32x4d": lambda s: resnet(s, "bottleneck", [3, 4, 6, 3], groups=32, width_per_group=4),
    "inception_v3": inception_v3,
    "regnet_y_400mf": regnet_y_400mf,
    "alexnet": alexnet,
    "wide_resnet50_2": lambda s: resnet(s, "bottleneck", [3, 4, 6, 3], width_per_group=128),
}


def op_counts(m):
    c = {}
    for n in m.graph.node:
        c[n.op_type] = c.get(n.op_type, 0) + 1
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("models", nargs="*", help=f"default: all of {', '.join(MODELS)}")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--opset", type=int, default=13, choices=[11, 13, 17],
                    help="default 13; 17 only changes hardswish to HardSwish (mobilenet_v3_large)")
    ap.add_argument("--dynamic-batch", action="store_true",
                    help='dim 0 of input/output symbolic ("batch_size", as dynamic_axes gives); the graph '
                         'is otherwise unchanged (shufflenet keeps batch 1 baked into its Reshapes, so it is refused)')
    ap.add_argument("--legacy-flatten", action="store_true",
                    help="resnets: x.reshape(x.size(0), -1) of older torchvision (Shape->Gather->Unsqueeze->Concat->Reshape)")
    ap.add_argument("--suffix", default="", help="appended to the file names, e.g. _op17")
    a = ap.parse_args()
    global OPSET, BATCH, LEGACY_FLATTEN
    OPSET = a.opset
    LEGACY_FLATTEN = a.legacy_flatten
    if a.dynamic_batch:
        BATCH = "batch_size"
    names = a.models or list(MODELS)
    for n in names:
        if a.dynamic_batch and n == "shufflenet_v2_x1_0":
            sys.exit("make_models.py: --dynamic-batch is not modelled for shufflenet_v2_x1_0 (its export computes shapes)")
        if n not in MODELS:
            sys.exit(f"make_models.py: unknown model {n!r} (known: {', '.join(MODELS)})")
    os.makedirs(a.outdir, exist_ok=True)
    for i, n in enumerate(names):
        m = MODELS[n](a.seed * 1000 + list(MODELS).index(n))
        path = os.path.join(a.outdir, f"{n}{a.suffix}.onnx")
        onnx.save(m, path)
        counts = ", ".join(f"{k} {v}" for k, v in sorted(op_counts(m).items(), key=lambda kv: -kv[1]))
        print(f"{path}: {os.path.getsize(path) / 2**20:.1f} MiB; {counts}")


if __name__ == "__main__":
    main()
