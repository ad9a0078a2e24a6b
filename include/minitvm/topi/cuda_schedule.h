/** \file
 * TVM's CUDA schedule templates for conv2d (direct, winograd), depthwise conv2d and dense
 * (TVM v0.6 topi/cuda; docs/TOPI.md), driven by an AutoTVM ConfigEntity.
 *
 * Each schedule_* first defines the template's knobs on `cfg` (topi/template_spaces.h: same
 * names, order and candidates as TVM); on a fallback config this collects the space and the
 * template's fallback rule is applied (reference log for direct/depthwise, fixed sizes for dense).
 * The knobs are then applied as TVM does: SplitEntity = first size ignored, later sizes as split
 * factors; binds to blockIdx/vthread/threadIdx; shared/local caches; cooperative fetching; the
 * `auto_unroll_max_step` / `unroll_explicit` pragmas on the kernel-scope axis.
 *
 * Workloads and dispatch(): topi/dispatch.h (shared with the x86 conv2d template).
 *
 * Deviations from TVM (the core compiler has no rfactor / cross-thread allreduce / double_buffer):
 * dense small batch keeps the `tile_k` knob and its fallback, but instead of rfactor + a kf-thread
 * allreduce per output (grid (out_dim, batch)), the kf threads of a block compute kf consecutive
 * outputs (grid (ceil(out_dim / kf), batch), block (kf)), each reducing over the whole in_dim with
 * the reduction split by tile_k; dense large batch does not double-buffer its shared tiles.
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/te/schedule.h"
#include "minitvm/topi/dispatch.h"
#include "minitvm/topi/nn.h"
#include "minitvm/topi/template_spaces.h"

namespace minitvm::topi::cuda {

using autotune::ConfigEntity;
using autotune::Json;
using autotune::Target;

/** conv2d direct (5.a). `outs[0]` is the final op (a fused injective epilogue is allowed). */
te::Schedule schedule_conv2d_nchw_direct(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                                         const topi::ConvGeometry& g, const Target& target);
/** conv2d winograd (5.b); with `w.pre_computed` (the kernel transformed at build time) there is no
 *  kernel transform stage, as TVM's template with pre_computed. */
te::Schedule schedule_conv2d_winograd(const nn::WinogradTensors& w,
                                      const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                                      const topi::ConvGeometry& g, const Target& target);
/** depthwise conv2d NCHW (5.c). */
te::Schedule schedule_depthwise_conv2d_nchw(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                                            const topi::ConvGeometry& g, const Target& target);
/** grouped conv2d NCHW (TVM v0.7 `group_conv2d_nchw.cuda`, op tagged `group_conv2d_nchw`;
 * `g.groups` set, see topi::define_group_conv2d_space). No TopHub log holds this template: the
 * fallback is a fixed fit (tile_f [.., 1, <=8, <=2], tile_y [.., 1, <=4, 1], tile_x [.., 1, <=16,
 * 1], tile_rc [.., <=8], the whole kernel window per shared stage, auto_unroll_max_step 512,
 *  fuse_yx 0). */
te::Schedule schedule_group_conv2d_nchw(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                                        const topi::ConvGeometry& g, const Target& target);
/** dense (5.d): batch < 32 small-batch template, else large-batch. */
te::Schedule schedule_dense(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                            const topi::DenseGeometry& g, const Target& target);
/** dense with the template chosen by the caller (the tuning tasks dense_small_batch.cuda and
 *  dense_large_batch.cuda exist for every batch). */
te::Schedule schedule_dense(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                            const topi::DenseGeometry& g, const Target& target,
                            bool small_batch_template);

// The layer workload keys and dispatch() (topi/dispatch.h) are target-neutral; the CUDA code and
// its users name them through this namespace as before.
using topi::conv2d_workloads;
using topi::dense_workloads;
using topi::depthwise_workloads;
using topi::dispatch;
using topi::Dispatched;
using topi::group_conv2d_workloads;
using topi::Workloads;

}  // namespace minitvm::topi::cuda
