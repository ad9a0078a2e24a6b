/** \file
 * Layer workload keys and the dispatch-context query, shared by the CUDA templates
 * (cuda_schedule.h) and TVM's x86 conv2d template (cpu_schedule.h).
 *
 * conv2d_workloads() etc. give the 0.1 key (`("conv2d", (1, 64, 56, 56, 'float32'), ...)`, TVM <=
 * v0.6 logs; the same key for every target) and the CUDA 0.2 keys (`("conv2d_nchw.cuda", ("TENSOR",
 * ...),
 * ...)`, v0.7+ logs); a caller may replace the 0.2 keys with its target's task (the x86 template
 * uses `conv2d_NCHWc.x86`). dispatch() asks the current DispatchContext for the first key a loaded
 * log knows, else the primary key (so ApplyConfig answers, or the root context's fallback).
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/topi/nn.h"

namespace minitvm::topi {

using autotune::Json;

/** Workload keys of a layer, in the order dispatch() tries them. */
struct Workloads {
  Json v01;               ///< TVM <= v0.6 key (primary)
  std::vector<Json> v02;  ///< v0.7+ keys (conv2d: direct then winograd task)
};
Workloads conv2d_workloads(const std::vector<int64_t>& data_shape,
                           const std::vector<int64_t>& kernel_shape, const nn::Conv2dAttrs& attrs);
Workloads depthwise_workloads(const std::vector<int64_t>& data_shape,
                              const std::vector<int64_t>& kernel_shape,
                              const nn::Conv2dAttrs& attrs);
/** Grouped conv2d: 0.1 `("group_conv2d_nchw", data, kernel, strides, padding, dilation, groups,
 *  out_dtype)`, 0.2 `group_conv2d_nchw.cuda` (padding 4 values). */
Workloads group_conv2d_workloads(const std::vector<int64_t>& data_shape,
                                 const std::vector<int64_t>& kernel_shape,
                                 const nn::Conv2dAttrs& attrs, int64_t groups);
Workloads dense_workloads(int64_t batch, int64_t in_dim, int64_t out_dim, bool bias,
                          DataType out_dtype = DataType::Float(32));

/** The config chosen for a layer and where it came from. */
struct Dispatched {
  autotune::ConfigPtr cfg;
  Json workload;                             ///< the key that answered
  const autotune::Record* record = nullptr;  ///< the log record, when one answered
  /** Template key: "direct" or "winograd" (from the record; v0.2 task name; "direct" otherwise). */
  std::string template_key = "direct";
};
/** Query the current dispatch context (see the file comment). */
Dispatched dispatch(const autotune::Target& target, const Workloads& wl);

}  // namespace minitvm::topi
