// Winograd F(m, 3) conv2d on the blocked layouts (NCHW[x]c data and output, the weights
// transformed at build time): what a network kept in NCHWc runs for its 3x3 stride-1 layers.
//
// TVM's x86 templates have no Winograd for NCHWc (it reaches Winograd on CPUs through NNPACK);
// this is the same algorithm as its CUDA winograd (topi/nn/winograd.cc here), laid out for the
// blocked micro-kernel of conv2d_NCHWc:
//   V[e, n, icc, p, icb] = (B^T d_p B)[e, n]      input tiles p of alpha x alpha, per channel
//   M[e, n, occ, p, ocb] = sum_ic V[e, n, ic, p] U[e, n, occ, ic, ocb]   alpha^2 1x1 convolutions
//   Y[occ, p, i, j, ocb] = (A^T M_p A)[i, j]      output tiles of m x m
// Each batched product is a 1x1 convolution over the tiles with conv2d_NCHWc's register tile (two
// vectors of output channels by up to 15 tiles on AVX-512), and the transforms are separable
// (rows, then columns) with the constant matrices folded: zero terms dropped, +-1 as adds.
#include <cmath>

#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/nn.h"
#include "topi/nn/common.h"
#include "topi/schedule_util.h"

namespace minitvm::topi::cpu {

using nn::detail::I;
using nn::detail::named_compute;
using Mat = std::vector<std::vector<double>>;

namespace {

std::string dims(const std::vector<int64_t>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + ")";
}

// sum_t c(t, k) * term(t) for the value of the axis `k` (0 .. K-1), as a chain of selects on k
// that an unrolled k folds to one sum; zero coefficients are dropped, +-1 become adds.
Expr lincomb(const Var& k, int K, int T, const std::function<double(int, int)>& c,
             const std::function<Expr(int)>& term) {
  Expr chain;
  for (int kk = K - 1; kk >= 0; --kk) {
    Expr sum;
    for (int t = 0; t < T; ++t) {
      double v = c(t, kk);
      if (v == 0.0) continue;
      Expr x = term(t);
      if (v == 1.0) {
        sum = sum.defined() ? sum + x : x;
      } else if (v == -1.0) {
        sum = sum.defined() ? sum - x : ir::make_const(x.dtype(), 0.0) - x;
      } else {
        Expr y = x * ir::make_const(x.dtype(), v);
        sum = sum.defined() ? sum + y : y;
      }
    }
    if (!sum.defined()) sum = ir::make_const(DataType::Float(32), 0.0);
    chain = chain.defined() ? ir::select(k == I(kk), sum, chain) : sum;
  }
  return chain;
}

}  // namespace

int64_t winograd_nchwc_tile(int64_t out_h, int64_t out_w) {
  // F(4, 3) (alpha 6: 4x fewer multiply-adds than direct) where a map has enough 4x4 tiles;
  // F(2, 3) (alpha 4: 2.25x fewer, a smaller weight transform) on small maps, where F(4, 3)'s
  // 36 weight matrices would be streamed for few tiles and its tiles overhang the map.
  return std::min(out_h, out_w) >= 24 ? 4 : 2;
}

int64_t winograd_nchwc_conv_tile(int64_t out_h, int64_t out_w, int64_t in_channels,
                                 int64_t out_channels) {
  // 7x7 maps (ResNet's last stage) from 64 input channels on AMD's cores, as grouped ones: F(2, 3)
  // ran ResNet-50's and ResNet-18's 512-channel layers in 878 and 869 us against 1304 and 1275
  // direct on Zen 4. On Intel's they stay direct: there the layer is bound by its weights coming
  // from memory in a network, and F(2, 3)'s transformed weights are 1.8x the direct ones (16.8
  // against 9.4 MB): on the 2-core Xeon ResNet-18's 7x7 512 -> 512 layers 1051 -> 870 us in the
  // network, the network 0.905x per round (6 alternating rounds), ResNet-50's 1139 -> 999 us
  // with the network level (2026-12-07).
  const int64_t s = std::min(out_h, out_w);
  if (in_channels < 32 || out_channels < 32 || s < 7 || (s < 8 && in_channels < 64)) return 0;
  if (s < 8 && !host_cpu_is_amd()) return 0;
  return winograd_nchwc_tile(out_h, out_w);
}

int64_t winograd_nchwc_group_tile(int64_t out_h, int64_t out_w, int64_t group_channels, bool amd) {
  // A group's product reduces over its own channels only, so the transforms weigh more against
  // it than in a full conv. Measured on Zen 4 (per-call medians, against the direct grouped
  // kernel): 1.0x (RegNetX-400MF's 16-channel 14x14, level) to 2.9x faster on 14x14 to 56x56
  // maps with 16- to 128-channel groups; on 14x14 F(4, 3) beat F(2, 3) with 48 and 128 channels
  // per group (190 -> 170, 1187 -> 934 us at the neighbours' pace) and lost with 16 and 32
  // (102 -> 136, 345 -> 381 us); on 7x7 F(2, 3) won with 64 (729 -> 518 us) and lost with 16
  // and 32. On Intel's cores (the 2-core Xeon) 14x14 maps take F(2, 3) at all widths: F(4, 3)'s
  // transformed weights, 4x the direct ones, come from memory in a network (as the 7x7 direct
  // convs' in winograd_nchwc_conv_tile). Per-call medians of 3 alternating processes, F(4, 3) ->
  // F(2, 3): RegNetX-3.2GF's 48-channel groups 275 -> 239 us, RegNetX-8GF's 120-channel groups
  // (8-lane blocks) 1464 -> 1025, RegNetY-8GF's 56-channel ones 958 -> 730; the 28x28 maps' F(4, 3)
  // stays (F(2, 3) 277 -> 369 and 850 -> 1157 us) (2026-12-08).
  const int64_t s = std::min(out_h, out_w);
  if (s >= 24 || (s >= 12 && group_channels >= 48 && amd)) return 4;
  if (s >= 8 || (s >= 7 && group_channels >= 64)) return 2;
  return 0;
}

te::Tensor conv2d_winograd_nchwc_weight_transform(const te::Tensor& kernel, int64_t m,
                                                  int64_t ic_bn, int64_t oc_bn) {
  std::vector<int64_t> ks = nn::const_shape(kernel);
  MINITVM_USER_CHECK(ks.size() == 4 && ks[2] == 3 && ks[3] == 3)
      << "conv2d_winograd_NCHWc_weight_transform: the kernel must be OIHW 3x3, got " << dims(ks);
  MINITVM_USER_CHECK(ic_bn >= 1 && oc_bn >= 1 && ks[1] % ic_bn == 0 && ks[0] % oc_bn == 0)
      << "conv2d_winograd_NCHWc_weight_transform: channel blocks " << ic_bn << "/" << oc_bn
      << " do not divide " << ks[1] << "/" << ks[0];
  nn::WinogradMatrices w = nn::winograd_transform_matrices(static_cast<int>(m), 3);
  const int64_t alpha = w.alpha;
  // U[e, n] = (G g G^T)[e, n], separable: rows of G g, then G^T on the right.
  te::Tensor t = named_compute(
      {alpha, 3, ks[0], ks[1]}, {"e", "kw", "o", "i"},
      [&](const std::vector<Var>& v) {
        return lincomb(
            v[0], static_cast<int>(alpha), 3, [&](int kh, int e) { return w.G[e][kh]; },
            [&](int kh) { return kernel(v[2], v[3], I(kh), v[1]); });
      },
      "winograd_weight_rows", "");
  return named_compute(
      {alpha, alpha, ks[0] / oc_bn, ks[1] / ic_bn, ic_bn, oc_bn},
      {"eps", "nu", "occ", "icc", "icb", "ocb"},
      [&](const std::vector<Var>& v) {
        Expr o = v[2] * I(oc_bn) + v[5], i = v[3] * I(ic_bn) + v[4];
        return lincomb(
            v[1], static_cast<int>(alpha), 3, [&](int kw, int n) { return w.G[n][kw]; },
            [&](int kw) { return t(v[0], I(kw), o, i); });
      },
      "winograd_weight", "winograd_weight_transform");
}

WinogradNCHWc conv2d_winograd_nchwc(const te::Tensor& data, const te::Tensor& weight,
                                    const std::vector<int64_t>& padding, int64_t m,
                                    int64_t groups) {
  std::vector<int64_t> ds = nn::const_shape(data), us = nn::const_shape(weight);
  const char* what = "conv2d_winograd_NCHWc";
  MINITVM_USER_CHECK(ds.size() == 5) << what << ": data must be NCHW[x]c (5-D), got " << dims(ds);
  nn::WinogradMatrices w = nn::winograd_transform_matrices(static_cast<int>(m), 3);
  const int64_t alpha = w.alpha;
  MINITVM_USER_CHECK(groups >= 1 && ds[1] % groups == 0)
      << what << ": " << groups << " groups do not divide the " << ds[1]
      << " input channel blocks of data " << dims(ds);
  MINITVM_USER_CHECK(us.size() == 6 && us[0] == alpha && us[1] == alpha &&
                     us[3] == ds[1] / groups && us[4] == ds[4] && us[2] % groups == 0)
      << what << ": the transformed weight must be (" << alpha << ", " << alpha << ", O/x, "
      << ds[1] / groups << ", " << ds[4] << ", x) with O/x a multiple of the " << groups
      << " groups for F(" << m << ", 3) on data " << dims(ds) << ", got " << dims(us);
  const auto p = nn::get_pad_tuple(padding);  // top, left, bottom, right
  const int64_t N = ds[0], ICC = ds[1], H = ds[2], W = ds[3], ib = ds[4];
  const int64_t OCC = us[2], ob = us[5];
  const int64_t OH = H + p[0] + p[2] - 2, OW = W + p[1] + p[3] - 2;
  MINITVM_USER_CHECK(OH >= 1 && OW >= 1) << what << ": the output would be empty";
  const int64_t nH = (OH + m - 1) / m, nW = (OW + m - 1) / m, P = N * nH * nW;
  WinogradNCHWc r;
  r.m = m;
  r.alpha = alpha;
  r.tiles = P;
  r.weight = weight;
  // The input tile element (a, b) of tile q, zero outside the input (the padding, and the last
  // tiles' overhang).
  auto tile_in = [&](const Expr& c, const Expr& q, const Expr& a, const Expr& b, const Expr& cb) {
    Expr nb = floordiv(q, I(nH * nW));
    Expr y = floormod(floordiv(q, I(nW)), I(nH)) * I(m) + a - I(p[0]);
    Expr x = floormod(q, I(nW)) * I(m) + b - I(p[1]);
    Expr in = y >= I(0) && y < I(H) && x >= I(0) && x < I(W);
    return ir::if_then_else(in, data(nb, c, y, x, cb), ir::make_const(DataType::Float(32), 0.0));
  };
  // Rows: R[icc, q, a, n, icb] = sum_b d[a, b] B[b, n]; columns: V[e, n] = sum_a B[a, e] R[a, n].
  r.input_rows = named_compute(
      {ICC, P, alpha, alpha, ib}, {"icc", "p", "a", "nu", "icb"},
      [&](const std::vector<Var>& v) {
        return lincomb(
            v[3], static_cast<int>(alpha), static_cast<int>(alpha),
            [&](int b, int n) { return w.B[b][n]; },
            [&](int b) { return tile_in(v[0], v[1], v[2], I(b), v[4]); });
      },
      "winograd_input_rows", "");
  te::Tensor R = r.input_rows;
  r.input = named_compute(
      {alpha, alpha, ICC, P, ib}, {"eps", "nu", "icc", "p", "icb"},
      [&](const std::vector<Var>& v) {
        return lincomb(
            v[0], static_cast<int>(alpha), static_cast<int>(alpha),
            [&](int a, int e) { return w.B[a][e]; },
            [&](int a) { return R(v[2], v[3], I(a), v[1], v[4]); });
      },
      "winograd_input", "winograd_input_transform");
  // A group's output chunks read its ICC / groups input chunks (the weight's fourth axis).
  const int64_t ICg = ICC / groups, OCg = OCC / groups;
  te::IterVar ic = te::reduce_axis({0, static_cast<int>(ICg * ib)}, "ic");
  te::Tensor V = r.input;
  r.product = named_compute(
      {alpha, alpha, OCC, P, ob}, {"eps", "nu", "occ", "p", "ocb"},
      [&](const std::vector<Var>& v) {
        Expr icg = floordiv(ic->var, I(ib)), icb = floormod(ic->var, I(ib));
        Expr icc = groups == 1 ? icg : floordiv(v[2], I(OCg)) * I(ICg) + icg;
        return te::sum(V(v[0], v[1], icc, v[3], icb) * weight(v[0], v[1], v[2], icg, icb, v[4]),
                       {ic});
      },
      "winograd_product", "winograd_batched_product");
  te::Tensor M = r.product;
  // Z[occ, q, e, j] = sum_n M[e, n] A[n, j]; Y[occ, q, i, j] = sum_e A[e, i] Z[e, j].
  r.output_rows = named_compute(
      {OCC, P, alpha, m, ob}, {"occ", "p", "eps", "j", "ocb"},
      [&](const std::vector<Var>& v) {
        return lincomb(
            v[3], static_cast<int>(m), static_cast<int>(alpha),
            [&](int n, int j) { return w.A[n][j]; },
            [&](int n) { return M(v[2], I(n), v[0], v[1], v[4]); });
      },
      "winograd_output_rows", "");
  te::Tensor Z = r.output_rows;
  r.output_tiles = named_compute(
      {OCC, P, m, m, ob}, {"occ", "p", "i", "j", "ocb"},
      [&](const std::vector<Var>& v) {
        return lincomb(
            v[2], static_cast<int>(m), static_cast<int>(alpha),
            [&](int e, int i) { return w.A[e][i]; },
            [&](int e) { return Z(v[0], v[1], I(e), v[3], v[4]); });
      },
      "winograd_output_tiles", "");
  te::Tensor Y = r.output_tiles;
  r.output = named_compute(
      {N, OCC, OH, OW, ob}, {"n", "occ", "h", "w", "ocb"},
      [&](const std::vector<Var>& v) {
        Expr q = v[0] * I(nH * nW) + floordiv(v[2], I(m)) * I(nW) + floordiv(v[3], I(m));
        return Y(v[1], q, floormod(v[2], I(m)), floormod(v[3], I(m)), v[4]);
      },
      "conv2d_winograd_NCHWc", "conv2d_winograd_NCHWc");
  return r;
}

namespace {

void schedule_winograd_into(te::Schedule& s, const WinogradNCHWc& t, const te::Tensor& O) {
  const std::vector<int64_t> vs = nn::const_shape(t.input);    // alpha, alpha, ICC, P, ib
  const std::vector<int64_t> ms = nn::const_shape(t.product);  // alpha, alpha, OCC, P, ob
  const int64_t P = t.tiles, ib = vs[4], ob = ms[4];
  // Input transform: parallel over (icc, tiles), a tile's rows and columns unrolled, the channel
  // block vectorized.
  {
    te::Stage sv = s[t.input];
    auto ax = t.input.op().axis();  // eps, nu, icc, p, icb
    sv.reorder({ax[2], ax[3], ax[0], ax[1], ax[4]});
    te::IterVar par = sv.fuse(std::vector<te::IterVar>{ax[2], ax[3]});
    sv.parallel(par);
    sv.unroll(ax[0]);
    sv.unroll(ax[1]);
    sv.vectorize(ax[4]);
    te::Stage sr = s[t.input_rows];
    sr.compute_at(sv, par);
    auto rx = t.input_rows.op().axis();  // icc, p, a, nu, icb
    sr.unroll(rx[2]);
    sr.unroll(rx[3]);
    sr.vectorize(rx[4]);
  }
  // The batched product: conv2d_NCHWc's 1x1 register tile over (tiles x two vectors of output
  // channels), parallel over (eps, nu, occ): each task reads one ICC x ib x ob weight matrix.
  {
    const int64_t cols = register_columns_for_block(ob);
    int64_t tp = detail::largest_divisor_at_most(P, cols);
    if (tp <= 4 && P > tp) tp = (P + (P + cols - 1) / cols - 1) / ((P + cols - 1) / cols);
    te::Tensor M = t.product;
    te::Tensor MC = s.cache_write(M, "global");
    te::Stage sm = s[M], smc = s[MC];
    auto ax = M.op().axis();  // eps, nu, occ, p, ocb
    auto [po, pi] = sm.split(ax[3], I(tp));
    sm.reorder({ax[0], ax[1], ax[2], po, pi, ax[4]});
    te::IterVar par = sm.fuse(std::vector<te::IterVar>{ax[0], ax[1], ax[2]});
    sm.parallel(par);
    sm.vectorize(ax[4]);
    smc.compute_at(sm, po);
    auto cx = MC.op().axis();
    auto rx = MC.op().reduce_axis();
    auto [ico, ici] = smc.split(rx[0], I(ib));
    smc.reorder({cx[0], cx[1], cx[2], ico, ici, cx[3], cx[4]});
    smc.unroll(cx[3]);
    smc.vectorize(cx[4]);
  }
  // Output transform at the output's tiles: parallel over (n, occ, tile rows); per tile Z and Y
  // (unrolled, the channel block vectorized), then the m x m outputs with the fused epilogue.
  {
    const int64_t m = t.m;
    te::Stage so = s[O];
    auto ax = O.op().axis();  // n, occ, h, w, ocb
    auto [ho, hi] = so.split(ax[2], I(m));
    auto [wo, wi] = so.split(ax[3], I(m));
    so.reorder({ax[0], ax[1], ho, wo, hi, wi, ax[4]});
    te::IterVar par = so.fuse(std::vector<te::IterVar>{ax[0], ax[1], ho});
    so.parallel(par);
    so.unroll(hi);
    so.unroll(wi);
    so.vectorize(ax[4]);
    if (!O.op().same_as(t.output.op())) s[t.output].compute_inline();
    te::Stage sy = s[t.output_tiles], sz = s[t.output_rows];
    sy.compute_at(so, wo);
    sz.compute_at(so, wo);
    auto yx = t.output_tiles.op().axis();  // occ, p, i, j, ocb
    sy.unroll(yx[2]);
    sy.unroll(yx[3]);
    sy.vectorize(yx[4]);
    auto zx = t.output_rows.op().axis();  // occ, p, eps, j, ocb
    sz.unroll(zx[2]);
    sz.unroll(zx[3]);
    sz.vectorize(zx[4]);
  }
}

}  // namespace

te::Schedule schedule_conv2d_winograd_nchwc(const WinogradNCHWc& t) {
  te::Schedule s = te::create_schedule({t.output.op()});
  schedule_winograd_into(s, t, t.output);
  return s;
}

te::Schedule schedule_conv2d_winograd_nchwc_fused(const std::vector<te::Tensor>& outs) {
  MINITVM_USER_CHECK(outs.size() == 1)
      << "schedule_conv2d_winograd_NCHWc: one output expected, got " << outs.size();
  te::Schedule s = te::create_schedule({outs[0].op()});
  te::Operation conv = detail::inline_epilogue(s, outs[0].op(), "conv2d_winograd_NCHWc");
  WinogradNCHWc t;
  t.output = conv.output(0);
  t.output_tiles = conv.input_tensors().at(0);
  t.output_rows = t.output_tiles.op().input_tensors().at(0);
  t.product = t.output_rows.op().input_tensors().at(0);
  for (const te::Tensor& in : t.product.op().input_tensors()) {
    if (in.op()->tag == "winograd_input_transform")
      t.input = in;
    else
      t.weight = in;
  }
  MINITVM_USER_CHECK(t.input.defined()) << "schedule_conv2d_winograd_NCHWc: no input transform";
  t.input_rows = t.input.op().input_tensors().at(0);
  const std::vector<int64_t> ms = nn::const_shape(t.product);
  const std::vector<int64_t> ys = nn::const_shape(t.output_tiles);
  t.alpha = ms[0];
  t.m = ys[2];
  t.tiles = ms[3];
  schedule_winograd_into(s, t, outs[0]);
  return s;
}

}  // namespace minitvm::topi::cpu
