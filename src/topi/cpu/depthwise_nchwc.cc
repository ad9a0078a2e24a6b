// TVM's x86 depthwise_conv2d_NCHWc (topi/x86/depthwise_conv2d.py): data NCHW[x]c, kernel
// OIHW1i[x]o, output NCHW[x]c; the channel block is the vector, tile_ow output columns are
// register accumulators. The schedule starts from TVM's schedule_depthwise_conv2d_NCHWc (the
// accumulator computed per ow chunk with the reduction outside the register tile) and departs
// from it in three places: the padding is inlined, the kernel row is unrolled (TVM's unroll_kw
// knob) with a tile that leaves registers for it, and a 5-D injective epilogue is computed at
// the register tile instead of per output row (depthwise_register_tile). No tuning knobs.
#include <algorithm>

#include "minitvm/topi/cpu_schedule.h"
#include "topi/nn/common.h"
#include "topi/schedule_util.h"

namespace minitvm::topi::cpu {

using nn::detail::named_compute;

DepthwiseNCHWc depthwise_conv2d_nchwc(const te::Tensor& data, const te::Tensor& kernel,
                                      const nn::Conv2dAttrs& a) {
  std::vector<int64_t> d = nn::const_shape(data), k = nn::const_shape(kernel);
  MINITVM_USER_CHECK(d.size() == 5 && k.size() == 6)
      << "depthwise_conv2d_NCHWc: data must be NCHW[x]c (5-D) and the kernel OIHW1i[x]o (6-D), got "
      << d.size() << "-D and " << k.size() << "-D";
  MINITVM_USER_CHECK(k[0] == d[1] && k[1] == 1 && k[4] == 1 && k[5] == d[4])
      << "depthwise_conv2d_NCHWc: kernel (" << k[0] << ", " << k[1] << ", " << k[2] << ", " << k[3]
      << ", " << k[4] << ", " << k[5] << ") does not match data blocks " << d[1] << " x " << d[4];
  auto [sh, sw] = nn::detail::pair_of(a.stride, "depthwise_conv2d_NCHWc", "stride");
  auto [dh, dw] = nn::detail::pair_of(a.dilation, "depthwise_conv2d_NCHWc", "dilation");
  auto pad = nn::get_pad_tuple(a.padding);  // top, left, bottom, right
  int64_t oh = nn::conv_out_size(d[2], k[2], sh, pad[0], pad[2], dh);
  int64_t ow = nn::conv_out_size(d[3], k[3], sw, pad[1], pad[3], dw);
  MINITVM_USER_CHECK(oh >= 1 && ow >= 1) << "depthwise_conv2d_NCHWc: empty output";
  DepthwiseNCHWc r;
  bool dopad = pad[0] || pad[1] || pad[2] || pad[3];
  r.data_pad =
      dopad ? nn::pad(data, {0, 0, pad[0], pad[1], 0}, {0, 0, pad[2], pad[3], 0}, 0.0, "data_pad")
            : data;
  te::IterVar kh = te::reduce_axis({0, static_cast<int>(k[2])}, "kh");
  te::IterVar kw = te::reduce_axis({0, static_cast<int>(k[3])}, "kw");
  te::Tensor dp = r.data_pad;
  using nn::detail::I;
  r.conv = named_compute(
      {d[0], d[1], oh, ow, d[4]}, {"b", "oco", "oh", "ow", "oci"},
      [&](const std::vector<Var>& v) {
        Expr x =
            dp(v[0], v[1], v[2] * I(sh) + kh->var * I(dh), v[3] * I(sw) + kw->var * I(dw), v[4]);
        return te::sum(x * kernel(v[1], Expr(0), kh->var, kw->var, Expr(0), v[4]), {kh, kw});
      },
      "DepthwiseConv2d", "depthwise_conv2d_NCHWc");
  r.output = r.conv;
  return r;
}

DepthwiseTile depthwise_register_tile(int64_t out_w, int64_t kernel_w, int64_t block) {
  const int64_t lanes = fp32_lanes();
  const int64_t vectors = std::max<int64_t>(1, (block + lanes - 1) / lanes);
  const int64_t registers = lanes >= 16 ? 32 : 16;
  // Unrolled, a kernel row's taps are straight-line code over the tile's columns: each input
  // vector is loaded once for the kw taps that read it (rolled, once per tap), and the row's
  // kw weight vectors stay in registers next to the accumulators, an input vector and a spare.
  const int64_t budget = registers - kernel_w * vectors - 2;
  DepthwiseTile t;
  t.unroll_kw = budget >= 4 * vectors;
  const int64_t columns = register_columns_for_block(block);
  t.columns = detail::largest_divisor_at_most(
      out_w, t.unroll_kw ? std::min(columns, budget / vectors) : columns);
  return t;
}

te::Schedule schedule_depthwise_conv2d_nchwc(const std::vector<te::Tensor>& outs) {
  using detail::I;
  MINITVM_USER_CHECK(outs.size() == 1)
      << "schedule_depthwise_conv2d_nchwc: one output expected, got " << outs.size();
  te::Schedule s = te::create_schedule({outs[0].op()});
  te::Operation conv = detail::inline_epilogue(s, outs[0].op(), "depthwise_conv2d_NCHWc");
  te::Tensor C = conv.output(0), O = outs[0], pad = conv.input_tensors().at(0);
  // The padding is inlined: its bounds checks cost less than writing and re-reading a padded
  // copy of the input (MobileNetV2 on Zen 5: its depthwise layers 0.78-1.0 -> 0.31-0.39 ms per
  // run).
  if (pad.op().op_type() == te::OpType::Compute && pad.op()->tag.find("pad") != std::string::npos)
    s[pad].compute_inline();
  const std::vector<int64_t> cs = nn::const_shape(C);
  const DepthwiseTile tile =
      depthwise_register_tile(cs[3], nn::const_shape(conv.input_tensors().at(1))[3], cs[4]);
  const int64_t reg_n = tile.columns;
  bool c_is_out = C.op().same_as(O.op());
  te::Tensor CC = s.cache_write(C, "global");
  te::Stage sc = s[C], scc = s[CC];
  auto cax = C.op().axis();
  // The accumulators' stage: the reduction outside the tile's unrolled columns and lanes, the
  // kernel row unrolled where the tile left registers for its weights.
  auto schedule_accumulators = [&](te::Stage at, IterVar where) {
    scc.compute_at(at, where);
    auto ccax = CC.op().axis();
    auto rax = CC.op().reduce_axis();
    scc.reorder({ccax[0], ccax[1], ccax[2], rax[0], rax[1], ccax[3], ccax[4]});
    scc.vectorize(ccax[4]);
    scc.unroll(ccax[3]);
    if (tile.unroll_kw) scc.unroll(rax[1]);
  };
  if (c_is_out) {
    auto [ow_chunk, ow_block] = sc.split(cax[3], I(reg_n));
    sc.reorder({cax[0], cax[1], cax[2], ow_chunk, ow_block, cax[4]});
    sc.vectorize(cax[4]);
    sc.unroll(ow_block);
    sc.parallel(sc.fuse(std::vector<IterVar>{cax[0], cax[1], cax[2]}));
    schedule_accumulators(sc, ow_chunk);
    return s;
  }
  // A 5-D injective epilogue (bias, BN, relu) is computed at the register tile with the
  // convolution and its accumulators: LLVM keeps the tile's buffers in registers and stores each
  // output once. Computed per output row (TVM's schedule), the accumulators went to a row
  // buffer, read back by the epilogue: an extra round trip through L1 per output vector for the
  // 9 or 25 multiply-adds behind it. With the kernel row unrolled, on the 2-core Xeon: MNASNet's
  // and MobileNetV2's layers -5 % (3x3, 14x14) to -70 % (5x5, 28x28 of 16-blocks), 3x3 at 112x112
  // -25 to -40 % (docs/PERFORMANCE.md, 2026-12-07).
  te::Stage so = s[O];
  auto oax = O.op().axis();
  MINITVM_USER_CHECK(oax.size() == 5)
      << "schedule_depthwise_conv2d_nchwc: the epilogue must stay 5-D";
  auto [o_owc, o_owb] = so.split(oax[3], I(reg_n));
  so.reorder({oax[0], oax[1], oax[2], o_owc, o_owb, oax[4]});
  so.parallel(so.fuse(std::vector<IterVar>{oax[0], oax[1], oax[2]}));
  so.vectorize(oax[4]);
  so.unroll(o_owb);
  sc.compute_at(so, o_owc);
  sc.vectorize(cax[4]);
  sc.unroll(cax[3]);
  schedule_accumulators(so, o_owc);
  return s;
}

}  // namespace minitvm::topi::cpu
