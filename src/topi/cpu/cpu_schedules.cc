// CPU schedules: parallel outer, vectorized inner, register-blocked local accumulators.
#include "minitvm/topi/cpu_schedule.h"

#include <algorithm>

#include "topi/schedule_util.h"

namespace minitvm::topi::cpu {

using namespace detail;

namespace {

int64_t extent_of(const IterVar& iv) {
  const int64_t* c = ir::as_const_int(iv->dom.extent());
  MINITVM_USER_CHECK(c) << "schedule: axis " << iv->var.name() << " has a non-constant extent";
  return *c;
}

// The tensors an injective stage reads through the injective stages inlined into it.
void injective_sources(const te::Operation& op, std::vector<te::Tensor>& out) {
  for (const te::Tensor& t : op.input_tensors()) {
    if (t.op().op_type() == te::OpType::Compute && nn::is_injective_tag(t.op()->tag)) {
      injective_sources(t.op(), out);
    } else if (std::none_of(out.begin(), out.end(), [&](const te::Tensor& o) {
                 return o.op().same_as(t.op()) && o.value_index() == t.value_index();
               })) {
      out.push_back(t);
    }
  }
}

// An NCHW output read from one NCHW[b]c input (a network's blocked activations unpacked, as a
// layout_transform does, possibly through a split that drops padded channels or takes a half):
// tiles of t channels x 16 (or fewer) columns, parallel over (batch, channel tile, row), where t is
// the block (the last tile bounds-checked when the output's channels are not a multiple of it:
// aligned tiles need no div/mod per element; divisor tiles, 29 of a 32-block, measured slower), or
// the channels when there are fewer. A tile reads the b-float blocks of 16 pixels (lines that stay
// in L1 across its channels) and writes t rows of 16 floats. The generic schedule below walks each
// block's lines once per channel, from L2 or memory: 4.6 GB/s on a 12.8 MB unpack on the 2-core
// Xeon, and 11 GB/s on ShuffleNet's 200 KB unpack-and-split, which stays in L2. The loop over a
// tile's channels is what the LLVM code generator emits as a transposed tile (dense loads of the
// blocks, shuffles; codegen_transpose.cc) rather than a gather per channel: a 224-channel 56x56
// unpack 166 -> 57 us per call on Zen 4, 112x112 1195 -> 406 (medians of 3 processes).
bool schedule_unblock(te::Stage& st, const te::Operation& op) {
  auto axes = st.leaf_iter_vars();
  if (axes.size() != 4) return false;
  std::vector<te::Tensor> inputs;
  injective_sources(op, inputs);
  if (inputs.size() != 1) return false;
  const te::Tensor in = inputs[0];
  if (in.ndim() != 5) return false;
  const std::vector<int64_t> is = nn::const_shape(in);
  std::vector<int64_t> os;
  for (const IterVar& a : axes) os.push_back(extent_of(a));
  const int64_t b = is[4];
  if (b < 2 || is[0] != os[0] || os[1] > is[1] * b || is[2] != os[2] || is[3] != os[3])
    return false;
  const int64_t t = os[1] <= b ? os[1] : b;
  // Columns: a divisor of the width, so that the vector loop needs no bounds check (28 and 56
  // wide maps in 14s), else 16 with the last tile checked.
  const int64_t wd = largest_divisor_at_most(os[3], 16);
  auto [co, ci] = st.split(axes[1], I(t));
  auto [wo, wi] = st.split(axes[3], I(wd >= 7 ? wd : 16));
  st.reorder({axes[0], co, axes[2], wo, ci, wi});
  st.parallel(st.fuse(std::vector<IterVar>{axes[0], co, axes[2]}));
  st.vectorize(wi);
  return true;
}

// The block b of a stage that packs one NCHW input into NCHW[b]c (the same batch, channels,
// rows and columns), or 0.
int64_t packed_block(const te::Stage& st, const te::Operation& op) {
  auto axes = st.leaf_iter_vars();
  const std::vector<te::Tensor> inputs = op.input_tensors();
  if (axes.size() != 5 || inputs.size() != 1 || inputs[0].ndim() != 4) return 0;
  const std::vector<int64_t> is = nn::const_shape(inputs[0]);
  std::vector<int64_t> os;
  for (const IterVar& a : axes) os.push_back(extent_of(a));
  const int64_t b = os[4];
  if (is[0] != os[0] || os[1] * b != is[1] || is[2] != os[2] || is[3] != os[3]) return 0;
  return b;
}

// A pack with a block of fewer than 4 channels (a network's 3-channel image packed for its first
// conv): parallel over (batch, channel block, row), the columns and the block serial with the
// block unrolled, so each row is a loop over contiguous input rows and one contiguous output row.
// Parallel over every pixel, with the 3-element block as the only loop, the 224x224 image took
// 65 us.
// With a block of 4 or more channels (an activation packed for a blocked conv): parallel over
// (batch, channel block, row), the row in tiles of up to 16 columns, each column's block
// vectorized. Each tile is then a loop over its columns whose vectors read b channels H x W apart:
// the LLVM code generator loads the b channel rows of the tile densely and transposes them in
// registers (codegen_transpose.cc) instead of gathering every vector (the generic schedule below
// ran the whole row as that loop, too long a tile). On Zen 4 a 224-channel 56x56 pack took 56-75
// us per call instead of 195 (medians of 3 processes).
bool schedule_pack(te::Stage& st, const te::Operation& op) {
  const int64_t b = packed_block(st, op);
  if (b == 0) return false;
  auto axes = st.leaf_iter_vars();
  if (b < 4) {
    st.parallel(st.fuse(std::vector<IterVar>{axes[0], axes[1], axes[2]}));
    st.unroll(axes[4]);
    return true;
  }
  const int64_t wd = largest_divisor_at_most(extent_of(axes[3]), 16);
  if (wd < 2) return false;
  auto [wo, wi] = st.split(axes[3], I(wd));
  st.reorder({axes[0], axes[1], axes[2], wo, wi, axes[4]});
  st.parallel(st.fuse(std::vector<IterVar>{axes[0], axes[1], axes[2]}));
  if (b <= 16) st.vectorize(axes[4]);
  return true;
}

// Parallelise the outermost axes of an injective stage and vectorize the innermost when it is
// wide enough.
void schedule_injective_stage(te::Schedule& s, const te::Operation& op) {
  te::Stage st = s[op];
  auto axes = st.leaf_iter_vars();
  if (axes.empty()) return;
  if (schedule_unblock(st, op) || schedule_pack(st, op)) return;
  int64_t inner = extent_of(axes.back());
  // Three or more axes: parallel over all but the last two when that leaves enough tasks, the
  // next-to-last a serial loop around the vector loop, so each task walks a contiguous run and
  // computes the outer indices (a concat's select, a broadcast's operand row) once per run. Over
  // every axis but the last, a blocked concat recomputed them for every 32 floats: SqueezeNet's
  // 55x55 channel concat (387 KB + 387 KB, in L2) at 23 GB/s.
  int64_t rows = 1;
  for (size_t i = 0; i + 2 < axes.size(); ++i) rows *= extent_of(axes[i]);
  const size_t serial = axes.size() >= 3 && rows >= 16 ? 2 : 1;  // trailing axes not parallel
  if (axes.size() >= 2) {
    std::vector<IterVar> outer(axes.begin(), axes.end() - static_cast<std::ptrdiff_t>(serial));
    IterVar f = outer.size() == 1 ? outer[0] : st.fuse(outer);
    st.parallel(f);
    int64_t v = largest_divisor_at_most(inner, 16);
    if (v >= 4) {
      auto [xo, xi] = st.split(axes.back(), I(v));
      (void)xo;
      st.vectorize(xi);
    }
  } else {
    int64_t v = largest_divisor_at_most(inner, 16);
    auto [xo, xi] = st.split(axes.back(), I(v));
    st.parallel(xo);
    if (v >= 4) st.vectorize(xi);
  }
}

// Root-computed padding stage: parallel over its outer axes.
void schedule_pad_root(te::Schedule& s, const te::Tensor& pad) {
  if (pad.op().op_type() != te::OpType::Compute) return;
  schedule_injective_stage(s, pad.op());
}

// The common conv/depthwise structure: output stage blocked by (f_tile, x_tile), accumulator
// computed at the x-outer loop, reduction outside the register tile. The channel tile divides
// `f_block` when given (grouped conv: the channels of one group, which share their input).
void schedule_conv_like(te::Schedule& s, const te::Operation& conv, const te::Operation& out_op,
                        int64_t f_cap, int64_t rc_split, int64_t f_block = 0, int64_t y_cap = 1,
                        bool rows_for_narrow_groups = false) {
  te::Tensor conv_t = conv.output(0);
  te::Tensor acc;
  te::Operation out = out_op;
  if (conv.same_as(out)) {
    acc = s.cache_write(conv_t, "local");
  } else {
    s[conv].set_scope("local");
    acc = conv_t;
  }
  te::Stage os = s[out];
  auto ax = os.leaf_iter_vars();
  MINITVM_ICHECK(ax.size() == 4);
  int64_t F = extent_of(ax[1]), Y = extent_of(ax[2]), X = extent_of(ax[3]);
  // y_cap > 1: a register tile of up to y_cap rows (twice the channels when no row count
  // divides), for more independent accumulators than FMA latency x ports.
  int64_t yt = largest_divisor_at_most(Y, y_cap);
  if (y_cap > 1 && yt == 1) f_cap *= 2;
  int64_t ft = largest_divisor_at_most(f_block > 0 ? f_block : F, f_cap),
          xt = largest_divisor_at_most(X, 16);
  // The row tile in whole vectors where a multiple of the vector up to 16 divides the row (56
  // with 8 lanes: 8, not 14, which AVX2 ran as a vector and a part). A grouped conv's few channels
  // (ResNeXt's 4) then leave too few accumulators for the FMA latency: two rows where they fit.
  // ResNeXt-50's 4-channel groups on 56x56, Zen 3 (AVX2): 1221-1621 -> 458-561 us a call.
  const int64_t lanes = fp32_lanes();
  if (xt % lanes != 0)
    for (int64_t m = 16 / lanes; m >= 1; --m)
      if (X % (m * lanes) == 0) {
        xt = m * lanes;
        if (rows_for_narrow_groups && yt == 1 && ft * m < 8) yt = largest_divisor_at_most(Y, 2);
        break;
      }
  auto [fo, fi] = os.split(ax[1], I(ft));
  auto [yo, yi] = os.split(ax[2], I(yt));
  auto [xo, xi] = os.split(ax[3], I(xt));
  // Output rows outside the channel blocks when the input is the larger operand: consecutive
  // parallel iterations share the same input rows (ci x kh x W, cache resident) instead of
  // sweeping the whole input once per channel block, which made strided 1x1 layers memory bound.
  // When the weights are larger (a 1000-class 1x1 classifier on 13x13 kept NCHW: 2 MB of
  // weights, 0.3 MB of input; 1.41 -> 1.24 ms), channel blocks outside the rows: a block's
  // weights stay in L1 for all its rows instead of all the weights streaming past once per row.
  // The same comparison of operand sizes as conv2d_nchwc_loop_order's for the blocked template.
  const te::Tensor conv_in = conv.input_tensors()[0], weight = conv.input_tensors()[1];
  const bool channels_outer =
      num_elements(nn::const_shape(weight)) > num_elements(nn::const_shape(conv_in));
  std::vector<IterVar> outer =
      channels_outer ? std::vector<IterVar>{ax[0], fo, yo} : std::vector<IterVar>{ax[0], yo, fo};
  std::vector<IterVar> out_order = outer;
  out_order.insert(out_order.end(), {xo, fi, yi, xi});
  os.reorder(out_order);
  IterVar par = os.fuse(outer);
  os.parallel(par);
  os.vectorize(xi);
  s[acc].compute_at(os, xo);
  te::Stage as = s[acc];
  auto cax = as.leaf_iter_vars();  // n, f, y, x, then reduce axes
  auto rax = as.op().reduce_axis();
  std::vector<IterVar> order;
  if (rc_split > 0 && rax.size() == 3) {
    int64_t rc = extent_of(rax[0]);
    auto [rco, rci] = as.split(rax[0], I(largest_divisor_at_most(rc, rc_split)));
    order = {rco, rax[1], rax[2], rci};
  } else {
    order.assign(rax.begin(), rax.end());
  }
  order.insert(order.end(), {cax[0], cax[1], cax[2], cax[3]});
  as.reorder(order);
  as.vectorize(cax[3]);
  if (ft > 1) as.unroll(cax[1]);
  if (yt > 1) as.unroll(cax[2]);
}

}  // namespace

namespace {

// conv2d and grouped conv2d: root-computed padding, then the conv-like blocking.
te::Schedule schedule_conv2d_like(const std::vector<te::Tensor>& outs, const char* tag,
                                  const char* where, bool grouped) {
  auto ops = ops_of(outs);
  te::Schedule s = te::create_schedule(ops);
  te::Operation conv = find_op_by_tag(ops[0], tag);
  MINITVM_USER_CHECK(conv.defined()) << where << ": no " << tag << " op in the graph";
  traverse_inline(s, ops[0], [](const te::Operation&) {});
  te::Tensor pad = conv.input_tensors()[0];
  if (pad.op().op_type() == te::OpType::Compute) {
    s[pad.op()].compute_root();
    schedule_pad_root(s, pad);
  }
  // Strided convs vectorize over output width with a gathered input load: amortize each gather
  // over 16 output channels instead of 8 (the 7x7/2 stem and the 1x1/2 layers of ResNet-50).
  auto dim = [](const te::Tensor& t, size_t i) {
    const int64_t* c = ir::as_const_int(t.shape()[i]);
    return c ? *c : int64_t{0};
  };
  int64_t in_w = dim(pad, 3), k_w = dim(conv.input_tensors()[1], 3), out_w = dim(conv.output(0), 3);
  bool strided = in_w > out_w + k_w - 1;
  int64_t f_block = 0;
  if (grouped) {
    // Channels per group = CO / groups, groups = CI / (kernel's input channels per group).
    int64_t ci = dim(conv.input_tensors()[0], 1), ci_g = dim(conv.input_tensors()[1], 1);
    int64_t co = dim(conv.output(0), 1);
    MINITVM_ICHECK(ci > 0 && ci_g > 0 && ci % ci_g == 0);
    f_block = co / (ci / ci_g);
  }
  schedule_conv_like(s, conv, ops[0], strided ? 16 : 8, 8, f_block, strided || grouped ? 1 : 2,
                     grouped && !strided);
  return s;
}

}  // namespace

te::Schedule schedule_conv2d_nchw(const std::vector<te::Tensor>& outs) {
  return schedule_conv2d_like(outs, "conv2d_nchw", "schedule_conv2d_nchw", false);
}

te::Schedule schedule_group_conv2d_nchw(const std::vector<te::Tensor>& outs) {
  return schedule_conv2d_like(outs, "group_conv2d_nchw", "schedule_group_conv2d_nchw", true);
}

te::Schedule schedule_depthwise_conv2d_nchw(const std::vector<te::Tensor>& outs) {
  auto ops = ops_of(outs);
  te::Schedule s = te::create_schedule(ops);
  te::Operation conv = find_op_by_tag(ops[0], "depthwise_conv2d_nchw");
  MINITVM_USER_CHECK(conv.defined())
      << "schedule_depthwise_conv2d_nchw: no depthwise_conv2d_nchw op in the graph";
  traverse_inline(s, ops[0], [](const te::Operation&) {});
  // The padding inlined (bounds-checked, masked loads at the edges): nine taps per output do
  // not pay for a padded copy of the input in its own pass (ShuffleNetV2's NCHW depthwise
  // layers, 4.24 -> 3.97 ms for the network).
  te::Tensor pad = conv.input_tensors()[0];
  if (pad.op().op_type() == te::OpType::Compute) s[pad.op()].compute_inline();
  schedule_conv_like(s, conv, ops[0], 1, 0);
  return s;
}

namespace {
/** Small batches (a network's classifier, GEMV-like): the weight is [out_dim, in_dim] row-major, so
 *  vector lanes run along in_dim. The reduction is factored (rfactor) over an inner split of k
 *  whose lanes become the innermost, vectorized axis of a per-column partial sum; each output
 *  element is one contiguous dot product, the columns run in parallel. */
te::Schedule schedule_dense_rows(te::Schedule s, const te::Operation& out, const te::Operation& d,
                                 int64_t lanes) {
  auto k = d.reduce_axis()[0];
  auto [ko, ki] = s[d].split(k, I(lanes));
  (void)ko;
  te::Tensor rf = s.rfactor(d.output(0), ki, /*factor_axis=*/2)[0];  // rf[i, j, ki]
  te::Stage os = s[out];
  auto ax = os.leaf_iter_vars();
  IterVar par = os.fuse(ax[0], ax[1]);
  os.parallel(par);
  if (!d.same_as(out)) s[d].compute_at(os, par);
  te::Stage rs = s[rf.op()];
  rs.compute_at(os, par);
  auto rax = rs.leaf_iter_vars();  // i, j, ki, ko (reduce)
  IterVar rko = rs.op().reduce_axis()[0];
  rs.reorder({rko, rax[2]});
  rs.vectorize(rax[2]);
  // Weights of 1 MiB and more stream from memory once per call: prefetch each row 4 KB ahead of
  // the loads (the hardware prefetcher alone left VGG-16's 25088 x 4096 layer at 17.0 ms, 24 GB/s;
  // with this 12.7-13.4 ms, and ResNet-50's 2048 x 1000 330 -> 265 us, on the 2-core Xeon).
  te::Tensor w = d.input_tensors().at(1);
  const int64_t w_bytes = w->dtype.bytes() * num_elements(nn::const_shape(w));
  if (w.op().op_type() == te::OpType::Placeholder && w_bytes >= (int64_t{1} << 20))
    rs.prefetch(w, rko, I(std::max<int64_t>(1, 4096 / (lanes * w->dtype.bytes()))));
  return s;
}
}  // namespace

te::Schedule schedule_dense(const std::vector<te::Tensor>& outs) {
  auto ops = ops_of(outs);
  te::Schedule s = te::create_schedule(ops);
  te::Operation d = find_op_by_tag(ops[0], "dense");
  MINITVM_USER_CHECK(d.defined()) << "schedule_dense: no dense op in the graph";
  traverse_inline(s, ops[0], [](const te::Operation&) {});
  {
    auto dax = d.axis();
    const int64_t batch = extent_of(dax[0]);
    const int64_t K = extent_of(d.reduce_axis()[0]);
    const int64_t lanes = largest_divisor_at_most(K, 16);
    if (batch <= 16 && lanes >= 4) return schedule_dense_rows(s, ops[0], d, lanes);
  }
  te::Tensor acc;
  if (d.same_as(ops[0])) {
    acc = s.cache_write(d.output(0), "local");
  } else {
    s[d].set_scope("local");
    acc = d.output(0);
  }
  te::Stage os = s[ops[0]];
  auto ax = os.leaf_iter_vars();
  int64_t J = extent_of(ax[1]);
  int64_t jt = largest_divisor_at_most(J, 16);
  auto [jo, ji] = os.split(ax[1], I(jt));
  IterVar par = os.fuse(ax[0], jo);
  os.parallel(par);
  os.vectorize(ji);
  s[acc].compute_at(os, par);
  te::Stage as = s[acc];
  auto cax = as.leaf_iter_vars();
  auto k = as.op().reduce_axis()[0];
  int64_t K = extent_of(k);
  auto [ko, ki] = as.split(k, I(largest_divisor_at_most(K, 4)));
  as.reorder({ko, cax[0], ki, cax[1]});
  as.unroll(ki);
  as.vectorize(cax[1]);
  return s;
}

// Register tiles of `mt` rows by `nb` columns over the last two axes of the matmul-like op d
// (leading axes, a batch, outermost): the accumulator tile in `local`, reduction outside it, split
// by up to 4 and unrolled with the rows, columns vectorized; column panel outer, row tile inner,
// fused with the leading axes into the parallel loop. When the output o keeps d's shape the tiles
// are computed at o's (the epilogue applied there); otherwise d is computed at root and o
// scheduled as an injective stage.
static void schedule_register_tiles(te::Schedule& s, const te::Operation& d, const te::Operation& o,
                                    int64_t mt, int64_t nb) {
  const auto dax = d.axis();
  const size_t r = dax.size();
  bool at_output = o.same_as(d);
  if (!at_output) {
    // o keeps d's shape, or cuts back its padded rows (the last tile's stores guarded)
    auto oax = o.axis();
    at_output = oax.size() == r;
    for (size_t i = 0; at_output && i < r; ++i)
      at_output = i + 2 == r
                      ? extent_of(oax[i]) <= extent_of(dax[i]) && extent_of(dax[i]) % mt == 0 &&
                            extent_of(oax[i]) > extent_of(dax[i]) - mt
                      : extent_of(oax[i]) == extent_of(dax[i]);
  }
  te::Tensor acc;
  te::Operation tiled;
  if (at_output && !o.same_as(d)) {
    s[d].set_scope("local");
    acc = d.output(0);
    tiled = o;
  } else {
    acc = s.cache_write(d.output(0), "local");
    tiled = d;
  }
  te::Stage ts = s[tiled];
  auto ax = ts.leaf_iter_vars();
  auto t = ts.tile(ax[r - 2], ax[r - 1], I(mt), I(nb));  // io, jo, ii, ji
  std::vector<IterVar> order(ax.begin(), ax.begin() + static_cast<std::ptrdiff_t>(r - 2));
  std::vector<IterVar> outer = order;
  order.insert(order.end(), {t[1], t[0], t[2], t[3]});
  ts.reorder(order);
  outer.insert(outer.end(), {t[1], t[0]});
  IterVar par = ts.fuse(outer);
  ts.parallel(par);
  ts.vectorize(t[3]);
  s[acc].compute_at(ts, par);
  te::Stage as = s[acc];
  auto cax = as.leaf_iter_vars();  // the r data axes, then k
  auto k = as.op().reduce_axis()[0];
  auto [ko, ki] = as.split(k, I(largest_divisor_at_most(extent_of(k), 4)));
  std::vector<IterVar> inner{ko, ki};
  inner.insert(inner.end(), cax.begin(), cax.begin() + static_cast<std::ptrdiff_t>(r));
  as.reorder(inner);
  as.unroll(cax[r - 2]);
  as.unroll(ki);
  as.vectorize(cax[r - 1]);
  if (!at_output) schedule_injective_stage(s, o);
}

// The zero-padded copy of a matmul's rows (the stage named `name` feeding d, if there is one)
// written once at root: inlined, every broadcast of the kernel's inner loop would select against
// the row count.
static void compute_padded_rows_at_root(te::Schedule& s, const te::Operation& d,
                                        const std::string& name) {
  for (const te::Tensor& in : d.input_tensors())
    if (in.op()->name == name) {
      s[in.op()].compute_root();
      schedule_injective_stage(s, in.op());
    }
}

int64_t batch_matmul_column_tile(int64_t cols) {
  return cols >= 8 * fp32_lanes() ? 2 * fp32_lanes() : fp32_lanes();
}

int64_t batch_matmul_column_block(int64_t cols) {
  const int64_t lanes = fp32_lanes();
  for (int64_t v = dense_pack_block() / lanes; v >= 1; v /= 2)
    if (cols % (v * lanes) == 0) return v * lanes;
  return cols;
}

int64_t dense_pack_block() {
  return fp32_lanes() >= 16 ? 4 * fp32_lanes() : 2 * fp32_lanes();
}

int64_t dense_pack_row_tile(int64_t block) {
  // 3/4 of the vector registers (32 with AVX-512, 16 below) hold accumulators; the rest the
  // block's weights and a broadcast.
  const int64_t accumulators = fp32_lanes() >= 16 ? 24 : 12;
  const int64_t vectors = std::max<int64_t>(1, (block + fp32_lanes() - 1) / fp32_lanes());
  return std::clamp<int64_t>(accumulators / vectors, 1, 8);
}

int64_t dense_pack_row_padding(int64_t rows, int64_t block) {
  const int64_t mt = dense_pack_row_tile(block);
  return rows % mt == 0 ? 1 : mt;
}

// TVM's dense_pack on x86: register tiles of dense_pack_row_tile(b) rows (or the largest divisor
// of the rows below it) by the weight's b packed columns (with AVX-512: 6 rows by four vectors, 24
// accumulators), each k step b contiguous weights loaded and each row's element broadcast; one
// panel of the packed weight (K x b floats) stays in L2 while every row tile passes over it.
te::Schedule schedule_dense_pack(const std::vector<te::Tensor>& outs) {
  auto ops = ops_of(outs);
  te::Schedule s = te::create_schedule(ops);
  te::Operation d = find_op_by_tag(ops[0], "dense_pack");
  MINITVM_USER_CHECK(d.defined()) << "schedule_dense_pack: no dense_pack op in the graph";
  traverse_inline(s, ops[0], [](const te::Operation&) {});
  compute_padded_rows_at_root(s, d, "T_dense_pack_rows");
  const int64_t Mp = extent_of(d.axis()[0]);
  const int64_t b = nn::const_shape(d.input_tensors().at(1)).at(2);
  schedule_register_tiles(s, d, ops[0], largest_divisor_at_most(Mp, dense_pack_row_tile(b)), b);
  return s;
}

// nn::batch_matmul_pack: y's packing at root (parallel over batch and k), then dense_pack's
// register tiles per batch (batch_matmul_column_block columns by dense_pack_row_tile rows).
te::Schedule schedule_batch_matmul_pack(const std::vector<te::Tensor>& outs) {
  auto ops = ops_of(outs);
  te::Schedule s = te::create_schedule(ops);
  te::Operation d = find_op_by_tag(ops[0], "batch_matmul");
  MINITVM_USER_CHECK(d.defined()) << "schedule_batch_matmul_pack: no batch_matmul op";
  traverse_inline(s, ops[0], [](const te::Operation&) {});
  te::Operation yt = find_op_by_tag(ops[0], "batch_matmul_pack");
  MINITVM_USER_CHECK(yt.defined()) << "schedule_batch_matmul_pack: no packed operand";
  {
    te::Stage ys = s[yt];
    auto ax = ys.leaf_iter_vars();
    ys.parallel(ys.fuse(ax[0], ax[1]));
  }
  compute_padded_rows_at_root(s, d, "T_batch_matmul_rows");
  const int64_t Mp = extent_of(d.axis()[1]), Np = extent_of(d.axis()[2]);
  const int64_t nb = batch_matmul_column_block(Np);
  schedule_register_tiles(s, d, ops[0], largest_divisor_at_most(Mp, dense_pack_row_tile(nb)), nb);
  return s;
}

// relay's softmax over its last axis (max, exp(x - max), sum, divide): one task per row run of
// the outer axes, the max and the sum as scalar loops over the row, exp(x - max) and the divide in
// vectors (a guarded tail where 16 does not divide the row).
te::Schedule schedule_softmax_last_axis(const std::vector<te::Tensor>& outs) {
  auto ops = ops_of(outs);
  te::Schedule s = te::create_schedule(ops);
  te::Operation norm = ops[0];
  MINITVM_USER_CHECK(norm->name == "T_softmax_norm")
      << "schedule_softmax_last_axis: output is not a softmax";
  MINITVM_USER_CHECK(norm.axis().size() >= 2)
      << "schedule_softmax_last_axis: needs rows (x of 2 or more dimensions), got 1-D";
  te::Operation e = norm.input_tensors().at(0).op(), sum = norm.input_tensors().at(1).op();
  te::Operation mx = e.input_tensors().at(1).op();
  te::Stage os = s[norm];
  auto ax = os.leaf_iter_vars();
  std::vector<IterVar> outer(ax.begin(), ax.end() - 1);
  IterVar row = outer.size() == 1 ? outer[0] : os.fuse(outer);
  os.parallel(row);
  auto [xo, xi] = os.split(ax.back(), I(16));
  (void)xo;
  os.vectorize(xi);
  s[e].compute_at(os, row);
  s[sum].compute_at(os, row);
  // topi::nn::softmax_last_axis's partial reductions: at their reduction's place, the chunk loop
  // outside the lanes, which are one vector (an accumulator register over the row).
  auto partial = [&](const te::Operation& red, te::Stage& at, const IterVar& iv) {
    te::Operation part = red.input_tensors().at(0).op();
    if (part->name != "T_softmax_maxelem_part" && part->name != "T_softmax_expsum_part") return;
    s[part].compute_at(at, iv);
    te::Stage ps = s[part];
    auto pax = ps.leaf_iter_vars();  // the row axes, the lanes, then the chunks
    ps.reorder({pax.back(), pax[pax.size() - 2]});
    ps.vectorize(pax[pax.size() - 2]);
  };
  partial(sum, os, row);
  {
    te::Stage es = s[e];
    auto eax = es.leaf_iter_vars();
    // The max is computed once per row: at e's last outer axis (extent 1 there).
    te::Stage& at = eax.size() >= 2 ? es : os;
    const IterVar iv = eax.size() >= 2 ? eax[eax.size() - 2] : row;
    s[mx].compute_at(at, iv);
    partial(mx, at, iv);
    auto [eo, ei] = es.split(eax.back(), I(16));
    (void)eo;
    es.vectorize(ei);
  }
  return s;
}

te::Schedule schedule_conv2d_winograd(const nn::WinogradTensors& w,
                                      const std::vector<te::Tensor>& outs) {
  auto ops = ops_of(outs);
  te::Schedule s = te::create_schedule(ops);
  traverse_inline(s, ops[0], [](const te::Operation&) {});
  // data_pad is read outside its extent by the last tiles: keep it inlined (guarded by its
  // condition).
  s[w.data_pad.op()].compute_inline();
  s[w.d.op()].compute_inline();
  for (const te::Tensor* t : {&w.kernel_pack, &w.data_pack, &w.bgemm, &w.inverse}) {
    if (t == &w.kernel_pack && w.pre_computed) continue;
    te::Stage st = s[t->op()];
    auto ax = st.leaf_iter_vars();
    // Parallel over the first two data axes fused; vectorize nothing in the small transforms.
    IterVar f = st.fuse(ax[0], ax[1]);
    st.parallel(f);
  }
  {
    te::Stage st = s[w.bgemm.op()];
    auto ax = w.bgemm.op().axis();
    int64_t P = extent_of(ax[3]);
    auto [po, pi] = st.split(ax[3], I(largest_divisor_at_most(P, 16)));
    (void)po;
    auto ci = st.op().reduce_axis()[0];
    st.reorder({ax[2], po, ci, pi});
    st.vectorize(pi);
  }
  if (!w.output.op().same_as(ops[0])) s[w.output.op()].compute_inline();
  schedule_injective_stage(s, ops[0]);
  return s;
}

te::Schedule schedule_injective(const std::vector<te::Tensor>& outs) {
  auto ops = ops_of(outs);
  te::Schedule s = te::create_schedule(ops);
  for (auto& op : ops) traverse_inline(s, op, [](const te::Operation&) {});
  for (auto& op : ops) schedule_injective_stage(s, op);
  return s;
}

te::Schedule schedule_softmax(const std::vector<te::Tensor>& outs) {
  auto ops = ops_of(outs);
  te::Schedule s = te::create_schedule(ops);
  te::Operation norm = ops[0];
  MINITVM_USER_CHECK(norm->name == "T_softmax_norm") << "schedule_softmax: output is not a softmax";
  te::Tensor ex = norm.input_tensors()[0];
  te::Tensor maxelem = ex.op().input_tensors()[1];
  te::Tensor sum = norm.input_tensors()[1];
  te::Stage os = s[norm];
  auto ax = os.leaf_iter_vars();
  os.parallel(ax[0]);
  s[ex.op()].compute_at(os, ax[0]);
  s[sum.op()].compute_at(os, ax[0]);
  s[maxelem.op()].compute_at(s[ex.op()], s[ex.op()].leaf_iter_vars()[0]);
  return s;
}

}  // namespace minitvm::topi::cpu
