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

#include <vector>

#include "minitvm/te/schedule.h"
#include "minitvm/topi/nn.h"

namespace minitvm::topi::cpu {

/** conv2d NCHW (op tagged `conv2d_nchw`) with an optional fused injective epilogue. */
te::Schedule schedule_conv2d_nchw(const std::vector<te::Tensor>& outs);
/** depthwise conv2d NCHW (op tagged `depthwise_conv2d_nchw`). */
te::Schedule schedule_depthwise_conv2d_nchw(const std::vector<te::Tensor>& outs);
/** dense (op tagged `dense`), optionally followed by bias / relu. */
te::Schedule schedule_dense(const std::vector<te::Tensor>& outs);
/** Winograd conv2d: the transform stages are computed at root in parallel. */
te::Schedule schedule_conv2d_winograd(const nn::WinogradTensors& w, const std::vector<te::Tensor>& outs);
/** Injective ops (elementwise, broadcast, flatten, batch norm): fuse, parallel, vectorize. */
te::Schedule schedule_injective(const std::vector<te::Tensor>& outs);
/** Softmax (the four T_softmax_* stages). */
te::Schedule schedule_softmax(const std::vector<te::Tensor>& outs);

}  // namespace minitvm::topi::cpu
