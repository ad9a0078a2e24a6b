// The tensor ops of the ONNX importer: one relay builder call per node, attributes already checked
// (see onnx_importer.h).
#include "relay/frontend/onnx_importer.h"

#ifdef MINITVM_HAVE_ONNX

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include "minitvm/support/checked_math.h"

namespace minitvm::relay::frontend::onnx_detail {

// Conv and ConvTranspose: data and weight as 2-D operands. A 1-D op (3-D data and weight) is a
// 2-D one over (N, C, 1, L) with a (., ., 1, K) weight (lift1d_); anything else but 2-D fails.
void Importer::conv_operands_2d(Expr& x, Expr& w, Shape& xs, Shape& ws, const char* what) {
  xs = x->type().shape;
  ws = w->type().shape;
  lift1d_ = xs.size() == 3 && ws.size() == 3;
  if (lift1d_) {
    xs.insert(xs.begin() + 2, 1);
    ws.insert(ws.begin() + 2, 1);
    x = reshape(x, xs);
    w = reshape(w, ws);
  }
  if (xs.size() != 4 || ws.size() != 4)
    fail("only 1-D and 2-D ", what, " (3-D or 4-D data and weight) are supported, got data ",
         fmt_shape(xs), " weight ", fmt_shape(ws));
}

// The weight's (kH, kW), checked against the optional kernel_shape attribute.
Shape Importer::kernel_hw(const Shape& ws) {
  Shape k{ws[2], ws[3]};
  if (auto ks = getints("kernel_shape"))
    if (*ks != k && !(lift1d_ && *ks == Shape{ws[3]}))
      fail("attribute 'kernel_shape' ", fmt_shape(*ks), " does not match the weight ",
           fmt_shape(ws));
  return k;
}

// The optional bias (input 2) added, a 1-D op's result back to (N, C, L), set as output 0.
void Importer::set_conv_out(Expr y) {
  if (has_input(2)) y = nn::bias_add(y, in(2), 1);
  if (lift1d_) {
    Shape ys = y->type().shape;
    y = reshape(y, {ys[0], ys[1], ys[3]});
  }
  set_out(0, y);
}

Importer::ConvWindow Importer::conv_window_attrs() {
  ConvWindow cw;
  cw.group = geti("group", 1);
  if (cw.group < 1) fail("attribute 'group' = ", cw.group, " must be >= 1");
  cw.strides = spatial_ints("strides", 1);
  cw.dilations = spatial_ints("dilations", 1);
  positive(cw.strides, "strides");
  positive(cw.dilations, "dilations");
  return cw;
}

void Importer::op_conv() {
  only_outputs(1);
  Expr x = in(0), w = in(1);
  if (x->type().shape.size() == 5 && w->type().shape.size() == 5) return op_conv3d(x, w);
  Shape xs, ws;
  conv_operands_2d(x, w, xs, ws, "convolutions");
  const ConvWindow cw = conv_window_attrs();
  Shape kshape = kernel_hw(ws);
  Conv2DAttrs a;
  a.strides = cw.strides;
  a.dilation = cw.dilations;
  a.groups = cw.group;
  a.padding = padding({xs[2], xs[3]}, kshape, cw.strides, cw.dilations);
  set_conv_out(nn::conv2d(x, w, a));
}

// A 3-D Conv (video networks: R3D, R(2+1)D, MC3) as a batched 2-D one over its output frames
// (a temporal im2col): output frame t reads input frames t*st + dt*dil_t (dt < kT) of the padded
// input, stacked as kT times the channels (channel c*kT + dt, the order of the weight's
// (C, kT) axes flattened); the frames become the batch of one conv2d over (H, W) with the
// weight reshaped to (O, C/groups * kT, kH, kW), then back to (N, O, T', H', W'). Grouped
// convolutions keep their groups: each group's channels stay contiguous.
void Importer::op_conv3d(Expr x, Expr w) {
  spatial_rank_ = 3;
  const Shape xs = x->type().shape, ws = w->type().shape;
  const ConvWindow cw = conv_window_attrs();
  const Shape k{ws[2], ws[3], ws[4]};
  if (auto ks = getints("kernel_shape"); ks && *ks != k)
    fail("attribute 'kernel_shape' ", fmt_shape(*ks), " does not match the weight ", fmt_shape(ws));
  if (ws[1] * cw.group != xs[1])
    fail("weight ", fmt_shape(ws), " with group ", cw.group, " does not match data ", fmt_shape(xs),
         " (", xs[1], " channels)");
  if (ws[0] % cw.group != 0)
    fail("output channels ", ws[0], " are not divisible by group ", cw.group);
  const Shape p = padding({xs[2], xs[3], xs[4]}, k, cw.strides, cw.dilations);
  const int64_t st = cw.strides[0], dt_dil = cw.dilations[0], kt = k[0];
  const int64_t tp = xs[2] + p[0] + p[3], span = (kt - 1) * dt_dil + 1;
  if (tp < span)
    fail("the temporal window ", span, " is longer than the padded input's ", tp, " frames");
  const int64_t to = (tp - span) / st + 1;
  if (p[0] || p[3]) x = nn::pad(x, {{0, 0}, {0, 0}, {p[0], p[3]}, {0, 0}, {0, 0}});
  // (N, C, T', kT, H, W): tap dt of every output frame
  std::vector<Expr> taps;
  for (int64_t dt = 0; dt < kt; ++dt)
    taps.push_back(expand_dims(strided_range(x, 2, dt * dt_dil, st, to), 3, 1));
  Expr frames = kt == 1 ? taps[0] : concatenate(taps, 3);
  frames = transpose(frames, {0, 2, 1, 3, 4, 5});
  frames = reshape(frames, {xs[0] * to, xs[1] * kt, xs[3], xs[4]});
  Expr w2 = reshape(w, {ws[0], ws[1] * kt, ws[3], ws[4]});
  Conv2DAttrs a;
  a.strides = {cw.strides[1], cw.strides[2]};
  a.dilation = {cw.dilations[1], cw.dilations[2]};
  a.groups = cw.group;
  a.padding = {p[1], p[2], p[4], p[5]};
  Expr y = nn::conv2d(frames, w2, a);
  const Shape ys = y->type().shape;  // (N * T', O, H', W')
  y = reshape(y, {xs[0], to, ys[1], ys[2], ys[3]});
  y = transpose(y, {0, 2, 1, 3, 4});
  if (has_input(2)) y = nn::bias_add(y, in(2), 1);
  set_out(0, y);
}

// ConvTranspose as the convolution it is the gradient of: the input dilated by the strides, padded
// by the dilated kernel extent less the pads (plus output_padding at the end), convolved at stride
// 1 with the weight's in/out channels swapped per group and its taps flipped. The weight
// rearrangement is graph ops on the weight, folded at build time when it is an initializer.
void Importer::op_conv_transpose() {
  only_outputs(1);
  Expr x = in(0), w = in(1);
  Shape xs, ws;
  conv_operands_2d(x, w, xs, ws, "transposed convolutions");
  const ConvWindow cw = conv_window_attrs();
  const int64_t g = cw.group;
  if (ws[0] != xs[1] || xs[1] % g != 0)
    fail("weight ", fmt_shape(ws), " does not match data ", fmt_shape(xs), " with group ", g,
         " (the weight is (C_in, C_out / group, kH, kW))");
  const Shape &st = cw.strides, &dil = cw.dilations;
  auto opad = spatial_ints("output_padding", 0);
  for (auto v : opad)
    if (v < 0) fail("attribute 'output_padding' has a negative value ", v);
  Shape k = kernel_hw(ws);
  // pads (begin h, begin w, end h, end w) from pads, auto_pad or output_shape.
  Shape pads{0, 0, 0, 0};
  std::string ap = gets("auto_pad", "NOTSET");
  auto out_shape = getints("output_shape");
  if (out_shape && lift1d_ && out_shape->size() == 1) out_shape = Shape{1, (*out_shape)[0]};
  if (out_shape && out_shape->size() == 4) out_shape = Shape{(*out_shape)[2], (*out_shape)[3]};
  if (ap != "NOTSET" && ap != "SAME_UPPER" && ap != "SAME_LOWER" && ap != "VALID")
    fail("attribute 'auto_pad' = '", ap, "' is not supported");
  if (!out_shape && (ap == "SAME_UPPER" || ap == "SAME_LOWER"))
    out_shape = Shape{xs[2] * st[0], xs[3] * st[1]};
  if (out_shape) {
    if (out_shape->size() != 2)
      fail("attribute 'output_shape' ", fmt_shape(*out_shape), " must give the 2 spatial extents");
    if (has("pads"))
      fail("attributes 'pads' and 'output_shape' (or auto_pad SAME) cannot both be given");
    for (int i = 0; i < 2; ++i) {
      int64_t total = st[i] * (xs[2 + i] - 1) + opad[i] + (k[i] - 1) * dil[i] + 1 - (*out_shape)[i];
      // floor division, as ONNX's reference: a negative total (an output_shape beyond the
      // full transposed convolution) extends the output with zeros (plus bias).
      int64_t small = total >= 0 ? total / 2 : -((-total + 1) / 2), big = total - small;
      pads[i] = ap == "SAME_UPPER" ? small : big;
      pads[i + 2] = ap == "SAME_UPPER" ? big : small;
    }
  } else if (auto p = getints("pads")) {
    if (ap != "NOTSET") fail("attributes 'pads' and auto_pad = ", ap, " cannot both be given");
    if (lift1d_ && p->size() == 2) p = Shape{0, (*p)[0], 0, (*p)[1]};
    if (p->size() != 4) fail("attribute 'pads' has ", p->size(), " values; expected 4 (2-D)");
    for (auto v : *p)
      if (v < 0) fail("attribute 'pads' has a negative value ", v);
    pads = *p;
  }
  Conv2DAttrs a;
  a.dilation = dil;
  a.groups = g;
  a.padding.clear();
  for (int e = 0; e < 2; ++e)
    for (int i = 0; i < 2; ++i) {
      int64_t p = (k[i] - 1) * dil[i] - pads[e * 2 + i] + (e == 1 ? opad[i] : 0);
      if (p < 0)
        fail("pads ", fmt_shape(pads), " exceed the dilated kernel extent ", (k[i] - 1) * dil[i],
             " (cropping is not supported)");
      a.padding.push_back(p);
    }
  // (C_in, C_out/g, kH, kW) -> (C_out, C_in/g, kH, kW), taps flipped.
  const int64_t cin = ws[0], cog = ws[1];
  Expr wt = g == 1 ? transpose(w, {1, 0, 2, 3})
                   : reshape(transpose(reshape(w, {g, cin / g, cog, k[0], k[1]}), {0, 2, 1, 3, 4}),
                             {g * cog, cin / g, k[0], k[1]});
  wt = reverse(reverse(wt, 2), 3);
  if (st[0] > 1 || st[1] > 1) x = nn::dilate(x, {1, 1, st[0], st[1]});
  set_conv_out(nn::conv2d(x, wt, a));
}

void Importer::op_bn() {
  only_outputs(1);
  if (geti("training_mode", 0) != 0)
    fail("attribute 'training_mode' = 1 is not supported (inference only)");
  if (opset_ < 7 && geti("is_test", 0) != 1)
    fail("attribute 'is_test' = 0 (training mode, opset < 7) is not supported");
  if (geti("spatial", 1) != 1) fail("attribute 'spatial' = 0 is not supported");
  double eps = getf("epsilon", 1e-5);
  if (!(eps >= 0)) fail("attribute 'epsilon' = ", eps, " must be >= 0");
  set_out(0, tuple_get_item(nn::batch_norm(in(0), in(1), in(2), in(3), in(4), 1, eps), 0));
}

void Importer::op_clip() {
  only_outputs(1);
  double lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (opset_ < 11) {
    lo = getf("min", lo);
    hi = getf("max", hi);
  } else {
    check(!has("min") && !has("max"),
          "attributes 'min'/'max' are not allowed from opset 11 (they are inputs)");
    if (has_input(1)) lo = cscalar(1, "min");
    if (has_input(2)) hi = cscalar(2, "max");
  }
  if (lo > hi) fail("min ", lo, " > max ", hi, " is not supported");
  set_out(0, clip(in(0), lo, hi));
}

void Importer::op_binary(const std::string& op) {
  only_outputs(1);
  Expr a = in(0), b = in(1);
  legacy_broadcast(a->type().shape, b);
  Expr y = op == "Add"   ? add(a, b)
           : op == "Sub" ? subtract(a, b)
           : op == "Mul" ? multiply(a, b)
                         : divide(a, b);
  set_out(0, y);
}

// One float input: Tanh, Exp, Log, Erf, Abs, Neg, Sqrt, Floor, Ceil as relay's functions;
// Reciprocal as 1 / x, Softplus as log(exp(x) + 1) (ONNX's definition).
void Importer::op_unary(const std::string& op) {
  only_outputs(1);
  Expr x = float_in(0);
  Expr y = op == "Tanh"         ? tanh(x)
           : op == "Exp"        ? exp(x)
           : op == "Log"        ? log(x)
           : op == "Erf"        ? erf(x)
           : op == "Abs"        ? abs(x)
           : op == "Neg"        ? negative(x)
           : op == "Sqrt"       ? sqrt(x)
           : op == "Floor"      ? floor(x)
           : op == "Ceil"       ? ceil(x)
           : op == "Reciprocal" ? divide(scalar(1.0), x)
                                : log(add(exp(x), scalar(1.0)));
  set_out(0, y);
}

// LeakyRelu (alpha, default 0.01) as nn.leaky_relu; Elu (alpha, default 1) as
// relu(x) + alpha * (exp(min(x, 0)) - 1), Selu (alpha, gamma: ONNX's defaults) as gamma times that,
// and PRelu as relu(x) + slope * min(x, 0) with the slope broadcast to x (unidirectionally).
void Importer::op_rectifier(const std::string& op) {
  only_outputs(1);
  Expr x = float_in(0);
  if (op == "LeakyRelu") return set_out(0, nn::leaky_relu(x, getf("alpha", 0.01)));
  Expr neg = minimum(x, scalar(0.0));
  if (op == "PRelu") {
    Expr slope = in(1);
    const Shape &xs = x->type().shape, &ss = slope->type().shape;
    bool fits = ss.size() <= xs.size();
    for (size_t k = 0; fits && k < ss.size(); ++k) {
      int64_t s = ss[ss.size() - 1 - k], d = xs[xs.size() - 1 - k];
      fits = s == 1 || s == d;
    }
    // Before opset 7 (no numpy broadcasting) a slope of C values is per channel (axis 1).
    if (!fits && opset_ < 7 && ss.size() == 1 && xs.size() >= 2 && ss[0] == xs[1]) {
      Shape cs(xs.size() - 1, 1);
      cs[0] = ss[0];
      slope = reshape(slope, cs);
      fits = true;
    }
    if (!fits) fail("slope ", fmt_shape(ss), " does not broadcast to X ", fmt_shape(xs));
    return set_out(0, add(nn::relu(x), multiply(slope, neg)));
  }
  const double alpha = getf("alpha", op == "Elu" ? 1.0 : 1.67326319217681884765625);
  Expr y = add(nn::relu(x), multiply(scalar(alpha), subtract(exp(neg), scalar(1.0))));
  if (op == "Selu") y = multiply(scalar(getf("gamma", 1.05070102214813232421875)), y);
  set_out(0, y);
}

void Importer::op_pow() {
  only_outputs(1);
  set_out(0, power(float_in(0), float_in(1)));
}

// Max, Min, Sum and Mean of one or more inputs, broadcast together (numpy rules).
void Importer::op_variadic(const std::string& op) {
  only_outputs(1);
  check(n_->input_size() >= 1, "needs at least one input");
  Expr y = in(0);
  for (int k = 1; k < n_->input_size(); ++k) {
    Expr x = in(k);
    y = op == "Max" ? maximum(y, x) : op == "Min" ? minimum(y, x) : add(y, x);
  }
  if (op == "Mean" && n_->input_size() > 1)
    y = divide(y, scalar(static_cast<double>(n_->input_size())));
  set_out(0, y);
}

// LayerNormalization (opset 17): over the axes from `axis` on, Y = (X - mean) / sqrt(var + eps)
// * Scale (+ B), the variance the mean of squared deviations (biased), in float32 (stash_type 1);
// the optional outputs Mean and InvStdDev with the normalized axes kept as 1.
void Importer::op_layer_norm() {
  only_outputs(3);
  Expr x = float_in(0);
  const int64_t r = int64_t(x->type().shape.size());
  const int64_t axis = norm_axis(geti("axis", -1), r, "attribute 'axis'");
  const double eps = getf("epsilon", 1e-5);
  if (!(eps >= 0)) fail("attribute 'epsilon' = ", eps, " must be >= 0");
  if (geti("stash_type", 1) != 1)
    fail("attribute 'stash_type' = ", geti("stash_type", 1), " is not supported (only 1, float32)");
  Shape axes;
  for (int64_t a = axis; a < r; ++a) axes.push_back(a);
  Normalized n = normalize(x, axes, eps);
  Expr y = multiply(n.y, in(1));
  if (has_input(2)) y = add(y, in(2));
  set_out(0, y);
  set_out(1, n.mean);  // (set_out skips outputs the node does not have)
  set_out(2, n.inv_std);
}

Importer::Normalized Importer::normalize(const Expr& x, const Shape& axes, double eps) {
  Expr mu = mean(x, axes, true);
  Expr d = subtract(x, mu);
  Expr inv = divide(scalar(1.0), sqrt(add(mean(multiply(d, d), axes, true), scalar(eps))));
  return {multiply(d, inv), mu, inv};
}

// InstanceNormalization: per (batch, channel) over the spatial axes, (x - mean) / sqrt(var + eps)
// (biased variance) times scale[c] plus B[c].
void Importer::op_instance_norm() {
  only_outputs(1);
  Expr x = float_in(0);
  const Shape xs = x->type().shape;
  if (xs.size() < 3) fail("input ", fmt_shape(xs), " must have rank >= 3 (N, C, spatial...)");
  const double eps = getf("epsilon", 1e-5);
  if (!(eps >= 0)) fail("attribute 'epsilon' = ", eps, " must be >= 0");
  Shape axes, cshape(xs.size() - 1, 1);
  for (int64_t a = 2; a < int64_t(xs.size()); ++a) axes.push_back(a);
  cshape[0] = xs[1];
  for (int k : {1, 2})
    if (in(k)->type().shape != Shape{xs[1]})
      fail("input ", k, " ", fmt_shape(in(k)->type().shape), " must have the ", xs[1],
           " channels of X ", fmt_shape(xs));
  Expr y = normalize(x, axes, eps).y;
  set_out(0, add(multiply(y, reshape(in(1), cshape)), reshape(in(2), cshape)));
}

// Gelu (opset 20; approximate "none": x/2 (1 + erf(x / sqrt 2)), "tanh": x/2 (1 + tanh(sqrt(2/pi)
// (x + 0.044715 x^3)))), Mish (x tanh(log(1 + exp x))), Softsign (x / (1 + |x|)), Celu (alpha:
// max(0, x) + min(0, alpha (exp(x / alpha) - 1))).
void Importer::op_smooth(const std::string& op) {
  only_outputs(1);
  Expr x = float_in(0);
  Expr y;
  if (op == "Gelu") {
    std::string ap = gets("approximate", "none");
    Expr inner;
    if (ap == "none") {
      inner = erf(multiply(x, scalar(0.70710678118654752440)));
    } else if (ap == "tanh") {
      Expr cube = multiply(multiply(x, x), x);
      inner =
          tanh(multiply(scalar(0.79788456080286535588), add(x, multiply(scalar(0.044715), cube))));
    } else {
      fail("attribute 'approximate' = '", ap, "' is not supported (none or tanh)");
    }
    y = multiply(multiply(x, scalar(0.5)), add(inner, scalar(1.0)));
  } else if (op == "Mish") {
    y = multiply(x, tanh(log(add(exp(x), scalar(1.0)))));
  } else if (op == "Softsign") {
    y = divide(x, add(abs(x), scalar(1.0)));
  } else {
    const double alpha = getf("alpha", 1.0);
    if (alpha == 0) fail("attribute 'alpha' = 0 is not supported (it divides)");
    Expr e = multiply(scalar(alpha), subtract(exp(divide(x, scalar(alpha))), scalar(1.0)));
    y = add(nn::relu(x), minimum(e, scalar(0.0)));
  }
  set_out(0, y);
}

void Importer::op_pool(bool is_max) {
  only_outputs(1);
  Expr x = in(0);
  Shape xs = x->type().shape;
  if (xs.size() < 3 || xs.size() > 5)
    fail("only 1-D, 2-D and 3-D pooling (3-D to 5-D data) are supported, got ", fmt_shape(xs));
  auto ks = getints("kernel_shape");
  check(ks.has_value(), "attribute 'kernel_shape' is required");
  if (ks->size() != xs.size() - 2)
    fail("attribute 'kernel_shape' has ", ks->size(), " values; expected ", xs.size() - 2, " (",
         xs.size() - 2, "-D)");
  // 1-D: a 2-D pool over (N, C, 1, L), as a 1-D Conv
  lift1d_ = xs.size() == 3;
  if (lift1d_) {
    xs.insert(xs.begin() + 2, 1);
    x = reshape(x, xs);
    ks = Shape{1, (*ks)[0]};
  }
  spatial_rank_ = xs.size() - 2;
  positive(*ks, "kernel_shape");
  auto strides = spatial_ints("strides", 1), dil = spatial_ints("dilations", 1);
  positive(strides, "strides");
  if (dil != Shape(spatial_rank_, 1))
    fail("attribute 'dilations' ", fmt_shape(dil), " is not supported (only 1)");
  if (geti("storage_order", 0) != 0) fail("attribute 'storage_order' = 1 is not supported");
  int64_t ceil = geti("ceil_mode", 0), cip = geti("count_include_pad", 0);
  if (ceil != 0 && ceil != 1) fail("attribute 'ceil_mode' = ", ceil, " must be 0 or 1");
  if (cip != 0 && cip != 1) fail("attribute 'count_include_pad' = ", cip, " must be 0 or 1");
  const size_t n = spatial_rank_;
  Shape p = padding(Shape(xs.begin() + 2, xs.end()), *ks, strides, dil);
  for (size_t i = 0; i < n; ++i)
    if (p[i] >= (*ks)[i] || p[i + n] >= (*ks)[i])
      fail("pads ", fmt_shape(p), " must be smaller than kernel_shape ", fmt_shape(*ks));
  for (size_t i = 0; i < n; ++i)
    if (xs[2 + i] + p[i] + p[i + n] < (*ks)[i])
      fail("kernel_shape ", fmt_shape(*ks), " is larger than the padded input ", fmt_shape(xs));
  if (ceil) {
    // ONNX/PyTorch: ceil the output size but drop a window that starts in the end padding;
    // expressed as extra end padding with floor rounding.
    for (size_t i = 0; i < n; ++i) {
      int64_t padded = xs[2 + i] + p[i] + p[i + n];
      int64_t out = (padded - (*ks)[i] + strides[i] - 1) / strides[i] + 1;
      if ((out - 1) * strides[i] >= xs[2 + i] + p[i]) --out;
      int64_t extra = (out - 1) * strides[i] + (*ks)[i] - padded;
      if (extra > 0 && !is_max && cip)
        fail(
            "ceil_mode = 1 with count_include_pad = 1 and a partial last window is not "
            "supported");
      p[i + n] += std::max<int64_t>(extra, 0);
    }
  }
  if (n == 3) return set_out(0, pool3d_as_frames(x, *ks, strides, p, is_max, cip != 0));
  Pool2DAttrs a;
  a.pool_size = *ks;
  a.strides = strides;
  a.padding = p;
  a.count_include_pad = cip != 0;
  Expr y = is_max ? nn::max_pool2d(x, a) : nn::avg_pool2d(x, a);
  if (lift1d_) {
    const Shape ys = y->type().shape;
    y = reshape(y, {ys[0], ys[1], ys[3]});
  }
  set_out(0, y);
}

// 3-D pooling as 2-D pooling of frames: the window's kT frames (begin padding p[0], end
// padding p[3], stride st) reduced elementwise first, max or sum (max and sum commute with the
// spatial window), then one 2-D pool over (N, C x T', H, W). The average divides by the
// temporal count of the window: kT with count_include_pad, else the frames inside the input.
Expr Importer::pool3d_as_frames(Expr x, const Shape& k, const Shape& st, const Shape& p,
                                bool is_max, bool count_include_pad) {
  const Shape xs = x->type().shape;
  const int64_t t_in = xs[2], kt = k[0], tp = t_in + p[0] + p[3];
  const int64_t to = (tp - kt) / st[0] + 1;
  if (p[0] || p[3]) {
    const double fill = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
    x = nn::pad(x, {{0, 0}, {0, 0}, {p[0], p[3]}, {0, 0}, {0, 0}}, fill);
  }
  Expr acc;
  for (int64_t dt = 0; dt < kt; ++dt) {
    Expr f = strided_range(x, 2, dt, st[0], to);
    acc = !acc ? f : is_max ? maximum(acc, f) : add(acc, f);
  }
  Pool2DAttrs a;
  a.pool_size = {k[1], k[2]};
  a.strides = {st[1], st[2]};
  a.padding = {p[1], p[2], p[4], p[5]};
  a.count_include_pad = count_include_pad;
  Expr y = reshape(acc, {xs[0], xs[1] * to, xs[3], xs[4]});
  y = is_max ? nn::max_pool2d(y, a) : nn::avg_pool2d(y, a);
  const Shape ys = y->type().shape;
  y = reshape(y, {xs[0], xs[1], to, ys[2], ys[3]});
  if (is_max) return y;
  // 1 / (frames of the window counted), per output frame
  std::vector<float> inv(static_cast<size_t>(to));
  for (int64_t t = 0; t < to; ++t) {
    int64_t b = t * st[0] - p[0], e = b + kt;
    int64_t count = count_include_pad ? std::min(e, t_in + p[3]) - b
                                      : std::min(e, t_in) - std::max<int64_t>(b, 0);
    inv[static_cast<size_t>(t)] = 1.0f / static_cast<float>(count);
  }
  return multiply(y, constant(runtime::NDArray::from_vector(inv, {1, 1, to, 1, 1})));
}

void Importer::op_global_pool(bool is_max) {
  only_outputs(1);
  Expr x = in(0);
  const auto& xs = x->type().shape;
  if (xs.size() < 3) fail("data must have spatial axes (N, C, ...), got ", fmt_shape(xs));
  if (xs.size() != 4) {  // 1-D and 3-D: a reduction over the spatial axes, kept
    std::vector<int64_t> axes;
    for (size_t d = 2; d < xs.size(); ++d) axes.push_back(static_cast<int64_t>(d));
    return set_out(0, is_max ? reduce("max", x, axes, true, false) : mean(x, axes, true, false));
  }
  if (!is_max) return set_out(0, nn::global_avg_pool2d(x));
  Pool2DAttrs a;
  a.pool_size = {xs[2], xs[3]};
  set_out(0, nn::max_pool2d(x, a));
}

void Importer::op_gemm() {
  only_outputs(1);
  Expr a = in(0), b = in(1);
  int64_t ta = geti("transA", 0), tb = geti("transB", 0);
  if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1))
    fail("attributes 'transA'/'transB' must be 0 or 1");
  double alpha = getf("alpha", 1.0), beta = getf("beta", 1.0);
  if (!std::isfinite(alpha) || !std::isfinite(beta)) fail("alpha and beta must be finite");
  if (a->type().shape.size() != 2 || b->type().shape.size() != 2)
    fail("A ", fmt_shape(a->type().shape), " and B ", fmt_shape(b->type().shape), " must be 2-D");
  if (ta) a = transpose(a, {1, 0});
  if (!tb) b = transpose(b, {1, 0});
  Expr y = nn::dense(a, b);
  if (alpha != 1.0) y = multiply(y, scalar(alpha));
  if (has_input(2) && beta != 0.0) {
    Expr c = in(2);
    if (beta != 1.0) c = multiply(c, scalar(beta));
    y = add(y, c);
  }
  set_out(0, y);
}

void Importer::op_matmul() {
  only_outputs(1);
  Expr a = in(0), b = in(1);
  Shape as = a->type().shape, bs = b->type().shape;
  if (bs.size() >= 3) return op_batch_matmul(a, b);
  if (bs.size() != 2) fail("only a B of rank 2 or more is supported, got ", fmt_shape(bs));
  if (as.empty()) fail("A must have rank >= 1");
  if (as.back() != bs[0]) fail("A ", fmt_shape(as), " and B ", fmt_shape(bs), " do not multiply");
  Expr a2 = as.size() == 2 ? a : reshape(a, {-1, as.back()});
  Expr y = nn::dense(a2, transpose(b, {1, 0}));
  if (as.size() != 2) {
    Shape o = as;
    o.back() = bs[1];
    y = reshape(y, o);
  }
  set_out(0, y);
}

// MatMul with a B of rank 3 or more (numpy's matmul: batches of matrices; attention's Q K^T and
// its weighted sum): the batch dimensions, broadcast where one side has 1 or fewer of them, are
// flattened into nn.batch_matmul's batch; B is transposed to its (batch, N, K) form.
void Importer::op_batch_matmul(Expr a, Expr b) {
  const Shape as = a->type().shape, bs = b->type().shape;
  if (as.size() < 2) fail("A ", fmt_shape(as), " must have rank >= 2 when B has rank 3 or more");
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K)
    fail("A ", fmt_shape(as), " and B ", fmt_shape(bs), " do not multiply");
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  const size_t r = std::max(ab.size(), bb.size());
  ab.insert(ab.begin(), r - ab.size(), 1);
  bb.insert(bb.begin(), r - bb.size(), 1);
  int64_t na = 1, nb = 1;
  for (size_t i = 0; i < r; ++i) {
    na *= ab[i];
    nb *= bb[i];
  }
  // One side's batch dims all 1 broadcasts (nn.batch_matmul's batch of 1); otherwise they agree.
  if (na != 1 && nb != 1 && ab != bb)
    fail("the batch dimensions of A ", fmt_shape(as), " and B ", fmt_shape(bs),
         " differ (only equal batches, or one side's all 1, are supported)");
  if (na == 0 || nb == 0 || M == 0 || K == 0 || N == 0)
    fail("A ", fmt_shape(as), " or B ", fmt_shape(bs),
         " has a zero-size dimension (not supported)");
  Shape out = na != 1 ? ab : bb;
  Expr y = nn::batch_matmul(reshape(a, {na, M, K}), transpose(reshape(b, {nb, K, N}), {0, 2, 1}));
  out.push_back(M);
  out.push_back(N);
  set_out(0, reshape(y, out));
}

void Importer::op_split() {
  Expr x = in(0);
  Shape s = x->type().shape;
  int64_t ax = norm_axis(geti("axis", 0), int64_t(s.size()), "axis");
  Shape sizes;
  if (auto v = getints("split"))
    sizes = *v;
  else if (opset_ >= 13 && has_input(1))
    sizes = cints(1, "split");
  int64_t nout = n_->output_size();
  if (has("num_outputs")) {
    int64_t no = geti("num_outputs", 0);
    if (no != nout) fail("attribute 'num_outputs' = ", no, " but the node has ", nout, " outputs");
  }
  if (sizes.empty()) {
    // ceil-sized parts, the last one smaller (opset 18); equal parts when they divide
    int64_t part = (s[ax] + nout - 1) / nout;
    for (int64_t k = 0; k < nout; ++k) sizes.push_back(std::min(part, s[ax] - k * part));
  }
  if (int64_t(sizes.size()) != nout)
    fail("split has ", sizes.size(), " sizes for ", nout, " outputs");
  int64_t total = 0;
  Shape idx;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] < 0) fail("split size ", sizes[k], " is negative");
    total += sizes[k];
    if (k + 1 < sizes.size()) idx.push_back(total);
  }
  if (total != s[ax]) fail("split sizes add up to ", total, ", axis ", ax, " has ", s[ax]);
  Expr t = split_at(x, idx, int(ax));
  for (int64_t k = 0; k < nout; ++k) set_out(int(k), tuple_get_item(t, int(k)));
}

// Softmax, and LogSoftmax as (x - max) - log(sum(exp(x - max))) over the axis (no log of a
// softmax that underflowed to 0).
void Importer::op_softmax(bool log) {
  only_outputs(1);
  Expr x = log ? float_in(0) : in(0);
  Shape s = x->type().shape;
  int64_t r = int64_t(s.size());
  int64_t ax = norm_axis(geti("axis", opset_ >= 13 ? -1 : 1), r, "axis");
  auto softmax = [&](Expr v, int64_t axis) {
    if (!log) return nn::softmax(v, int(axis));
    Expr shifted = subtract(v, reduce("max", v, {axis}, true));
    return subtract(shifted, relay::log(reduce("sum", exp(shifted), {axis}, true)));
  };
  if (opset_ >= 13 || ax == r - 1) return set_out(0, softmax(x, ax));
  // opset < 13: over the flattened dims [axis, rank)
  int64_t p = 1, q = 1;
  for (int64_t k = 0; k < r; ++k) (k < ax ? p : q) *= s[k];
  set_out(0, reshape(softmax(reshape(x, {p, q}), 1), s));
}

// Tile (opset 6+): a constant repeats input, one count per axis.
void Importer::op_tile() {
  only_outputs(1);
  if (opset_ < 6) fail("opset ", opset_, " Tile (tiles and axis inputs) is not supported");
  Expr x = in(0);
  Shape reps = cints(1, "repeats");
  if (reps.size() != x->type().shape.size())
    fail("repeats has ", reps.size(), " values for input ", fmt_shape(x->type().shape));
  for (auto v : reps)
    if (v < 0) fail("repeats has a negative value ", v);
  set_out(0, tile(x, reps));
}

// ReduceSum (axes an input from opset 13), ReduceMean/Max/Min/Prod/L1/L2/SumSquare/LogSum/
// LogSumExp (axes an input from opset 18) as relay's mean/sum/max/min/prod of x, |x| or x*x, with
// sqrt or log after; LogSumExp subtracts the max first (no overflow for large inputs, as ONNX's
// reference). (ReduceMean takes any input type, as it did before the others were mapped.)
void Importer::op_reduce(const std::string& op) {
  only_outputs(1);
  Expr x = op == "ReduceMean" ? in(0) : float_in(0);
  int64_t r = int64_t(x->type().shape.size());
  const bool axes_input = op == "ReduceSum" ? opset_ >= 13 : opset_ >= 18;
  if (axes_input && has("axes")) fail("attribute 'axes' is not allowed (an input from this opset)");
  Shape axes = axes_input ? (has_input(1) ? cints(1, "axes") : Shape{})
                          : (getints("axes") ? *getints("axes") : Shape{});
  int64_t keep = geti("keepdims", 1);
  if (keep != 0 && keep != 1) fail("attribute 'keepdims' = ", keep, " must be 0 or 1");
  if (axes.empty() && geti("noop_with_empty_axes", 0)) return set_out(0, x);
  for (auto& a : axes) a = norm_axis(a, r, "axis");
  const bool k = keep != 0;
  Expr y;
  if (op == "ReduceMean") y = mean(x, axes, k);
  if (op == "ReduceSum") y = reduce("sum", x, axes, k);
  if (op == "ReduceMax") y = reduce("max", x, axes, k);
  if (op == "ReduceMin") y = reduce("min", x, axes, k);
  if (op == "ReduceProd") y = reduce("prod", x, axes, k);
  if (op == "ReduceL1") y = reduce("sum", abs(x), axes, k);
  if (op == "ReduceL2") y = sqrt(reduce("sum", multiply(x, x), axes, k));
  if (op == "ReduceSumSquare") y = reduce("sum", multiply(x, x), axes, k);
  if (op == "ReduceLogSum") y = log(reduce("sum", x, axes, k));
  if (op == "ReduceLogSumExp") {
    Expr m = reduce("max", x, axes, true);
    Expr s = log(reduce("sum", exp(subtract(x, m)), axes, true));
    y = add(s, m);
    if (!k) {  // drop the reduced axes (all of them when none are given)
      Shape keep_shape;
      const Shape& xs = x->type().shape;
      for (int64_t d = 0; d < r; ++d)
        if (!axes.empty() && std::find(axes.begin(), axes.end(), d) == axes.end())
          keep_shape.push_back(xs[d]);
      y = reshape(y, keep_shape);
    }
  }
  if (!y) fail("op ", op, " is not supported");
  set_out(0, y);
}

void Importer::op_pad() {
  only_outputs(1);
  Expr x = in(0);
  Shape s = x->type().shape;
  int64_t r = int64_t(s.size());
  std::string mode = gets("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    fail("attribute 'mode' = '", mode, "' is not supported (constant, edge, reflect)");
  Shape pads;
  double value = 0;
  if (opset_ < 11) {
    auto p = getints("pads");
    check(p.has_value(), "attribute 'pads' is required (opset < 11)");
    pads = *p;
    value = getf("value", 0.0);
  } else {
    pads = cints(1, "pads");
    if (has_input(2)) value = cscalar(2, "constant_value");
  }
  Shape axes;
  if (has_input(3))
    axes = cints(3, "axes");
  else
    for (int64_t k = 0; k < r; ++k) axes.push_back(k);
  if (pads.size() != 2 * axes.size())
    fail("pads has ", pads.size(), " values for ", axes.size(), " axes");
  std::vector<std::pair<int64_t, int64_t> > pw(r, {0, 0});
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t ax = norm_axis(axes[k], r, "axis");
    int64_t b = pads[k], e = pads[k + axes.size()];
    if (b < 0 || e < 0) fail("negative pads (cropping) are not supported: ", b, ", ", e);
    if (mode == "reflect" && (b >= s[ax] || e >= s[ax]))
      fail("reflect pads ", b, ", ", e, " of axis ", ax, " must be less than its extent ", s[ax]);
    if (mode == "edge" && (b > 0 || e > 0) && s[ax] == 0)
      fail("edge padding of the empty axis ", ax, " has no element to repeat");
    pw[ax] = {b, e};
  }
  set_out(0, nn::pad(x, pw, value, mode));
}

void Importer::op_lrn() {
  only_outputs(1);
  Expr x = in(0);
  if (x->type().shape.size() < 2)
    fail("data must have rank >= 2 (N, C, ...), got ", fmt_shape(x->type().shape));
  check(has("size"), "attribute 'size' is required");
  int64_t size = geti("size", 0);
  if (size < 1) fail("attribute 'size' = ", size, " must be >= 1");
  double alpha = getf("alpha", 1e-4), beta = getf("beta", 0.75), bias = getf("bias", 1.0);
  if (!std::isfinite(alpha) || !std::isfinite(beta) || !std::isfinite(bias))
    fail("alpha, beta and bias must be finite");
  set_out(0, nn::lrn(x, size, 1, bias, alpha, beta));
}

// Resize (opset 10+) and Upsample (opset 7 and 9) of the H and W axes of an NCHW tensor. Output
// sizes come from constant `scales` (floor(in * scale), and the scale itself drives the coordinate
// transform) or `sizes` (scale = out / in, or one scale for all resized axes under
// keep_aspect_ratio_policy). Opset-10 Resize and Upsample use ONNX Runtime's rules of those
// versions: asymmetric coordinates, nearest rounding down when upsampling and up when downsampling.
void Importer::op_resize(bool upsample) {
  only_outputs(1);
  Expr x = float_in(0);
  const Shape is = x->type().shape;
  const int64_t r = int64_t(is.size());
  if (r != 4) fail("input ", fmt_shape(is), " of rank ", r, " is not supported (4-D NCHW only)");
  Resize2DAttrs ra;
  std::string mode = gets("mode", "nearest");
  if (mode == "nearest")
    ra.method = "nearest_neighbor";
  else if (mode == "linear" || (upsample && mode == "bilinear"))
    ra.method = "linear";
  else if (mode == "cubic" && !upsample)
    ra.method = "cubic";
  else
    fail("attribute 'mode' = '", mode, "' is not supported");
  const bool legacy = upsample || opset_ < 11;
  std::vector<double> scales;  // per axis, empty when sizes are given
  Shape sizes;
  auto const_scales = [&](int k) {
    const Const& c = cin(k, "scales");
    if (c.is_int) fail("scales (input ", k, ") must be a float tensor");
    for (int64_t i = 0; i < c.numel(); ++i) scales.push_back(c.at(i));
  };
  Shape axes;
  if (legacy) {
    ra.coordinate_transformation_mode = "asymmetric";
    ra.rounding_method = "simple";
    if (upsample && opset_ < 9) {
      auto* a = attr("scales", ::onnx::AttributeProto_AttributeType_FLOATS);
      check(a != nullptr, "attribute 'scales' is required (Upsample, opset < 9)");
      for (float v : a->floats()) scales.push_back(v);
    } else {
      check(!has("scales"), "attribute 'scales' is not an attribute at opset >= 9 (an input)");
      const_scales(1);
    }
  } else {
    std::string ctm = gets("coordinate_transformation_mode", "half_pixel");
    if (ctm == "tf_crop_and_resize")
      fail("coordinate_transformation_mode 'tf_crop_and_resize' is not supported");
    ra.coordinate_transformation_mode = ctm;
    ra.rounding_method = gets("nearest_mode", "round_prefer_floor");
    ra.cubic_alpha = getf("cubic_coeff_a", -0.75);
    int64_t excl = geti("exclude_outside", 0);
    if (excl != 0 && excl != 1) fail("attribute 'exclude_outside' = ", excl, " must be 0 or 1");
    ra.cubic_exclude = excl == 1;
    if (geti("antialias", 0) != 0) fail("attribute 'antialias' = 1 is not supported");
    auto nonempty = [&](int k) {
      return has_input(k) && cin(k, k == 2 ? "scales" : "sizes").numel() > 0;
    };
    bool has_scales = nonempty(2), has_sizes = nonempty(3);
    if (has_scales == has_sizes)
      fail("exactly one of 'scales' (input 2) and 'sizes' (input 3) must be given");
    if (has_scales)
      const_scales(2);
    else
      sizes = cints(3, "sizes");
  }
  if (auto ax = getints("axes")) {
    for (int64_t a : *ax) axes.push_back(norm_axis(a, r, "axes"));
    for (size_t i = 0; i < axes.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (axes[i] == axes[j]) fail("attribute 'axes' repeats axis ", axes[i]);
  } else {
    for (int64_t k = 0; k < r; ++k) axes.push_back(k);
  }
  size_t given = scales.empty() ? sizes.size() : scales.size();
  if (given != axes.size())
    fail(scales.empty() ? "sizes" : "scales", " has ", given, " values for ", axes.size(), " axes");
  // Per axis of the input: the output extent and the coordinate scale.
  std::vector<double> sc(r, 1.0);
  Shape os = is;
  if (!scales.empty()) {
    for (size_t k = 0; k < axes.size(); ++k) {
      double v = scales[k];
      if (!std::isfinite(v) || v <= 0)
        fail("scale ", v, " for axis ", axes[k], " must be positive");
      sc[axes[k]] = v;
      double o = std::floor(double(is[axes[k]]) * v);
      if (o < 1 || o > double(int64_t(1) << 31))
        fail("scale ", v, " gives axis ", axes[k], " of ", is[axes[k]], " an output extent of ", o);
      os[axes[k]] = int64_t(o);
    }
  } else {
    std::string policy = gets("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      fail("attribute 'keep_aspect_ratio_policy' = '", policy, "' is not supported");
    for (size_t k = 0; k < axes.size(); ++k)
      if (sizes[k] < 1 || sizes[k] > (int64_t(1) << 31))
        fail("sizes has ", sizes[k], " for axis ", axes[k], " (must be positive)");
    if (policy == "stretch") {
      for (size_t k = 0; k < axes.size(); ++k) {
        os[axes[k]] = sizes[k];
        sc[axes[k]] = sizes[k] == is[axes[k]] ? 1.0 : 0.0;  // 0: out / in
      }
    } else {
      double s = policy == "not_larger" ? INFINITY : 0.0;
      for (size_t k = 0; k < axes.size(); ++k) {
        double v = double(sizes[k]) / double(is[axes[k]]);
        s = policy == "not_larger" ? std::min(s, v) : std::max(s, v);
      }
      for (int64_t a : axes) {
        sc[a] = s;
        os[a] = std::max<int64_t>(1, int64_t(std::nearbyint(s * double(is[a]))));
      }
    }
  }
  for (int k = 0; k < 2; ++k)
    if (os[k] != is[k] || (sc[k] != 1.0 && sc[k] != 0.0))
      fail("resizing axis ", k, " (", k == 0 ? "batch" : "channels",
           ") is not supported; only H and W of NCHW");
  if (os == is && sc[2] == 1.0 && sc[3] == 1.0 &&
      ra.coordinate_transformation_mode != "tf_half_pixel_for_nn")
    return set_out(0, x);  // identity
  ra.size = {os[2], os[3]};
  ra.scale = {sc[2], sc[3]};
  set_out(0, image::resize2d(x, ra));
}

// Einsum: each operand's subscripts parsed (an ellipsis becomes fresh labels for the dims it
// covers); labels summed over in one operand only are reduced first, then the operands are
// contracted left to right with batch_matmul (batch = labels shared and still needed, contracted
// = labels shared and needed nowhere else) and the result is transposed to the output's order.
void Importer::op_einsum() {
  only_outputs(1);
  auto* eq_attr = attr("equation", ::onnx::AttributeProto_AttributeType_STRING);
  if (!eq_attr) fail("attribute 'equation' is required");
  std::string eq;
  for (char c : eq_attr->s())
    if (c != ' ') eq += c;
  const int n_in = num_inputs();
  if (n_in < 1) fail("needs at least one input");
  std::string lhs = eq, rhs;
  bool explicit_out = false;
  if (auto p = eq.find("->"); p != std::string::npos) {
    lhs = eq.substr(0, p);
    rhs = eq.substr(p + 2);
    explicit_out = true;
  }
  std::vector<std::string> subs;
  for (size_t b = 0;;) {
    size_t e = lhs.find(',', b);
    subs.push_back(lhs.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  if (int(subs.size()) != n_in)
    fail("equation '", eq_attr->s(), "' names ", subs.size(), " operands, the node has ", n_in);
  // Labels are chars; an ellipsis expands to chars from 0x01 up (the same dims in every operand,
  // aligned from the right).
  std::vector<Expr> xs;
  std::vector<std::string> labels;
  size_t ell_rank = 0;
  auto is_label = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  for (int k = 0; k < n_in; ++k) {
    xs.push_back(float_in(k));
    const size_t rank = xs[k]->type().shape.size();
    std::string t = subs[k];
    size_t dots = t.find("...");
    size_t named = t.size() - (dots == std::string::npos ? 0 : 3);
    for (size_t j = 0; j < t.size(); ++j)
      if (!(is_label(t[j]) || (dots != std::string::npos && j >= dots && j < dots + 3)))
        fail("operand ", k, "'s subscripts '", t, "' have an invalid character '", t[j], "'");
    if (dots != std::string::npos) {
      if (rank < named)
        fail("operand ", k, " has rank ", rank, ", fewer than its subscripts '", t, "'");
      size_t er = rank - named;
      ell_rank = std::max(ell_rank, er);
      std::string fresh;
      for (size_t j = 0; j < er; ++j) fresh += char(1 + (ell_rank - er) + j);
      t = t.substr(0, dots) + fresh + t.substr(dots + 3);
    } else if (rank != named) {
      fail("operand ", k, " has rank ", rank, ", its subscripts '", t, "' name ", named, " dims");
    }
    for (size_t a = 0; a < t.size(); ++a)
      for (size_t b = a + 1; b < t.size(); ++b)
        if (t[a] == t[b])
          fail("operand ", k, " repeats label '", t[a], "' (diagonals are not supported)");
    labels.push_back(t);
  }
  std::string out;
  std::string ell;
  for (size_t j = 0; j < ell_rank; ++j) ell += char(1 + j);
  if (explicit_out) {
    size_t dots = rhs.find("...");
    if (dots != std::string::npos)
      rhs = rhs.substr(0, dots) + ell + rhs.substr(dots + 3);
    else if (ell_rank > 0)
      fail("the output subscripts '", rhs, "' drop the ellipsis");
    out = rhs;
    for (char c : out)
      if (!is_label(c) && c >= 32)
        fail("the output subscripts have an invalid character '", c, "'");
  } else {  // implicit: the ellipsis, then the labels used once, in alphabetical order
    std::map<char, int> count;
    for (auto& t : labels)
      for (char c : t)
        if (c >= 32) ++count[c];
    out = ell;
    for (auto& [c, n] : count)
      if (n == 1) out += c;
  }
  // Every label's size, which agrees across operands.
  std::map<char, int64_t> size;
  for (int k = 0; k < n_in; ++k) {
    const Shape& sh = xs[k]->type().shape;
    for (size_t j = 0; j < labels[k].size(); ++j) {
      auto [it, fresh] = size.emplace(labels[k][j], sh[j]);
      if (!fresh && it->second != sh[j])
        fail("label '", labels[k][j], "' has size ", it->second, " and ", sh[j],
             " (broadcasting is not supported)");
    }
  }
  for (size_t a = 0; a < out.size(); ++a) {
    if (!size.count(out[a])) fail("output label '", out[a], "' is in no operand");
    for (size_t b = a + 1; b < out.size(); ++b)
      if (out[a] == out[b]) fail("output repeats label '", out[a], "'");
  }
  auto needed_after = [&](char c, int k) {  // in the output or an operand after k
    if (out.find(c) != std::string::npos) return true;
    for (int j = k + 1; j < n_in; ++j)
      if (labels[j].find(c) != std::string::npos) return true;
    return false;
  };
  // Sums over labels only operand k has and nobody needs.
  auto reduce_private = [&](Expr x, std::string& t, int k) {
    Shape axes;
    std::string kept;
    for (size_t j = 0; j < t.size(); ++j) {
      bool elsewhere = needed_after(t[j], k);
      for (int i = 0; i < k && !elsewhere; ++i)
        elsewhere = labels[i].find(t[j]) != std::string::npos;
      if (elsewhere)
        kept += t[j];
      else
        axes.push_back(int64_t(j));
    }
    t = kept;
    return axes.empty() ? x : reduce("sum", x, axes);
  };
  auto permute = [&](Expr x, const std::string& from, const std::string& to) {
    Shape perm;
    for (char c : to) perm.push_back(int64_t(from.find(c)));
    bool id = true;
    for (size_t j = 0; j < perm.size(); ++j) id = id && perm[j] == int64_t(j);
    return id ? x : transpose(x, perm);
  };
  auto prod = [&](const std::string& t) {
    int64_t p = 1;
    for (char c : t) p *= size[c];
    return p;
  };
  std::string acc_l = labels[0];
  Expr acc = reduce_private(xs[0], acc_l, 0);
  for (int k = 1; k < n_in; ++k) {
    std::string bl = labels[k];
    Expr b = reduce_private(xs[k], bl, k);
    std::string batch, contract, fa, fb;
    for (char c : acc_l) {
      bool shared = bl.find(c) != std::string::npos;
      if (!shared)
        fa += c;
      else if (needed_after(c, k))
        batch += c;
      else
        contract += c;
    }
    for (char c : bl)
      if (acc_l.find(c) == std::string::npos) fb += c;
    Expr a3 = reshape(permute(acc, acc_l, batch + fa + contract),
                      {prod(batch), prod(fa), prod(contract)});
    Expr b3 =
        reshape(permute(b, bl, batch + fb + contract), {prod(batch), prod(fb), prod(contract)});
    acc_l = batch + fa + fb;
    Shape dims;
    for (char c : acc_l) dims.push_back(size[c]);
    acc = reshape(nn::batch_matmul(a3, b3), dims);
  }
  set_out(0, permute(acc, acc_l, out));
}

}  // namespace minitvm::relay::frontend::onnx_detail

#endif  // MINITVM_HAVE_ONNX
