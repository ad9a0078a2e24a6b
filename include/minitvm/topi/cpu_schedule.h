/** \file
 * CPU (llvm) schedules for the topi computes: parallel outer loops, vectorized inner loops, a
 * register-blocked reduction kept in a `local` accumulator (cache_write) for conv2d / depthwise /
 * dense. Each takes the output tensors of a (possibly fused) subgraph: `outs[0]` is the final op;
 * injective ops that are not outputs are inlined, as TVM's x86 schedules do.
 *
 *   auto out = topi::nn::relu(topi::nn::conv2d_nchw(data, kernel, {1, 1}, {1, 1}, {1, 1}));
 *   te::Schedule s = topi::cpu::schedule_conv2d_nchw({out});
 *   auto mod = build(s, {data, kernel, out}, "llvm", "conv");
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/space.h"
#include "minitvm/te/schedule.h"
#include "minitvm/topi/nn.h"

namespace minitvm::topi::cpu {

/** conv2d NCHW (op tagged `conv2d_nchw`) with an optional fused injective epilogue. */
te::Schedule schedule_conv2d_nchw(const std::vector<te::Tensor>& outs);
/** depthwise conv2d NCHW (op tagged `depthwise_conv2d_nchw`). */
te::Schedule schedule_depthwise_conv2d_nchw(const std::vector<te::Tensor>& outs);
/** grouped conv2d NCHW (op tagged `group_conv2d_nchw`) with an optional fused injective epilogue:
 *  conv2d's structure, the register tile of output channels kept inside one group. */
te::Schedule schedule_group_conv2d_nchw(const std::vector<te::Tensor>& outs);
/** dense (op tagged `dense`), optionally followed by bias / relu. */
te::Schedule schedule_dense(const std::vector<te::Tensor>& outs);
/** nn::dense_pack (op tagged `dense_pack`) with an optional fused injective epilogue: register
 *  tiles of dense_pack_row_tile(b) rows (or the largest divisor of the rows below it) by the
 *  packed block b, column panels outer. */
te::Schedule schedule_dense_pack(const std::vector<te::Tensor>& outs);
/** dense_pack's column block for this CPU (four vectors with AVX-512, two below: the packed
 *  weight's b) and the rows of its register tile for a block of b columns (the accumulators fill
 *  3/4 of the vector registers; at most 8 rows). */
int64_t dense_pack_block();
/** batch_matmul_pack's columns: padded to a multiple of batch_matmul_column_tile(N) (two vectors
 *  from 8 vectors of columns on, else one), then tiled by batch_matmul_column_block(padded): the
 *  widest of dense_pack_block(), its half or its quarter that divides them. */
int64_t batch_matmul_column_tile(int64_t cols);
int64_t batch_matmul_column_block(int64_t cols);
int64_t dense_pack_row_tile(int64_t block);
/** The row_tile to give nn::dense_pack / nn::batch_matmul_pack for `rows` rows and a column block:
 *  1 (no padding) when dense_pack_row_tile(block) divides the rows, else that tile. */
int64_t dense_pack_row_padding(int64_t rows, int64_t block);
/** relay's nn.softmax over the last axis (T_softmax_maxelem, T_softmax_exp, T_softmax_expsum,
 *  T_softmax_norm): rows in parallel, exp and divide vectorized. */
te::Schedule schedule_softmax_last_axis(const std::vector<te::Tensor>& outs);
/** nn::batch_matmul_pack with an optional fused injective epilogue. */
te::Schedule schedule_batch_matmul_pack(const std::vector<te::Tensor>& outs);
/** Winograd conv2d: the transform stages are computed at root in parallel. */
te::Schedule schedule_conv2d_winograd(const nn::WinogradTensors& w,
                                      const std::vector<te::Tensor>& outs);
/** TVM's x86 conv2d (AutoTVM task `conv2d_NCHWc.x86`, src/topi/cpu/conv2d_nchwc.cc): NCHW data
 *  and OIHW kernel packed into channel blocks, the blocked convolution, the result unpacked to
 * NCHW. */
struct Conv2dNCHWc {
  te::Tensor data_vec;    ///< data packed to NCHW[ic_bn]c
  te::Tensor kernel_vec;  ///< kernel packed to OIHW[ic_bn]i[oc_bn]o
  te::Tensor data_pad;    ///< data_vec padded, or a strided 1x1 kernel's input positions gathered
                          ///< into a compact map (data_vec itself otherwise)
  te::Tensor conv;        ///< NCHW[oc_bn]c result (tag conv2d_NCHWc)
  te::Tensor output;      ///< unpacked NCHW output (output_unpack)
};
Conv2dNCHWc conv2d_nchwc(const te::Tensor& data, const te::Tensor& kernel,
                         const nn::Conv2dAttrs& attrs, int64_t ic_bn, int64_t oc_bn);
/** The blocked convolution alone (TVM's nn.conv2d_NCHWc, what a network kept in NCHWc runs):
 *  data NCHW[ic_bn]c (5-D), kernel OIHW[ic_bn]i[oc_bn]o (6-D), output NCHW[oc_bn]c (`output` ==
 *  `conv`; data_vec/kernel_vec are the given tensors). Grouped (groups > 1): the kernel's I is
 *  the input channels of one group, and the blocks divide each group's input and output channels
 *  (data chunks and kernel output chunks are multiples of groups); output chunk k reads the
 *  input chunks of group k / (output chunks per group). data_channels (0: all) is the number of
 *  input channels that hold data, the rest of the data's blocks zero padding with zero weights
 *  (alter_op_layout's padded channels): the reduction leaves the padding out where it is an
 *  eighth of the channels or more and the real ones split into blocks of 4 or more. */
Conv2dNCHWc conv2d_nchwc_blocked(const te::Tensor& data, const te::Tensor& kernel,
                                 const nn::Conv2dAttrs& attrs, int64_t groups = 1,
                                 int64_t data_channels = 0);
/** The order of the loops around conv2d_NCHWc's register tile (src/topi/cpu/conv2d_nchwc.cc says
 *  why): TVM's (output-channel chunks outermost), output rows outermost when the input is larger
 *  than the weights, or one (batch, channel chunk) tile per task with the input-channel chunks
 *  outermost when the weights are larger and there are at least two tiles per thread — unless the
 *  kernel is spatial (kernel_hw = kh * kw > 1) and its weights at most twice the input: rows;
 *  or it is 1x1 and a task's bytes per input-channel chunk (chunk_bytes: its accumulators, and
 *  one chunk of its input and of the weights) exceed 32 KiB: TVM's; when they do not, rows
 *  of at least 14 columns (out_width) and weights (weight_bytes) in half of l2_bytes also take
 *  rows (0: no such rule). */
enum class NCHWcLoopOrder { kChannelsOuter, kRowsOuter, kReductionOuter };
NCHWcLoopOrder conv2d_nchwc_loop_order(int64_t data_elements, int64_t weight_elements,
                                       int64_t tiles, int64_t threads, int64_t kernel_hw = 1,
                                       int64_t chunk_bytes = 0, int64_t weight_bytes = 0,
                                       int64_t l2_bytes = 0, int64_t out_width = 0);
/** Output-channel chunks per register tile of a fallback conv2d_NCHWc (the "tile_oc_group" knob,
 *  1 without it): 2 to 4 for a 1x1 kernel on one-vector blocks (oc_bn == lanes) that are smaller
 *  than the preferred block (2 or 3 with fewer than 16 lanes, where a tile of 4 chunks keeps only
 *  8 accumulators), when they divide the chunks and leave two tasks per thread
 *  (tasks_per_chunk: the tasks each group of chunks is split into, its rows when rows run
 *  outermost). */
int64_t conv2d_nchwc_oc_group(int64_t channels, int64_t oc_bn, bool one_by_one,
                              int64_t preferred_block, int64_t lanes, int64_t threads,
                              int64_t tasks_per_chunk = 1);
/** A core's L2 in bytes (sysconf; 1 MiB where the system does not say). */
int64_t l2_cache_bytes();
/** The last-level cache one core shares with its neighbours, in bytes (Linux sysfs's cache of the
 *  highest level of cpu0; sysconf's L3 where sysfs says nothing; 0 where neither does). A VM may
 *  see the size of the whole cache that its cores share with other guests. */
int64_t last_level_cache_bytes();
/** Whether the host CPU is AMD's (where the L3 is a victim cache of the cores' L2s). */
bool host_cpu_is_amd();
/** For a 1x1 kernel that kRowsOuter would run: whether it runs in TVM's order (kChannelsOuter)
 *  instead, as an output-bound layer: at most 32 input channels (multiply-adds per output value)
 *  and an output of more than `threads` L2s, written as one contiguous run per thread. */
bool conv2d_nchwc_output_bound(int64_t in_channels, int64_t out_bytes, int64_t threads,
                               int64_t l2_bytes);
/** Within kRowsOuter, for a spatial kernel (kernel_hw = kh * kw > 1) over several input-channel
 *  chunks: the output rows per task (2-4) when each task is to run its block of rows with the
 *  input-channel chunks outermost, or 0 for whole rows with the full reduction per register tile.
 *  tasks_per_row_block = batch x output-channel chunks. */
int64_t conv2d_nchwc_row_block(int64_t kernel_hw, int64_t ic_chunks, int64_t out_rows,
                               int64_t tasks_per_row_block, int64_t threads);
/** Within kReductionOuter on a blocked output (a task per batch x output-channel chunk, `tiles`
 *  of them): the parts (2-4, dividing out_rows) each task's rows are split into so that the
 *  threads get equal shares, where `tiles` alone leaves one thread a tile more than another
 *  (27 chunks for 2 threads: 14 and 13); 1 where they are even already or no split evens them
 *  better. */
int64_t conv2d_nchwc_balance_parts(int64_t tiles, int64_t out_rows, int64_t threads);
/** Output rows per register tile of a conv2d_NCHWc in kReductionOuter order with one output
 *  chunk per tile: as many rows of ow_factor columns as the register columns hold (`columns`,
 *  register_columns_for_block), at most the task's `rows`; 1 for a grouped conv. A 7-wide map
 *  on two-vector blocks gets 2 rows of 7 (28 accumulators instead of 14), on one-vector blocks 4
 *  (the last tile of a 7-row map is one row shorter). */
int64_t conv2d_nchwc_tile_rows(int64_t columns, int64_t ow_factor, int64_t rows, bool grouped);
/** Whether a conv2d_NCHWc task in kReductionOuter order prefetches the next input-channel chunk's
 *  weights while it computes with the current one: weights of 4 MiB or more over at most 64
 *  output positions, and on AMD (amd: host_cpu_is_amd()) every 1x1 kernel. */
bool conv2d_nchwc_prefetch_weights(int64_t weight_bytes, int64_t out_positions, bool one_by_one,
                                   bool amd);
/** A layout transform of the blocked conv2d: name ("pack_data", "pack_kernel", "unpack_output"),
 *  its schedule and arguments (input, output). */
struct NCHWcTransform {
  std::string name;
  te::Schedule schedule;
  std::vector<te::Tensor> args;
};
/** The three layout transforms between NCHW/OIHW and the blocked layouts of (ic_bn, oc_bn). */
std::vector<NCHWcTransform> conv2d_nchwc_transforms(const std::vector<int64_t>& data_shape,
                                                    const std::vector<int64_t>& kernel_shape,
                                                    const nn::Conv2dAttrs& attrs, int64_t ic_bn,
                                                    int64_t oc_bn);
/** Workload key ("conv2d_NCHWc.x86", data, kernel, strides, padding(4), dilation, "NCHW", "NCHW",
 * dtype). */
autotune::Json conv2d_nchwc_workload(const std::vector<int64_t>& data_shape,
                                     const std::vector<int64_t>& kernel_shape,
                                     const nn::Conv2dAttrs& attrs);
/** TVM's space: tile_ic, tile_oc, tile_ow (inner <= 64, verbose), then unroll_kw or (1x1) tile_oh.
 */
void define_conv2d_nchwc_space(autotune::SpaceDefiner& cfg, const std::vector<int64_t>& data_shape,
                               const std::vector<int64_t>& kernel_shape,
                               const nn::Conv2dAttrs& attrs);
/** The channel blocks of a blocked grouped conv2d_NCHWc (alter_op_layout's) and its groups. */
struct GroupedBlocks {
  int64_t groups = 1;
  int64_t ic_bn = 0;
  int64_t oc_bn = 0;
};
/** TVM's _fallback_schedule (conv2d_avx_common / conv2d_avx_1x1) with the host's float32 lanes.
 *  A blocked grouped conv passes its groups and blocks: data_shape then has one group's input
 *  channels (the kernel's I), kernel_shape all output channels. */
void conv2d_nchwc_fallback(autotune::ConfigEntity& cfg, const std::vector<int64_t>& data_shape,
                           const std::vector<int64_t>& kernel_shape, const nn::Conv2dAttrs& attrs,
                           const GroupedBlocks* grouped = nullptr);
/** Input-channel chunks (of ic_bn channels) per pass over a register tile's accumulators of a
 *  1x1 conv2d_NCHWc in the reduction-outer order: for tiles of several output chunks
 *  (oc_group >= 2) the largest divisor of ic_chunks up to 128 channels' worth of chunks (at
 *  least 4 chunks), else 1 (one chunk per pass). */
int64_t conv2d_nchwc_ic_chunks_per_pass(int64_t ic_chunks, int64_t oc_group, int64_t ic_bn);
/** Output-channel chunks per register tile of a fallback blocked grouped conv with a spatial
 *  kernel (the "tile_oc_group" knob), on one-vector blocks (oc_bn == lanes): the largest of 4, 3,
 *  2 that divides a group's output chunks and leaves two tasks per thread (tasks_per_chunk as for
 *  conv2d_nchwc_oc_group), else 5 or 7 that does; the chunks of a tile then read the input once.
 *  On AMD's cores (amd) only 4, 3 or 2, and only with stride 2 or more where one group's padded
 *  input is more than half an L2 (it would be streamed again for each chunk of the group). 1
 *  otherwise. */
int64_t conv2d_nchwc_group_tile(int64_t chunks, int64_t group_chunks, int64_t stride,
                                int64_t group_input_bytes, int64_t l2_bytes, int64_t oc_bn,
                                int64_t lanes, int64_t threads, int64_t tasks_per_chunk = 1,
                                bool amd = host_cpu_is_amd());
/** The config of a conv2d layer on `target` (llvm): the current dispatch context's answer for its
 *  0.1 key or its conv2d_NCHWc.x86 key, else the fallback above. What build_conv2d, relay's
 *  alter_op_layout (the channel blocks) and relay::build (the schedule) use. */
struct NCHWcChoice {
  autotune::ConfigEntity cfg;
  autotune::Json workload;  ///< the key that was queried / answered
  bool is_fallback = true;
  int64_t ic_bn = 1, oc_bn = 1;
};
NCHWcChoice conv2d_nchwc_config(const autotune::Target& target,
                                const std::vector<int64_t>& data_shape,
                                const std::vector<int64_t>& kernel_shape,
                                const nn::Conv2dAttrs& attrs);
/** TVM's _schedule_conv_NCHWc for the NCHW-in / NCHW-out path; `cfg` a point of the space above
 *  whose tile_ic/tile_oc inner sizes are the blocks `t` was computed with. */
te::Schedule schedule_conv2d_nchwc(const autotune::ConfigEntity& cfg, const Conv2dNCHWc& t);
/** The blocked convolution inside a fused group (what relay runs for nn.contrib_conv2d_NCHWc):
 *  `outs[0]` is the group's output, the conv2d_NCHWc stage or an injective epilogue over it (bias,
 *  scale/shift, relu/clip, a residual add; inlined), 5-D NCHW[oc_bn]c or unpacked 4-D NCHW. `cfg`
 * is a point of conv2d_NCHWc.x86's space whose tile_ic / tile_oc inner sizes are the blocks. */
te::Schedule schedule_conv2d_nchwc_fused(const autotune::ConfigEntity& cfg,
                                         const std::vector<te::Tensor>& outs);
/** TVM's x86 depthwise_conv2d_NCHWc: data NCHW[x]c (5-D), kernel OIHW1i[x]o of shape
 *  (C/x, 1, kh, kw, 1, x), output NCHW[x]c (tag depthwise_conv2d_NCHWc). */
struct DepthwiseNCHWc {
  te::Tensor data_pad;  ///< padded data (the data itself without padding)
  te::Tensor conv;      ///< the blocked result
  te::Tensor output;    ///< == conv
};
DepthwiseNCHWc depthwise_conv2d_nchwc(const te::Tensor& data, const te::Tensor& kernel,
                                      const nn::Conv2dAttrs& attrs);
/** Its schedule inside a fused group (`outs[0]`: the convolution or a 5-D injective epilogue). */
te::Schedule schedule_depthwise_conv2d_nchwc(const std::vector<te::Tensor>& outs);
/** The register tile of depthwise_conv2d_NCHWc's schedule: `columns` output columns of one
 *  channel block (a divisor of the width), and whether the kernel row is unrolled. Unrolled, the
 *  row's kw weight vectors share the vector registers (32 with AVX-512, 16 with AVX2) with the
 *  accumulators, an input vector and a spare, so the tile takes what they leave (AVX-512: 3x3 on
 *  two-vector blocks up to 12 columns, on one-vector blocks up to 27); a row that leaves fewer
 *  than 4 columns stays rolled with register_columns_for_block's tile. */
struct DepthwiseTile {
  int64_t columns = 1;
  bool unroll_kw = false;
};
DepthwiseTile depthwise_register_tile(int64_t out_w, int64_t kernel_w, int64_t block);
/** Winograd F(m, 3) conv2d on blocked layouts (src/topi/cpu/winograd_nchwc.cc): data NCHW[ib]c
 *  (5-D), the weight transformed at build time by conv2d_winograd_nchwc_weight_transform to
 *  (alpha, alpha, O/ob, I/ib, ib, ob), output NCHW[ob]c (tag conv2d_winograd_NCHWc). Stride 1,
 *  dilation 1, 3x3 kernels; any padding. A grouped conv's weight is (alpha, alpha, O/ob,
 *  I/groups/ib, ib, ob): each group's blocks hold whole channel blocks of its own. */
struct WinogradNCHWc {
  te::Tensor weight;        ///< the transformed weight
  te::Tensor input_rows;    ///< the input transform's first (row) pass
  te::Tensor input;         ///< V: (alpha, alpha, I/ib, tiles, ib)
  te::Tensor product;       ///< M: (alpha, alpha, O/ob, tiles, ob)
  te::Tensor output_rows;   ///< the output transform's first pass
  te::Tensor output_tiles;  ///< Y: (O/ob, tiles, m, m, ob)
  te::Tensor output;        ///< NCHW[ob]c
  int64_t m = 0, alpha = 0, tiles = 0;
};
/** U = G g G^T of an OIHW 3x3 kernel, blocked (alpha, alpha, O/oc_bn, I/ic_bn, ic_bn, oc_bn). */
te::Tensor conv2d_winograd_nchwc_weight_transform(const te::Tensor& kernel, int64_t m,
                                                  int64_t ic_bn, int64_t oc_bn);
WinogradNCHWc conv2d_winograd_nchwc(const te::Tensor& data, const te::Tensor& weight,
                                    const std::vector<int64_t>& padding, int64_t m,
                                    int64_t groups = 1);
/** The output tile m for a layer of that output size (4 on maps of 24 and more, else 2). */
int64_t winograd_nchwc_tile(int64_t out_h, int64_t out_w);
/** The output tile m for a full (groups 1) 3x3 stride-1 layer, or 0 where it stays direct: from
 *  32 input and output channels on maps of 8 and more, and on AMD's cores (host_cpu_is_amd) on
 *  7x7 maps from 64 input channels. */
int64_t winograd_nchwc_conv_tile(int64_t out_h, int64_t out_w, int64_t in_channels,
                                 int64_t out_channels);
/** The output tile m for a grouped layer whose groups have `group_channels` input channels, or
 *  0 where it stays direct: 4 on maps of 24 and more, and on AMD's cores (amd) from 12 where
 *  groups have 48 channels or more; 2 on maps of 8 to 23 otherwise, and on 7x7 maps with groups
 *  of 64 or more. */
int64_t winograd_nchwc_group_tile(int64_t out_h, int64_t out_w, int64_t group_channels,
                                  bool amd = host_cpu_is_amd());
te::Schedule schedule_conv2d_winograd_nchwc(const WinogradNCHWc& t);
/** Inside a fused group: `outs[0]` the convolution or a 5-D injective epilogue over it. */
te::Schedule schedule_conv2d_winograd_nchwc_fused(const std::vector<te::Tensor>& outs);
/** The host's float32 vector lanes (TVM's get_fp32_len: 16 with AVX-512, else 8). */
int64_t fp32_lanes();
/** The most output columns the fallback keeps as register accumulators of one channel block:
 *  TVM's 31 with AVX-512's 32 vector registers; 14 with 16 (AVX2), so that the accumulators, the
 *  kernel vector and the broadcast input fit without spilling. */
int64_t conv2d_nchwc_register_columns();
/** The channel block the x86 fallback prefers: two vectors on Intel's AVX-512 cores (32 lanes)
 *  and with AVX2 (16), one vector on AMD's AVX-512 cores. On Intel the adds share the FMA ports,
 *  and a 32-block halves the broadcast loads per multiply-add (ResNet-50 on a 2-core Xeon: 39.5 ->
 *  36.3 ms, VGG-16 140 -> 129 ms); on Zen 4 (separate add pipes) the 16-block was the faster one.
 *  AVX2 has no broadcast operand: a one-vector tile of 14 columns issues a broadcast load per
 *  multiply-add and ran at 55 % of a Zen 3 core's peak, 6 columns of two vectors at 95 %
 *  (ResNet-50 52 -> 47 ms, Inception-v3 78 -> 67 ms on 2 Zen 3 cores). */
int64_t preferred_channel_block();
/** The fallback's block for `channels`: the preferred block when it divides them, else the
 *  largest divisor up to one vector. */
int64_t channel_block(int64_t channels);
/** The register columns for a block of `block` lanes: conv2d_nchwc_register_columns() divided
 *  by the vectors one column of the block takes (AVX-512), or what AVX2's 16 registers hold
 *  besides the block's kernel vectors and the broadcast: 14 columns of one vector, 6 of two. */
int64_t register_columns_for_block(int64_t block);
/** Injective ops (elementwise, broadcast, flatten, batch norm): fuse, parallel, vectorize. */
te::Schedule schedule_injective(const std::vector<te::Tensor>& outs);
/** Softmax (the four T_softmax_* stages). */
te::Schedule schedule_softmax(const std::vector<te::Tensor>& outs);

}  // namespace minitvm::topi::cpu
