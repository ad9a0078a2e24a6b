// te computes of the graph operators (relay::build).
#include "relay/lower_ops.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "minitvm/support/error.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/nn.h"
#include "relay/attr_util.h"
#include "relay/layout.h"
#include "topi/nn/common.h"
#include "topi/schedule_util.h"

namespace minitvm::relay::detail {

namespace {

using Expr = minitvm::ir::Expr;  // te expressions here; graph nodes are ExprNode
using te::Tensor;
using topi::nn::detail::as_exprs;
using topi::nn::detail::ax_names;
using topi::nn::detail::I;
using topi::nn::detail::named_compute;
using Shape = std::vector<int64_t>;

std::vector<int64_t> ints(const Json& j) {
  return attr_ints(j);
}

Tensor elemwise(const Tensor& x, const std::string& name, const std::function<Expr(Expr)>& f) {
  auto s = topi::nn::const_shape(x);
  return named_compute(
      s, ax_names(s.size()), [&](const std::vector<Var>& v) { return f(x.read(as_exprs(v))); },
      name, "elemwise");
}

// An injective op that copies: output element v is `x` at index idx(v) (transpose, reverse, tile,
// edge / reflect padding).
Tensor index_map(const Tensor& x, const Shape& os, const std::string& name,
                 const std::function<std::vector<Expr>(const std::vector<Var>&)>& idx) {
  return named_compute(
      os, ax_names(os.size()), [&](const std::vector<Var>& v) { return x.read(idx(v)); }, name,
      "injective");
}

// Read `t` at the output index `v` broadcast numpy-style (leading axes dropped, unit axes fixed at
// 0).
Expr bcast_read(const Tensor& t, const std::vector<Var>& v) {
  auto s = topi::nn::const_shape(t);
  size_t off = v.size() - s.size();
  std::vector<Expr> idx;
  for (size_t i = 0; i < s.size(); ++i) idx.push_back(s[i] == 1 ? Expr(0) : Expr(v[off + i]));
  return t.read(idx);
}

Tensor binary(const ExprNode& c, const Tensor& a, const Tensor& b,
              const std::function<Expr(Expr, Expr)>& f) {
  const Shape& os = c.types[0].shape;
  bool same = topi::nn::const_shape(a) == os && topi::nn::const_shape(b) == os;
  return named_compute(
      os, ax_names(os.size()),
      [&](const std::vector<Var>& v) { return f(bcast_read(a, v), bcast_read(b, v)); },
      "T_" + c.name, same ? "elemwise" : "broadcast");
}

// Row-major flat index of `idx` in `shape`, and its inverse.
Expr flat_index(const std::vector<Expr>& idx, const Shape& shape) {
  Expr f = Expr(0);
  for (size_t i = 0; i < shape.size(); ++i) f = f * I(shape[i]) + idx[i];
  return f;
}
std::vector<Expr> unflatten(Expr flat, const Shape& shape) {
  std::vector<Expr> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = i == 0 ? flat : ir::floormod(flat, I(shape[i]));
    flat = ir::floordiv(flat, I(shape[i]));
  }
  return idx;
}

Tensor reshape_like(const ExprNode& c, const Tensor& x) {
  const Shape& os = c.types[0].shape;
  Shape is = topi::nn::const_shape(x);
  return named_compute(
      os, ax_names(os.size()),
      [&](const std::vector<Var>& v) { return x.read(unflatten(flat_index(as_exprs(v), os), is)); },
      "T_" + c.name, "injective");
}

// Pools over axes 2 and 3 of NCHW or NCHW[x]c data (the block axis, when there, is a data axis).
Tensor pool2d(const ExprNode& c, const Tensor& x, bool is_max) {
  auto k = ints(c.attrs.at("pool_size")), st = ints(c.attrs.at("strides")),
       pad = ints(c.attrs.at("padding"));
  Shape is = topi::nn::const_shape(x);
  const Shape& os = c.types[0].shape;
  DataType dt = x.dtype();
  // TVM topi: ceil_mode pads the bottom/right by stride - 1 more; padded taps are skipped (max) or
  // count as zero (avg).
  Shape pad_after{pad[2], pad[3]};
  for (int i = 0; i < 2; ++i) {
    int64_t need = (os[2 + i] - 1) * st[i] + k[i] - is[2 + i] - pad[i];
    pad_after[i] = std::max<int64_t>(need, 0);
  }
  Shape before(is.size(), 0), after(is.size(), 0);
  before[2] = pad[0];
  before[3] = pad[1];
  after[2] = pad_after[0];
  after[3] = pad_after[1];
  Tensor padded = topi::nn::pad(
      x, before, after, is_max ? -std::numeric_limits<double>::infinity() : 0.0, "pad_temp");
  IterVar ry = te::reduce_axis({0, I(k[0])}, "rv0"), rx = te::reduce_axis({0, I(k[1])}, "rv1");
  auto window = [&](const std::vector<Var>& v) {
    std::vector<Expr> idx = as_exprs(v);
    idx[2] = v[2] * I(st[0]) + ry->var;
    idx[3] = v[3] * I(st[1]) + rx->var;
    return padded.read(idx);
  };
  if (is_max)
    return named_compute(
        os, ax_names(os.size()),
        [&](const std::vector<Var>& v) {
          return te::max(window(v), {ry, rx});
        },
        "tensor", "pool_max");
  Tensor sum = named_compute(
      os, ax_names(os.size()),
      [&](const std::vector<Var>& v) {
        return te::sum(window(v), {ry, rx});
      },
      "tensor", "pool_sum");
  bool include_pad = c.attrs.at("count_include_pad").get<bool>();
  return named_compute(
      os, ax_names(os.size()),
      [&](const std::vector<Var>& v) -> Expr {
        if (include_pad)
          return sum.read(as_exprs(v)) / ir::make_const(dt, static_cast<double>(k[0] * k[1]));
        Expr h0 = v[2] * I(st[0]) - I(pad[0]), w0 = v[3] * I(st[1]) - I(pad[1]);
        Expr h1 = ir::min(h0 + I(k[0]), I(is[2])), w1 = ir::min(w0 + I(k[1]), I(is[3]));
        Expr cnt = ir::max((h1 - ir::max(h0, Expr(0))) * (w1 - ir::max(w0, Expr(0))), Expr(1));
        return sum.read(as_exprs(v)) / ir::cast(dt, cnt);
      },
      "tensor", "elemwise");
}

// relay's mean, sum, max, min and prod over the call's axes.
Tensor reduce(const ExprNode& c, const Tensor& x) {
  const std::string& op = c.name;
  Shape is = topi::nn::const_shape(x);
  std::vector<bool> red(is.size(), c.attrs.at("axis").is_null());
  for (int64_t v : ints(c.attrs.at("axis"))) red[v] = true;
  if (c.attrs.at("exclude").get<bool>())
    for (size_t i = 0; i < red.size(); ++i) red[i] = !red[i];
  bool keep = c.attrs.at("keepdims").get<bool>();
  const Shape& os = c.types[0].shape;
  std::vector<IterVar> raxes;
  int64_t count = 1;
  for (size_t i = 0; i < is.size(); ++i)
    if (red[i]) {
      raxes.push_back(te::reduce_axis({0, I(is[i])}, "k" + std::to_string(i)));
      count *= is[i];
    }
  Tensor sum = named_compute(
      os, ax_names(os.size()),
      [&](const std::vector<Var>& v) {
        std::vector<Expr> idx;
        size_t o = 0, r = 0;
        for (size_t i = 0; i < is.size(); ++i) {
          if (red[i]) {
            idx.push_back(raxes[r++]->var);
            if (keep) o++;
          } else {
            idx.push_back(v[o++]);
          }
        }
        Expr e = x.read(idx);
        return op == "max"    ? te::max(e, raxes)
               : op == "min"  ? te::min(e, raxes)
               : op == "prod" ? te::prod(e, raxes)
                              : te::sum(e, raxes);
      },
      "T_" + (op == "mean" ? std::string("sum") : op), "comm_reduce");
  if (op != "mean") return sum;
  return elemwise(sum, "T_divide", [&](Expr e) {
    return e / ir::make_const(x.dtype(), static_cast<double>(count));
  });
}

}  // namespace

Tensor lower_reduce_last_axis(const ExprNode& c, const Tensor& x, int64_t lanes) {
  const std::string& op = c.name;
  if (op != "sum" && op != "mean" && op != "max" && op != "min") return Tensor();
  const Shape is = topi::nn::const_shape(x);
  const Json& ax = c.attrs.at("axis");
  if (is.empty() || ax.is_null() || c.attrs.at("exclude").get<bool>()) return Tensor();
  const std::vector<int64_t> axes = ints(ax);
  const int64_t last = static_cast<int64_t>(is.size()) - 1;
  if (axes.size() != 1 || (axes[0] != last && axes[0] != -1)) return Tensor();
  const bool keep = c.attrs.at("keepdims").get<bool>();
  Tensor r = topi::nn::reduce_last_axis(x, op == "mean" ? "sum" : op, lanes, keep,
                                        "T_" + (op == "mean" ? std::string("sum") : op));
  if (op != "mean") return r;
  return elemwise(r, "T_divide", [&](Expr e) {
    return e / ir::make_const(x.dtype(), static_cast<double>(is.back()));
  });
}

namespace {

Tensor softmax(const ExprNode& c, const Tensor& x) {
  Shape s = topi::nn::const_shape(x);
  int64_t axis = c.attrs.at("axis").get<int64_t>();
  Shape rs = s;
  rs.erase(rs.begin() + axis);
  auto with_k = [&](const std::vector<Var>& v, Expr k) {
    std::vector<Expr> idx(v.begin(), v.end());
    idx.insert(idx.begin() + axis, k);
    return idx;
  };
  IterVar k1 = te::reduce_axis({0, I(s[axis])}, "k1"), k2 = te::reduce_axis({0, I(s[axis])}, "k2");
  Tensor mx = named_compute(
      rs, ax_names(rs.size()),
      [&](const std::vector<Var>& v) { return te::max(x.read(with_k(v, k1->var)), {k1}); },
      "T_softmax_maxelem", "softmax");
  auto drop = [&](const std::vector<Var>& v) {
    std::vector<Expr> r;
    for (size_t i = 0; i < v.size(); ++i)
      if (static_cast<int64_t>(i) != axis) r.push_back(v[i]);
    return r;
  };
  // exp(x - max) as its own stage (tag elemwise: schedules that inline injective stages compute
  // it twice, in the sum and the output, as before; the CPU's softmax schedule computes it once
  // per row, in vectors).
  Tensor e = named_compute(
      s, ax_names(s.size()),
      [&](const std::vector<Var>& v) { return ir::exp(x.read(as_exprs(v)) - mx.read(drop(v))); },
      "T_softmax_exp", "elemwise");
  Tensor ex = named_compute(
      rs, ax_names(rs.size()),
      [&](const std::vector<Var>& v) { return te::sum(e.read(with_k(v, k2->var)), {k2}); },
      "T_softmax_expsum", "softmax");
  return named_compute(
      s, ax_names(s.size()),
      [&](const std::vector<Var>& v) {
        auto r = drop(v);
        return e.read(as_exprs(v)) / ex.read(r);
      },
      "T_softmax_norm", "softmax");
}

// nn.lrn: the squares summed over the channel window (zero padding outside), then the
// normalization; the window is ONNX's [c - floor((size-1)/2), c + ceil((size-1)/2)].
Tensor lrn(const ExprNode& c, const Tensor& x) {
  Shape s = topi::nn::const_shape(x);
  int64_t axis = c.attrs.at("axis").get<int64_t>(), size = c.attrs.at("size").get<int64_t>();
  double bias = c.attrs.at("bias").get<double>(), alpha = c.attrs.at("alpha").get<double>(),
         beta = c.attrs.at("beta").get<double>();
  DataType dt = x.dtype();
  int64_t lo = (size - 1) / 2;
  Shape before(s.size(), 0), after(s.size(), 0);
  before[axis] = lo;
  after[axis] = size - 1 - lo;
  Tensor padded = topi::nn::pad(x, before, after, 0.0, "pad_data");
  IterVar r = te::reduce_axis({0, I(size)}, "rxs");
  Tensor sqr = named_compute(
      s, ax_names(s.size()),
      [&](const std::vector<Var>& v) {
        std::vector<Expr> idx(v.begin(), v.end());
        idx[axis] = v[axis] + r->var;
        Expr e = padded.read(idx);
        return te::sum(e * e, {r});
      },
      "T_lrn_sqr_sum", "lrn");
  return named_compute(
      s, ax_names(s.size()),
      [&](const std::vector<Var>& v) {
        Expr d = ir::make_const(dt, bias) +
                 ir::make_const(dt, alpha / double(size)) * sqr.read(as_exprs(v));
        return x.read(as_exprs(v)) / ir::pow(d, ir::make_const(dt, beta));
      },
      "T_lrn", "lrn");
}

// image.resize2d. The input coordinate of each output row / column is computed in float64 (as
// ONNX's reference does), the taps' indices clamped to the edge; the data are interpolated in
// float32.
struct ResizeAxis {
  Expr coord;  // float64 input coordinate of output index v
  int64_t len;
};

ResizeAxis resize_axis(const Json& at, Expr v, int64_t in, int64_t out, double scale) {
  const DataType f64 = DataType::Float(64);
  auto D = [&](double x) { return ir::make_const(f64, x); };
  const std::string mode = at.at("coordinate_transformation_mode").get<std::string>();
  const double s = scale > 0 ? scale : double(out) / double(in);
  Expr x = ir::cast(f64, v);
  Expr c;
  if (mode == "half_pixel") {
    c = (x + D(0.5)) / D(s) - D(0.5);
  } else if (mode == "pytorch_half_pixel") {
    c = out > 1 ? (x + D(0.5)) / D(s) - D(0.5) : D(0.0);
  } else if (mode == "align_corners") {
    // ONNX: length_resized is in * scale when scales are given (not the floored extent).
    double len = scale > 0 ? double(in) * scale : double(out);
    c = out > 1 ? x * D(double(in - 1)) / D(len - 1.0) : D(0.0);
  } else if (mode == "asymmetric") {
    c = x / D(s);
  } else if (mode == "tf_half_pixel_for_nn") {
    c = (x + D(0.5)) / D(s);
  } else {  // half_pixel_symmetric
    double adj = double(out) / (s * double(in));
    double offset = double(in) / 2.0 * (1.0 - adj);
    c = D(offset) + ((x + D(0.5)) / D(s) - D(0.5));
  }
  return {c, in};
}

Expr clamp_index(Expr i, int64_t len) {
  return ir::max(ir::min(i, I(len - 1)), I(0));
}
Expr to_index(Expr f64) {
  return ir::cast(DataType::Int(32), f64);
}

// The taps of one axis: (index, float32 weight) pairs.
std::vector<std::pair<Expr, Expr>> resize_taps(const Json& at, const ResizeAxis& ax, bool up) {
  const DataType f32 = DataType::Float(32), f64 = DataType::Float(64);
  auto D = [&](double x) { return ir::make_const(f64, x); };
  const std::string method = at.at("method").get<std::string>();
  const Expr& x = ax.coord;
  if (method == "nearest_neighbor") {
    std::string r = at.at("rounding_method").get<std::string>();
    if (r == "simple") r = up ? "floor" : "ceil";
    Expr i = r == "round_prefer_floor"  ? ir::ceil(x - D(0.5))
             : r == "round_prefer_ceil" ? ir::floor(x + D(0.5))
             : r == "floor"             ? ir::floor(x)
                                        : ir::ceil(x);
    return {{clamp_index(to_index(i), ax.len), ir::make_const(f32, 1.0)}};
  }
  Expr x0 = ir::floor(x);
  Expr r = x - x0;
  Expr i0 = to_index(x0);
  if (method == "linear")
    return {{clamp_index(i0, ax.len), ir::cast(f32, D(1.0) - r)},
            {clamp_index(i0 + I(1), ax.len), ir::cast(f32, r)}};
  // cubic: Keys' kernel with parameter A at distances 1 + r, r, 1 - r, 2 - r.
  const double A = at.at("cubic_alpha").get<double>();
  auto far = [&](Expr d) { return ((D(A) * d - D(5 * A)) * d + D(8 * A)) * d - D(4 * A); };
  auto near = [&](Expr d) { return ((D(A + 2) * d - D(A + 3)) * d) * d + D(1.0); };
  std::vector<Expr> w{far(r + D(1.0)), near(r), near(D(1.0) - r), far(D(2.0) - r)};
  std::vector<Expr> idx;
  for (int k = 0; k < 4; ++k) idx.push_back(i0 + I(k - 1));
  if (at.at("cubic_exclude").get<bool>()) {
    // Taps outside the input get weight 0, the rest are renormalised.
    for (int k = 0; k < 4; ++k)
      w[k] = ir::select(idx[k] >= I(0) && idx[k] < I(ax.len), w[k], D(0.0));
    Expr sum = w[0] + w[1] + w[2] + w[3];
    for (int k = 0; k < 4; ++k) w[k] = w[k] / sum;
  }
  std::vector<std::pair<Expr, Expr>> taps;
  for (int k = 0; k < 4; ++k) taps.push_back({clamp_index(idx[k], ax.len), ir::cast(f32, w[k])});
  return taps;
}

Tensor resize2d(const ExprNode& c, const Tensor& x) {
  const Json& at = c.attrs;
  const Shape& os = c.types[0].shape;
  Shape is = topi::nn::const_shape(x);
  const Json& sc = at.at("scale");
  double sh = sc[0].get<double>(), sw = sc[1].get<double>();
  bool up_h = (sh > 0 ? sh : double(os[2]) / double(is[2])) >= 1.0;
  bool up_w = (sw > 0 ? sw : double(os[3]) / double(is[3])) >= 1.0;
  return named_compute(
      os, ax_names(os.size()),
      [&](const std::vector<Var>& v) {
        auto ty = resize_taps(at, resize_axis(at, v[2], is[2], os[2], sh), up_h);
        auto tx = resize_taps(at, resize_axis(at, v[3], is[3], os[3], sw), up_w);
        Expr sum;
        for (auto& [iy, wy] : ty) {
          Expr row;
          for (auto& [ix, wx] : tx) {
            Expr val = x.read({v[0], v[1], iy, ix});
            Expr term = tx.size() == 1 ? val : wx * val;
            row = row ? row + term : term;
          }
          Expr term = ty.size() == 1 ? row : wy * row;
          sum = sum ? sum + term : term;
        }
        return sum;
      },
      "T_resize2d", "injective");
}

}  // namespace

bool is_depthwise(const ExprNode& conv) {
  const auto& ws = conv.args[1]->types[0].shape;
  int64_t groups = conv.attrs.at("groups").get<int64_t>();
  int64_t channels = conv.args[0]->types[0].shape[1];
  return groups > 1 && ws[1] == 1 && groups == channels && ws[0] == channels;
}

bool is_grouped(const ExprNode& conv) {
  return conv.attrs.at("groups").get<int64_t>() != 1 && !is_depthwise(conv);
}

std::vector<Tensor> lower_op(const ExprNode& c, const std::vector<Tensor>& a) {
  const std::string& op = c.name;
  const Json& at = c.attrs;
  MINITVM_USER_CHECK(!c.tuple_typed || op == "split")
      << "relay::build: " << op
      << " produces a tuple that is not removed by simplify_inference (only field 0 of "
      << "nn.batch_norm / nn.dropout is supported)";
  for (auto& t : c.types)
    MINITVM_USER_CHECK(t.dtype == DataType::Float(32))
        << "relay::build: " << op << " on " << t.dtype.str()
        << " is not supported (float32 graphs only)";
  DataType dt = DataType::Float(32);
  if (op == "nn.conv2d") {
    auto st = ints(at.at("strides")), pad = ints(at.at("padding")), dil = ints(at.at("dilation"));
    int64_t groups = at.at("groups").get<int64_t>();
    if (groups == 1) return {topi::nn::conv2d_nchw(a[0], a[1], st, pad, dil)};
    if (is_depthwise(c)) return {topi::nn::depthwise_conv2d_nchw(a[0], a[1], st, pad, dil)};
    // Any other group count (ResNeXt, RegNet, ShuffleNet; depthwise with a channel multiplier).
    return {topi::nn::group_conv2d_nchw(a[0], a[1], st, pad, dil, groups)};
  }
  if (op == "nn.contrib_conv2d_winograd_weight_transform")
    return {topi::nn::conv2d_winograd_weight_transform(a[0], at.at("tile_size").get<int64_t>())};
  if (op == "nn.contrib_conv2d_winograd_without_weight_transform")
    return {topi::nn::conv2d_winograd_nchw_without_weight_transform(
                a[0], a[1], ints(at.at("padding")), at.at("tile_size").get<int64_t>())
                .output};
  if (op == "nn.contrib_conv2d_NCHWc") {
    topi::nn::Conv2dAttrs ca{ints(at.at("strides")), ints(at.at("padding")),
                             ints(at.at("dilation"))};
    const int64_t groups = at.contains("groups") ? at.at("groups").get<int64_t>() : 1;
    const int64_t data_channels =
        at.contains("data_channels") ? at.at("data_channels").get<int64_t>() : 0;
    return {topi::cpu::conv2d_nchwc_blocked(a[0], a[1], ca, groups, data_channels).output};
  }
  if (op == "nn.contrib_conv2d_winograd_NCHWc_weight_transform")
    return {topi::cpu::conv2d_winograd_nchwc_weight_transform(
        a[0], at.at("tile_size").get<int64_t>(), at.at("ic_block").get<int64_t>(),
        at.at("oc_block").get<int64_t>())};
  if (op == "nn.contrib_conv2d_winograd_NCHWc")
    return {topi::cpu::conv2d_winograd_nchwc(
                a[0], a[1], ints(at.at("padding")), at.at("tile_size").get<int64_t>(),
                at.at("groups").get<int64_t>())  // the type rule sets it
                .output};
  if (op == "nn.contrib_depthwise_conv2d_NCHWc") {
    topi::nn::Conv2dAttrs ca{ints(at.at("strides")), ints(at.at("padding")),
                             ints(at.at("dilation"))};
    return {topi::cpu::depthwise_conv2d_nchwc(a[0], a[1], ca).output};
  }
  if (op == "layout_transform") {
    Layout src = Layout::parse(at.at("src_layout").get<std::string>());
    Layout dst = Layout::parse(at.at("dst_layout").get<std::string>());
    const Shape& os = c.types[0].shape;
    return {named_compute(
        os, ax_names(os.size()),
        [&](const std::vector<Var>& v) {
          auto idx = layout_source_index<Expr>(
              src, dst, as_exprs(v), [](int64_t f) { return I(f); },
              [](const Expr& x, const Expr& y) { return ir::floordiv(x, y); },
              [](const Expr& x, const Expr& y) { return ir::floormod(x, y); });
          return a[0].read(idx);
        },
        "T_layout_trans", "injective")};
  }
  if (op == "nn.dense") return {topi::nn::dense(a[0], a[1])};
  if (op == "nn.contrib_dense_pack") return {topi::nn::dense_pack(a[0], a[1])};
  if (op == "nn.batch_matmul") {
    const Shape xs = topi::nn::const_shape(a[0]), ys = topi::nn::const_shape(a[1]);
    IterVar k = te::reduce_axis({0, I(xs[2])}, "k");
    const Shape& os = c.types[0].shape;
    return {named_compute(
        os, {"b", "i", "j"},
        [&](const std::vector<Var>& v) {
          Expr bx = xs[0] == 1 ? I(0) : Expr(v[0]), by = ys[0] == 1 ? I(0) : Expr(v[0]);
          return te::sum(a[0](bx, v[1], k->var) * a[1](by, v[2], k->var), {k});
        },
        "T_batch_matmul", "batch_matmul")};
  }
  if (op == "nn.relu") return {topi::nn::relu(a[0])};
  if (op == "nn.bias_add")
    return {topi::nn::bias_add(a[0], a[1], static_cast<int>(at.at("axis").get<int64_t>()))};
  if (op == "clip") {
    double lo = at.at("a_min").get<double>(), hi = at.at("a_max").get<double>();
    return {elemwise(a[0], "T_clip", [&](Expr e) {
      return ir::max(ir::min(e, ir::make_const(dt, hi)), ir::make_const(dt, lo));
    })};
  }
  if (op == "sigmoid")
    return {elemwise(a[0], "T_sigmoid", [&](Expr e) {
      return ir::make_const(dt, 1.0) / (ir::make_const(dt, 1.0) + ir::exp(-e));
    })};
  if (op == "sqrt") return {elemwise(a[0], "T_sqrt", [](Expr e) { return ir::sqrt(e); })};
  if (op == "negative") return {elemwise(a[0], "T_negative", [](Expr e) { return -e; })};
  if (op == "tanh") return {elemwise(a[0], "T_tanh", [](Expr e) { return ir::tanh(e); })};
  if (op == "exp") return {elemwise(a[0], "T_exp", [](Expr e) { return ir::exp(e); })};
  if (op == "log") return {elemwise(a[0], "T_log", [](Expr e) { return ir::log(e); })};
  if (op == "erf") return {elemwise(a[0], "T_erf", [](Expr e) { return ir::erf(e); })};
  if (op == "abs") return {elemwise(a[0], "T_abs", [](Expr e) { return ir::abs(e); })};
  if (op == "floor") return {elemwise(a[0], "T_floor", [](Expr e) { return ir::floor(e); })};
  if (op == "ceil") return {elemwise(a[0], "T_ceil", [](Expr e) { return ir::ceil(e); })};
  if (op == "nn.leaky_relu") {
    // max(x, 0) + alpha * min(x, 0): x above zero, alpha * x below, exactly, and no select.
    Expr alpha = ir::make_const(dt, at.at("alpha").get<double>()), zero = ir::make_const(dt, 0.0);
    return {elemwise(a[0], "T_leaky_relu",
                     [&](Expr e) { return ir::max(e, zero) + alpha * ir::min(e, zero); })};
  }
  if (op == "maximum") return {binary(c, a[0], a[1], [](Expr x, Expr y) { return ir::max(x, y); })};
  if (op == "minimum") return {binary(c, a[0], a[1], [](Expr x, Expr y) { return ir::min(x, y); })};
  if (op == "power") return {binary(c, a[0], a[1], [](Expr x, Expr y) { return ir::pow(x, y); })};
  if (op == "add") return {binary(c, a[0], a[1], [](Expr x, Expr y) { return x + y; })};
  if (op == "subtract") return {binary(c, a[0], a[1], [](Expr x, Expr y) { return x - y; })};
  if (op == "multiply") return {binary(c, a[0], a[1], [](Expr x, Expr y) { return x * y; })};
  if (op == "divide") return {binary(c, a[0], a[1], [](Expr x, Expr y) { return x / y; })};
  if (op == "nn.batch_flatten" || op == "reshape" || op == "squeeze" || op == "expand_dims")
    return {reshape_like(c, a[0])};
  if (op == "transpose") {
    auto axes = ints(at.at("axes"));
    return {index_map(a[0], c.types[0].shape, "T_transpose", [&](const std::vector<Var>& v) {
      std::vector<Expr> idx(v.size());
      for (size_t i = 0; i < v.size(); ++i) idx[axes[i]] = v[i];
      return idx;
    })};
  }
  if (op == "strided_slice") {
    Shape b = ints(at.at("begin")), st = ints(at.at("strides"));
    return {index_map(a[0], c.types[0].shape, "T_strided_slice", [&](const std::vector<Var>& v) {
      std::vector<Expr> idx(v.size());
      for (size_t d = 0; d < v.size(); ++d)
        idx[d] = st[d] == 1 ? v[d] + I(b[d]) : v[d] * I(st[d]) + I(b[d]);
      return idx;
    })};
  }
  if (op == "reverse") {
    int64_t ax = at.at("axis").get<int64_t>();
    const Shape& os = c.types[0].shape;
    return {index_map(a[0], os, "T_reverse", [&](const std::vector<Var>& v) {
      std::vector<Expr> idx = as_exprs(v);
      idx[ax] = I(os[ax] - 1) - v[ax];
      return idx;
    })};
  }
  if (op == "nn.dilate") {
    auto st = ints(at.at("strides"));
    const Shape& os = c.types[0].shape;
    Expr fill = ir::make_const(dt, at.at("dilation_value").get<double>());
    return {named_compute(
        os, ax_names(os.size()),
        [&](const std::vector<Var>& v) {
          std::vector<Expr> idx;
          Expr on;  // every strided axis on a multiple of its stride
          for (size_t i = 0; i < v.size(); ++i) {
            if (st[i] == 1) {
              idx.push_back(v[i]);
              continue;
            }
            idx.push_back(ir::floordiv(v[i], I(st[i])));
            Expr hit = ir::floormod(v[i], I(st[i])) == I(0);
            on = on ? (on && hit) : hit;
          }
          return on ? ir::if_then_else(on, a[0].read(idx), fill) : a[0].read(idx);
        },
        "T_dilate", "injective")};
  }
  if (op == "nn.pad") {
    const Json& pw = at.at("pad_width");
    Shape before, after;
    for (auto& p : pw) {
      before.push_back(p[0].get<int64_t>());
      after.push_back(p[1].get<int64_t>());
    }
    const std::string mode = at.value("pad_mode", std::string("constant"));
    if (mode == "constant")
      return {topi::nn::pad(a[0], before, after, at.at("pad_value").get<double>(), "T_pad")};
    // edge: the index clamped into the axis; reflect: mirrored about the first / last element.
    Shape is = topi::nn::const_shape(a[0]);
    return {index_map(a[0], c.types[0].shape, "T_pad_" + mode, [&](const std::vector<Var>& v) {
      std::vector<Expr> idx;
      for (size_t i = 0; i < v.size(); ++i) {
        if (before[i] == 0 && after[i] == 0) {
          idx.push_back(v[i]);
          continue;
        }
        Expr j = v[i] - I(before[i]), n1 = I(is[i] - 1);
        if (mode == "edge") {
          idx.push_back(ir::max(ir::min(j, n1), I(0)));
        } else {
          Expr r = ir::select(j < I(0), I(0) - j, j);
          idx.push_back(ir::select(r > n1, I(2 * (is[i] - 1)) - r, r));
        }
      }
      return idx;
    })};
  }
  if (op == "tile") {
    Shape is = topi::nn::const_shape(a[0]);
    const Shape& os = c.types[0].shape;
    return {index_map(a[0], os, "T_tile", [&](const std::vector<Var>& v) {
      std::vector<Expr> idx;
      for (size_t i = 0; i < v.size(); ++i)
        idx.push_back(is[i] == os[i] ? Expr(v[i]) : ir::floormod(v[i], I(is[i])));
      return idx;
    })};
  }
  if (op == "concatenate") {
    int64_t axis = at.at("axis").get<int64_t>();
    const Shape& os = c.types[0].shape;
    return {named_compute(
        os, ax_names(os.size()),
        [&](const std::vector<Var>& v) {
          // Nested if_then_else reads only the taken input; as a binary search over the inputs'
          // offsets, a few comparisons per element where DenseNet's concats join up to 50
          // inputs (a chain of them ran at 1 GB/s).
          std::vector<int64_t> offs{0};
          for (auto& t : a) offs.push_back(offs.back() + topi::nn::const_shape(t)[axis]);
          auto read = [&](size_t i) {
            std::vector<Expr> idx(v.begin(), v.end());
            idx[axis] = v[axis] - I(offs[i]);
            return a[i].read(idx);
          };
          std::function<Expr(size_t, size_t)> pick = [&](size_t lo, size_t hi) -> Expr {
            if (hi - lo == 1) return read(lo);
            const size_t mid = lo + (hi - lo) / 2;
            return ir::if_then_else(v[axis] < I(offs[mid]), pick(lo, mid), pick(mid, hi));
          };
          return pick(0, a.size());
        },
        "T_concat", "injective")};
  }
  if (op == "split") {
    int64_t axis = at.at("axis").get<int64_t>(), begin = 0;
    std::vector<Tensor> r;
    for (size_t f = 0; f < c.types.size(); ++f) {
      const Shape& os = c.types[f].shape;
      r.push_back(named_compute(
          os, ax_names(os.size()),
          [&](const std::vector<Var>& v) {
            std::vector<Expr> idx(v.begin(), v.end());
            idx[axis] = v[axis] + I(begin);
            return a[0].read(idx);
          },
          "T_split" + std::to_string(f), "injective"));
      begin += os[axis];
    }
    return r;
  }
  if (op == "image.resize2d") return {resize2d(c, a[0])};
  if (op == "nn.max_pool2d") return {pool2d(c, a[0], true)};
  if (op == "nn.avg_pool2d") return {pool2d(c, a[0], false)};
  if (op == "nn.global_avg_pool2d") {
    Shape is = topi::nn::const_shape(a[0]);
    IterVar ry = te::reduce_axis({0, I(is[2])}, "rv0"), rx = te::reduce_axis({0, I(is[3])}, "rv1");
    Tensor sum = named_compute(
        c.types[0].shape, ax_names(is.size()),
        [&](const std::vector<Var>& v) {
          std::vector<Expr> idx = as_exprs(v);
          idx[2] = ry->var;
          idx[3] = rx->var;
          return te::sum(a[0].read(idx), {ry, rx});
        },
        "tensor", "global_pool_sum");
    return {elemwise(sum, "T_divide", [&](Expr e) {
      return e / ir::make_const(dt, static_cast<double>(is[2] * is[3]));
    })};
  }
  if (op == "mean" || op == "sum" || op == "max" || op == "min" || op == "prod")
    return {reduce(c, a[0])};
  if (op == "nn.softmax") return {softmax(c, a[0])};
  if (op == "nn.lrn") return {lrn(c, a[0])};
  MINITVM_USER_ERROR << "relay::build: no lowering for " << op;
  return {};
}

}  // namespace minitvm::relay::detail
