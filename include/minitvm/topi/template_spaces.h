/** \file
 * Knob definitions (names, order, policies, candidates) of TVM's CUDA schedule templates, as pure
 * functions of the workload shape (TVM v0.6's CUDA templates, docs/AUTOTVM.md). The schedule
 * templates of topi call these so that their spaces — and therefore the flat indices of TVM's
 * records — match TVM exactly. They are registered under their task names with
 * autotune::register_template_space: the record loader checks config indices through
 * autotune::template_space, and the tests re-derive `"e"` from
 * `"i"` with it.
 */
#pragma once

#include <optional>
#include <string>

#include "minitvm/autotune/space.h"
#include "minitvm/autotune/target.h"

namespace minitvm::topi {

/** NCHW conv2d (or depthwise) geometry read from a workload. */
struct ConvGeometry {
  int64_t n = 0, ci = 0, h = 0, w = 0;  ///< data
  int64_t co = 0, kh = 0, kw = 0;       ///< output channels (depthwise: C * multiplier), kernel
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t dil_h = 1, dil_w = 1;
  int64_t oh = 0, ow = 0;  ///< output size
  int64_t groups = 1;      ///< grouped conv2d: ci and co divide into this many groups
};

/** Dense geometry: data (batch, in_dim), weight (out_dim, in_dim). */
struct DenseGeometry {
  int64_t batch = 0, in_dim = 0, out_dim = 0;
};

/**
 * Geometry of a conv2d / depthwise workload in either format: 0.1 `("conv2d", data, kernel,
 * strides, padding, [dilation,] "NCHW", out_dtype)` (cuda_v0.01–v0.03 have no dilation), 0.1
 * `("depthwise_conv2d_nchw", data, kernel, strides, padding, [dilation,] out_dtype)`, or 0.2
 * `("conv2d_nchw.cuda" | "conv2d_nchw_winograd.cuda" | "depthwise_conv2d_nchw.cuda",
 * ["TENSOR",...],
 * ["TENSOR",...], strides, padding, dilation, out_dtype)`, or grouped conv2d `("group_conv2d_nchw"
 * | "group_conv2d_nchw.cuda", data, kernel, strides, padding, dilation, groups, out_dtype)` (kernel
 * (CO, CI / groups, KH, KW); `groups` set). Padding: 2 values mean (pad_h, pad_w) on
 * both sides (TVM v0.6 `get_pad_tuple`), 4 values (top, left, bottom, right). nullopt when the
 * workload is not such a conv or its numbers are out of range.
 */
std::optional<ConvGeometry> conv_geometry(const autotune::Json& workload);
/** Geometry of `("dense", data, weight, bias, out_dtype)` or `("dense_*.cuda", ...)`. */
std::optional<DenseGeometry> dense_geometry(const autotune::Json& workload);

/** `unroll_explicit` candidates: [1] for nvptx/rocm targets, else [0, 1]. */
std::vector<autotune::Json> unroll_explicit_candidates(const autotune::Target& target);

/** conv2d_nchw direct: tile_f, tile_y, tile_x (4 outputs), tile_rc, tile_ry, tile_rx (2),
 *  auto_unroll_max_step [0, 512, 1500], unroll_explicit. */
void define_conv2d_direct_space(autotune::SpaceDefiner& cfg, const ConvGeometry& g,
                                const autotune::Target& target);
/** conv2d winograd: tile_b (alpha^2, one entity), tile_y (CO), tile_x (P), tile_rc (CI),
 *  auto_unroll_max_step [0, 128, 1500], unroll_explicit. Tile m = 4 if H % 8 == 0 else 2. */
void define_conv2d_winograd_space(autotune::SpaceDefiner& cfg, const ConvGeometry& g,
                                  const autotune::Target& target);
/** Winograd output tile size m for input height h (TVM `_infer_tile_size`). */
int64_t winograd_tile_size(int64_t h);
/** depthwise_conv2d_nchw: tile_f, tile_y, tile_x, auto_unroll_max_step [0, 256, 1500],
 *  unroll_explicit. */
void define_depthwise_space(autotune::SpaceDefiner& cfg, const ConvGeometry& g,
                            const autotune::Target& target);
/** group_conv2d_nchw.cuda (TVM v0.7 `_schedule_group_conv2d_nchw_direct`): tile_n (N, 4), tile_g
 *  (groups, 2), tile_f (CO / groups, 4), tile_y, tile_x (4), tile_rc (CI / groups, 2), tile_ry,
 *  tile_rx (2), auto_unroll_max_step [0, 512, 1500], unroll_explicit, fuse_yx [0, 1]. */
void define_group_conv2d_space(autotune::SpaceDefiner& cfg, const ConvGeometry& g,
                               const autotune::Target& target);
/** dense small batch: tile_k (in_dim, 2 outputs). */
void define_dense_small_batch_space(autotune::SpaceDefiner& cfg, const DenseGeometry& g);
/** dense large batch: tile_x (batch, 4), tile_y (out_dim, 4), tile_k (in_dim, 3), without
 *  filters (TVM's filtered space is always empty, so it always falls back to these). */
void define_dense_large_batch_space(autotune::SpaceDefiner& cfg, const DenseGeometry& g);

}  // namespace minitvm::topi
