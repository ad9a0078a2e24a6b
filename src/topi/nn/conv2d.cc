// conv2d NCHW and depthwise conv2d NCHW computes (TOPI names: pad_temp/compute,
// PaddedInput/DepthwiseConv2d).
#include "topi/nn/common.h"

#include "minitvm/topi/nn.h"

namespace minitvm::topi::nn {

using namespace detail;

namespace detail {

te::Tensor named_compute(const std::vector<int64_t>& shape,
                         const std::vector<std::string>& axis_names,
                         const std::function<Expr(const std::vector<Var>&)>& f,
                         const std::string& name, const std::string& tag) {
  MINITVM_ICHECK(shape.size() == axis_names.size());
  std::vector<IterVar> axes;
  std::vector<Var> vars;
  for (size_t i = 0; i < shape.size(); ++i) {
    DataType t = DataType::Int(32);
    Var v(axis_names[i], t);
    axes.push_back(IterVar(Range(I(0), I(shape[i])), v, ir::IterVarType::DataPar));
    vars.push_back(v);
  }
  Expr body = f(vars);
  MINITVM_ICHECK(body.defined());
  return te::make_compute_op(name, tag, axes, {body}).output(0);
}

std::pair<int64_t, int64_t> pair_of(const std::vector<int64_t>& v, const char* op,
                                    const char* what) {
  MINITVM_USER_CHECK(v.size() == 1 || v.size() == 2)
      << op << ": " << what << " must have 1 or 2 values, got " << v.size();
  int64_t a = v[0], b = v.size() == 2 ? v[1] : v[0];
  MINITVM_USER_CHECK(a >= 1 && b >= 1)
      << op << ": " << what << " must be >= 1, got (" << a << ", " << b << ")";
  return {a, b};
}

}  // namespace detail

std::array<int64_t, 4> get_pad_tuple(const std::vector<int64_t>& p) {
  std::array<int64_t, 4> r{};
  if (p.size() == 1)
    r = {p[0], p[0], p[0], p[0]};
  else if (p.size() == 2)
    r = {p[0], p[1], p[0], p[1]};
  else if (p.size() == 4)
    r = {p[0], p[1], p[2], p[3]};
  else
    MINITVM_USER_ERROR << "padding must have 1, 2 or 4 values (got " << p.size() << ")";
  for (int64_t v : r)
    MINITVM_USER_CHECK(v >= 0) << "padding must be non-negative (got " << v << ")";
  return r;
}

std::vector<int64_t> const_shape(const Tensor& t) {
  std::vector<int64_t> s;
  for (size_t i = 0; i < t.shape().size(); ++i) {
    const int64_t* c = ir::as_const_int(t.shape()[i]);
    MINITVM_USER_CHECK(c) << "tensor " << t.name() << ": dimension " << i << " is not a constant";
    s.push_back(*c);
  }
  return s;
}

int64_t conv_out_size(int64_t in, int64_t k, int64_t stride, int64_t pb, int64_t pa, int64_t dil) {
  int64_t dk = (k - 1) * dil + 1;
  return (in + pb + pa - dk) / stride + 1;
}

Tensor pad(const Tensor& t, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           double pad_value, const std::string& name) {
  auto shape = const_shape(t);
  MINITVM_USER_CHECK(before.size() == shape.size() && after.size() == shape.size())
      << "pad: " << t.name() << " has " << shape.size() << " dimensions but padding has "
      << before.size() << "/" << after.size() << " values";
  std::vector<int64_t> out(shape.size());
  std::vector<std::string> names;
  for (size_t i = 0; i < shape.size(); ++i) {
    out[i] = shape[i] + before[i] + after[i];
    names.push_back("i" + std::to_string(i));
  }
  DataType dt = t.dtype();
  return named_compute(
      out, names,
      [&](const std::vector<Var>& iv) {
        std::vector<Expr> idx;
        Expr cond;
        for (size_t i = 0; i < shape.size(); ++i) {
          if (before[i] == 0 && after[i] == 0) {
            idx.push_back(iv[i]);
            continue;
          }
          idx.push_back(iv[i] - I(before[i]));
          Expr c = before[i] > 0 ? (iv[i] >= I(before[i])) : Expr();
          if (after[i] > 0) {
            Expr c2 = iv[i] < I(before[i] + shape[i]);
            c = c.defined() ? (c && c2) : c2;
          }
          if (c.defined()) cond = cond.defined() ? (cond && c) : c;
        }
        Expr v = t.read(idx);
        if (!cond.defined()) return v;
        return ir::if_then_else(cond, v, ir::make_const(dt, pad_value));
      },
      name, "injective,pad");
}

Tensor conv2d_nchw(const Tensor& data, const Tensor& kernel, const std::vector<int64_t>& stride,
                   const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                   DataType out_dtype) {
  auto ds = const_shape(data), ks = const_shape(kernel);
  MINITVM_USER_CHECK(ds.size() == 4)
      << "conv2d_nchw: data must be 4-D (N, C, H, W), got " << ds.size() << "-D";
  MINITVM_USER_CHECK(ks.size() == 4)
      << "conv2d_nchw: kernel must be 4-D (CO, CI, KH, KW), got " << ks.size() << "-D";
  MINITVM_USER_CHECK(ds[1] == ks[1])
      << "conv2d_nchw: data has " << ds[1] << " input channels but kernel expects " << ks[1];
  auto [sh, sw] = pair_of(stride, "conv2d_nchw", "stride");
  auto [dh, dw] = pair_of(dilation, "conv2d_nchw", "dilation");
  auto p = get_pad_tuple(padding);
  int64_t oh = conv_out_size(ds[2], ks[2], sh, p[0], p[2], dh);
  int64_t ow = conv_out_size(ds[3], ks[3], sw, p[1], p[3], dw);
  MINITVM_USER_CHECK(oh >= 1 && ow >= 1)
      << "conv2d_nchw: output would be empty (" << oh << "x" << ow
      << "): the dilated kernel is larger than the padded input";
  Tensor temp = pad(data, {0, 0, p[0], p[1]}, {0, 0, p[2], p[3]}, 0.0, "pad_temp");
  IterVar rc = te::reduce_axis({0, I(ks[1])}, "rc");
  IterVar ry = te::reduce_axis({0, I(ks[2])}, "ry");
  IterVar rx = te::reduce_axis({0, I(ks[3])}, "rx");
  return named_compute(
      {ds[0], ks[0], oh, ow}, {"nn", "ff", "yy", "xx"},
      [&](const std::vector<Var>& v) {
        Expr a = temp(v[0], rc, v[2] * I(sh) + Expr(ry) * I(dh), v[3] * I(sw) + Expr(rx) * I(dw));
        Expr b = kernel(v[1], rc, ry, rx);
        return te::sum(cast_to(out_dtype, a) * cast_to(out_dtype, b), {rc, ry, rx});
      },
      "compute", "conv2d_nchw");
}

Tensor group_conv2d_nchw(const Tensor& data, const Tensor& kernel,
                         const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                         const std::vector<int64_t>& dilation, int64_t groups, DataType out_dtype) {
  auto ds = const_shape(data), ks = const_shape(kernel);
  MINITVM_USER_CHECK(ds.size() == 4)
      << "group_conv2d_nchw: data must be 4-D (N, C, H, W), got " << ds.size() << "-D";
  MINITVM_USER_CHECK(ks.size() == 4)
      << "group_conv2d_nchw: kernel must be 4-D (CO, CI/groups, KH, KW), got " << ks.size() << "-D";
  MINITVM_USER_CHECK(groups >= 1) << "group_conv2d_nchw: groups must be >= 1, got " << groups;
  MINITVM_USER_CHECK(ds[1] % groups == 0) << "group_conv2d_nchw: groups=" << groups
                                          << " does not divide the " << ds[1] << " input channels";
  MINITVM_USER_CHECK(ks[0] % groups == 0) << "group_conv2d_nchw: groups=" << groups
                                          << " does not divide the " << ks[0] << " output channels";
  MINITVM_USER_CHECK(ks[1] == ds[1] / groups)
      << "group_conv2d_nchw: kernel has " << ks[1] << " input channels per group but data has "
      << ds[1] << " channels in " << groups << " groups (" << ds[1] / groups << " per group)";
  auto [sh, sw] = pair_of(stride, "group_conv2d_nchw", "stride");
  auto [dh, dw] = pair_of(dilation, "group_conv2d_nchw", "dilation");
  auto p = get_pad_tuple(padding);
  int64_t oh = conv_out_size(ds[2], ks[2], sh, p[0], p[2], dh);
  int64_t ow = conv_out_size(ds[3], ks[3], sw, p[1], p[3], dw);
  MINITVM_USER_CHECK(oh >= 1 && ow >= 1)
      << "group_conv2d_nchw: output would be empty (" << oh << "x" << ow
      << "): the dilated kernel is larger than the padded input";
  int64_t out_per_group = ks[0] / groups, in_per_group = ks[1];
  Tensor temp = pad(data, {0, 0, p[0], p[1]}, {0, 0, p[2], p[3]}, 0.0, "pad_temp");
  IterVar rc = te::reduce_axis({0, I(in_per_group)}, "rc");
  IterVar ry = te::reduce_axis({0, I(ks[2])}, "ry");
  IterVar rx = te::reduce_axis({0, I(ks[3])}, "rx");
  return named_compute(
      {ds[0], ks[0], oh, ow}, {"nn", "ff", "yy", "xx"},
      [&](const std::vector<Var>& v) {
        Expr ch = ir::floordiv(v[1], I(out_per_group)) * I(in_per_group) + Expr(rc);
        Expr a = temp(v[0], ch, v[2] * I(sh) + Expr(ry) * I(dh), v[3] * I(sw) + Expr(rx) * I(dw));
        Expr b = kernel(v[1], rc, ry, rx);
        return te::sum(cast_to(out_dtype, a) * cast_to(out_dtype, b), {rc, ry, rx});
      },
      "compute", "group_conv2d_nchw");
}

Tensor depthwise_conv2d_nchw(const Tensor& data, const Tensor& kernel,
                             const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding,
                             const std::vector<int64_t>& dilation, DataType out_dtype) {
  auto ds = const_shape(data), ks = const_shape(kernel);
  MINITVM_USER_CHECK(ds.size() == 4)
      << "depthwise_conv2d_nchw: data must be 4-D (N, C, H, W), got " << ds.size() << "-D";
  MINITVM_USER_CHECK(ks.size() == 4)
      << "depthwise_conv2d_nchw: kernel must be 4-D (C, M, KH, KW), got " << ks.size() << "-D";
  MINITVM_USER_CHECK(ds[1] == ks[0])
      << "depthwise_conv2d_nchw: data has " << ds[1] << " channels but kernel has " << ks[0];
  auto [sh, sw] = pair_of(stride, "depthwise_conv2d_nchw", "stride");
  auto [dh, dw] = pair_of(dilation, "depthwise_conv2d_nchw", "dilation");
  auto p = get_pad_tuple(padding);
  int64_t oh = conv_out_size(ds[2], ks[2], sh, p[0], p[2], dh);
  int64_t ow = conv_out_size(ds[3], ks[3], sw, p[1], p[3], dw);
  MINITVM_USER_CHECK(oh >= 1 && ow >= 1)
      << "depthwise_conv2d_nchw: output would be empty (" << oh << "x" << ow << ")";
  int64_t mult = ks[1];
  Tensor padded = pad(data, {0, 0, p[0], p[1]}, {0, 0, p[2], p[3]}, 0.0, "PaddedInput");
  IterVar di = te::reduce_axis({0, I(ks[2])}, "di");
  IterVar dj = te::reduce_axis({0, I(ks[3])}, "dj");
  return named_compute(
      {ds[0], ds[1] * mult, oh, ow}, {"b", "c", "i", "j"},
      [&](const std::vector<Var>& v) {
        Expr ch = ir::floordiv(v[1], I(mult));
        Expr a = padded(v[0], ch, v[2] * I(sh) + Expr(di) * I(dh), v[3] * I(sw) + Expr(dj) * I(dw));
        Expr b = kernel(ch, ir::floormod(v[1], I(mult)), di, dj);
        return te::sum(cast_to(out_dtype, a) * cast_to(out_dtype, b), {di, dj});
      },
      "DepthwiseConv2d", "depthwise_conv2d_nchw");
}

bool is_injective_tag(const std::string& tag) {
  return tag.rfind("elemwise", 0) == 0 || tag.rfind("broadcast", 0) == 0 ||
         tag.rfind("injective", 0) == 0;
}

}  // namespace minitvm::topi::nn
