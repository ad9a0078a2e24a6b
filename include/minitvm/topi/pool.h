/** \file
 * Pooling operators (TOPI): tensor-expression computes built from a resolved PoolPlan
 * (topi/pool_plan.h), their CPU schedule templates (AutoTVM templates, see docs/POOLING.md
 * "Kernels"), and `build_pool`, which schedules, lowers and compiles one plan for a target.
 *
 * Tensors are always batched here: an unbatched plan uses N = 1 (the memory layout is the same;
 * PoolPlan::batched_input_shape).
 * ChannelsFirst tensors are [N, C, spatial...], ChannelsLast [N, spatial..., C].
 *
 * Forward: max (NaN wins, ties keep the first maximum, the first in-range tap is the initial
 * index; padding is skipped through the reduction's condition), avg (every divisor rule, int64
 * with truncating division), adaptive avg/max, lp (PyTorch and ONNX rules). Padded reads of
 * avg/lp go through an inlined `pad_temp` stage (if_then_else of a clamped read).
 *
 * Backward is a gather: each input gradient sums, in output order, the contributions of the
 * windows that contain it (for max: only windows whose index names it). When no two windows
 * overlap (stride >= kernel on every axis) there is no reduction at all: each input gradient is
 * one select, written once. No scatter, no atomics.
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/space.h"
#include "minitvm/ir/stmt.h"
#include "minitvm/runtime/module.h"
#include "minitvm/te/schedule.h"
#include "minitvm/te/tensor.h"
#include "minitvm/topi/pool_plan.h"

namespace minitvm::topi {

/** Which pass a kernel computes. */
enum class PoolDirection { Forward, Backward };

/** The tensors of a forward pool. `indices` (output shape, pool_index_dtype(plan): int64, or
 * uint8 window taps) is defined when requested. */
struct PoolForward {
  te::Tensor input;
  te::Tensor output;
  te::Tensor indices;
};

/** Forward compute of a plan on `input` (batched shape, plan dtype). With `with_indices` (max
 * modes only) the output and indices are the two outputs of one reduction; indices follow
 * plan.index_base. With `argmax_in_lanes` as well, that reduction is a stage of its own,
 * "pool_argmax_taps" (window taps carried in int32 there), which a schedule attaches inside the
 * output's loops so that its accumulators stay in registers, and a second stage writes the value
 * and the index (narrowed to uint8 for taps). The CPU template asks for it: reducing straight into
 * the outputs stored both after every tap (partial vectors of bytes for the taps) and loaded them
 * back. */
PoolForward pool_forward(const PoolPlan& plan, const te::Tensor& input, bool with_indices,
                         bool argmax_in_lanes = false);

/** The tensors of a backward pool. */
struct PoolBackward {
  te::Tensor grad_output;
  te::Tensor input;    ///< defined for lp (the forward input is needed)
  te::Tensor indices;  ///< defined for max modes: per-plane (PyTorch) indices or window taps
  te::Tensor grad_input;
  /** Arguments of the compiled function, in order: grad_output, [input], [indices], grad_input. */
  std::vector<te::Tensor> args() const;
};

/** Backward (gather) compute of a plan. Max modes read per-plane indices (IndexBase::PerPlane
 * numbering for every plan.index_base but WindowTap, whose one-byte taps are read as such); lp
 * reads the input. Throws CompileError for integer dtypes and for WindowTap plans that cannot
 * use it (check_window_tap). */
PoolBackward pool_backward(const PoolPlan& plan);

/** True when no input element lies in two windows (every axis fixed with stride >= effective
 * kernel): the backward is then a single select per input element. */
bool pool_windows_disjoint(const PoolPlan& plan);

/** AutoTVM task name of a plan's CPU template, e.g. "pool2d_nchw_fwd.llvm". */
std::string pool_task_name(const PoolPlan& plan, PoolDirection dir);
/** Workload of a plan (TVM v0.2 style): (task_name, ("TENSOR", input shape, dtype), mode,
 * kernel, stride, pad_begin, pad_end, dilation, adaptive output, extra) — see docs/POOLING.md. */
autotune::Json pool_workload(const PoolPlan& plan, PoolDirection dir);

/** Define the knobs of the CPU template on `cfg` (space collection or a concrete config). */
void define_pool_cpu_space(autotune::SpaceDefiner& cfg, const PoolPlan& plan, PoolDirection dir);
/** Overwrite a fallback config's knobs with the hand-picked defaults for this plan. */
void pool_cpu_fallback(autotune::ConfigEntity& cfg, const PoolPlan& plan, PoolDirection dir);

/** Schedule the CPU template: `outputs` are the computes to schedule (forward: output [+
 * indices]; backward: grad_input), `cfg` a config of define_pool_cpu_space's space. */
te::Schedule schedule_pool_cpu(const autotune::ConfigEntity& cfg, const PoolPlan& plan,
                               PoolDirection dir, const std::vector<te::Tensor>& outputs);

/** AutoTVM task name of a plan's CUDA template, e.g. "pool2d_nchw_fwd.cuda". */
std::string pool_cuda_task_name(const PoolPlan& plan, PoolDirection dir);
/** Workload of the CUDA template: pool_workload with the CUDA task name. */
autotune::Json pool_cuda_workload(const PoolPlan& plan, PoolDirection dir);

/** Define the knobs of the CUDA template on `cfg`, in this order: `threads` (threads per block,
 * 64..1024), `per_thread` (outputs — backward: input gradients — per thread, 1/2/4/8, strided by
 * the block size so that stores stay coalesced), `unroll_win` (unroll the window loops, 0/1). */
void define_pool_cuda_space(autotune::SpaceDefiner& cfg, const PoolPlan& plan, PoolDirection dir);
/** Overwrite a fallback config's knobs with the CUDA defaults: 256 threads, 1-4 elements per
 * thread (as many as keep >= 1024 blocks), window unrolled unless it has more than 64 taps. */
void pool_cuda_fallback(autotune::ConfigEntity& cfg, const PoolPlan& plan, PoolDirection dir);
/** The config of the CUDA template for `target`: DispatchContext::current()'s answer for
 * pool_cuda_workload(plan, dir), or pool_cuda_fallback when it has none (bare root context: the
 * fallback directly). */
autotune::ConfigEntity pool_cuda_config(const PoolPlan& plan, PoolDirection dir,
                                        const std::string& target);

/** Schedule the CUDA template (see docs/POOLING.md "CUDA schedules"): the output's data axes are
 * fused and split into (block, per-thread, thread); window sums (pool_sum, the float32 grad_acc
 * of 16-bit backwards) are attached per element in local memory; lp helper stages get one
 * thread per element. `outputs` as for schedule_pool_cpu. */
te::Schedule schedule_pool_cuda(const autotune::ConfigEntity& cfg, const PoolPlan& plan,
                                PoolDirection dir, const std::vector<te::Tensor>& outputs);

/** A compiled pool kernel. */
struct PooledKernel {
  runtime::Module module;
  std::string func_name;
  /** Function arguments in call order. Forward: input, output, [indices]. Backward: see
   * PoolBackward::args(). */
  std::vector<te::Tensor> args;
  bool with_indices = false;  ///< forward: the function also writes indices
  autotune::Json workload;
  autotune::ConfigEntity config;  ///< the config that was applied
  ir::PrimFunc lowered;
};

/** Options of build_pool. */
struct BuildPoolOptions {
  bool with_indices = false;  ///< forward of max modes: also output indices
  /** Use this config instead of querying the dispatch context. */
  const autotune::ConfigEntity* config = nullptr;
  /** Name of the compiled function (default "pool_fwd" / "pool_bwd"); kernels compiled into one
   * module by build_pool_batch need distinct names. */
  std::string func_name;
};

/**
 * Schedule, lower and compile one plan. target: "llvm" (the CPU template; config from
 * DispatchContext::current() for pool_workload(plan, dir), fallback when none) or
 * "cuda -emulate" / "cuda" (a simple one-thread-per-output schedule, built when the CUDA backend
 * is available). Throws CompileError for unsupported plans (integer backward, float16 on llvm).
 */
PooledKernel build_pool(const PoolPlan& plan, const std::string& target, PoolDirection dir,
                        const BuildPoolOptions& opt = {});

/** build_pool without the compilation: the kernel is scheduled and lowered (`lowered`, `args`,
 * `config`, ...) but `module` is left undefined. */
PooledKernel lower_pool(const PoolPlan& plan, const std::string& target, PoolDirection dir,
                        const BuildPoolOptions& opt = {});

/** Compile lowered kernels (lower_pool, distinct function names) into one module for `target` and
 * set each kernel's `module`. One code generation and JIT pass for all of them: much cheaper than
 * one build_pool per kernel when many small kernels are needed (test suites). */
void build_pool_batch(const std::vector<PooledKernel*>& kernels, const std::string& target);

}  // namespace minitvm::topi
