/** \file
 * TVM's CUDA schedule templates for conv2d (direct, winograd), depthwise conv2d and dense
 * (spec 5.a-5.d), driven by an AutoTVM ConfigEntity.
 *
 * Each schedule_* first defines the template's knobs on `cfg` (autotune/template_spaces.h: same
 * names, order and candidates as TVM); on a fallback config this collects the space and the
 * template's fallback rule is applied (reference log for direct/depthwise, fixed sizes for dense).
 * The knobs are then applied as TVM does: SplitEntity = first size ignored, later sizes as split
 * factors; binds to blockIdx/vthread/threadIdx; shared/local caches; cooperative fetching; the
 * `auto_unroll_max_step` / `unroll_explicit` pragmas on the kernel-scope axis.
 *
 * Workloads: conv2d_workload() etc. give the 0.1 key (`("conv2d", (1, 64, 56, 56, 'float32'), ...)`,
 * TVM <= v0.6 logs) and the 0.2 key (`("conv2d_nchw.cuda", ("TENSOR", ...), ...)`, v0.7+ logs).
 * dispatch() asks the current DispatchContext for the first key a loaded log knows, else the
 * primary key (so ApplyConfig answers, or the root context's fallback).
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
#include "minitvm/autotune/template_spaces.h"
#include "minitvm/te/schedule.h"
#include "minitvm/topi/nn.h"

namespace minitvm::topi::cuda {

using autotune::ConfigEntity;
using autotune::Json;
using autotune::Target;

/** conv2d direct (5.a). `outs[0]` is the final op (a fused injective epilogue is allowed). */
te::Schedule schedule_conv2d_nchw_direct(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                                         const autotune::ConvGeometry& g, const Target& target);
/** conv2d winograd (5.b), kernel transform not pre-computed. */
te::Schedule schedule_conv2d_winograd(const nn::WinogradTensors& w, const std::vector<te::Tensor>& outs,
                                      ConfigEntity& cfg, const autotune::ConvGeometry& g, const Target& target);
/** depthwise conv2d NCHW (5.c). */
te::Schedule schedule_depthwise_conv2d_nchw(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                                            const autotune::ConvGeometry& g, const Target& target);
/** dense (5.d): batch < 32 small-batch template, else large-batch. */
te::Schedule schedule_dense(const std::vector<te::Tensor>& outs, ConfigEntity& cfg, const autotune::DenseGeometry& g,
                            const Target& target);

/** Workload keys of a layer, in the order dispatch() tries them. */
struct Workloads {
  Json v01;                 ///< TVM <= v0.6 key (primary)
  std::vector<Json> v02;    ///< v0.7+ keys (conv2d: direct then winograd task)
};
Workloads conv2d_workloads(const std::vector<int64_t>& data_shape, const std::vector<int64_t>& kernel_shape,
                           const nn::Conv2dAttrs& attrs);
Workloads depthwise_workloads(const std::vector<int64_t>& data_shape, const std::vector<int64_t>& kernel_shape,
                              const nn::Conv2dAttrs& attrs);
Workloads dense_workloads(int64_t batch, int64_t in_dim, int64_t out_dim, bool bias,
                          DataType out_dtype = DataType::Float(32));

/** The config chosen for a layer and where it came from. */
struct Dispatched {
  autotune::ConfigPtr cfg;
  Json workload;                          ///< the key that answered
  const autotune::Record* record = nullptr;  ///< the log record, when one answered
  /** Template key: "direct" or "winograd" (from the record; v0.2 task name; "direct" otherwise). */
  std::string template_key = "direct";
};
/** Query the current dispatch context (see the file comment). */
Dispatched dispatch(const Target& target, const Workloads& wl);

}  // namespace minitvm::topi::cuda
