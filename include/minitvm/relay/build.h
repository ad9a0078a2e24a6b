/** \file
 * relay::build: optimise a graph function, fuse it, lower every fused group with topi's computes
 * and the schedule the current AutoTVM dispatch context picks, compile all kernels into one
 * Module, and write TVM v0.6's graph JSON with its params.
 *
 *   auto [mod, params] = relay::testing::resnet(50, 1);
 *   auto best = autotune::tophub::context("cuda");
 *   autotune::DispatchScope scope(*best);
 *   relay::Built lib = relay::build(mod, "cuda", params);
 *   std::cout << lib.report();
 *
 * Pipeline (BuildOptions::opt_level 3, TVM's tuning tutorials): bind_params, simplify_inference,
 * fold_constant, fold_scale_axis (level 3), fold_constant, eliminate_common_subexpr (level 3),
 * [llvm: alter_op_layout, fold_constant, eliminate_common_subexpr], fuse_ops, plan_memory. Kernels:
 * conv2d (CUDA: direct or winograd by the answering record; llvm: the NCHW CPU schedule),
 * depthwise conv2d, grouped conv2d (any other `groups`: CUDA template group_conv2d_nchw.cuda,
 * llvm the grouped CPU schedule) and dense use their topi templates with the group's elementwise
 * epilogue (bias, BN scale/shift, residual add, relu, clip) inlined into the output stage (TVM's
 * traverse_inline); other groups get a simple schedule. The kernel of a group is called with its
 * inputs then its outputs.
 */
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "minitvm/autotune/space.h"
#include "minitvm/relay/expr.h"
#include "minitvm/relay/transform.h"
#include "minitvm/runtime/graph.h"

namespace minitvm::autotune {
struct WeightedTask;  // autotune/task_scheduler.h (include it to use extract_tasks)
}

namespace minitvm::relay {

struct BuildOptions {
  int opt_level = 3;
  /** Print the graph after each pass, then each kernel's IR after each lowering pass (kernels
   *  lowered one at a time; nullptr: off unless MINITVM_PRINT_IR is set). */
  std::ostream* print_after_each_pass = nullptr;
  /** Only fuse, plan and query the dispatch context (no lowering, no compilation: `lib` empty). */
  bool workloads_only = false;
  /** llvm: run 3x3 stride-1 convolutions (groups 1, at least 32 input and output channels, an
   *  output of at least 8x8) by Winograd on the blocked layouts, F(4, 3) on maps of 24 and more,
   *  F(2, 3) below, unless a tuning log has a conv2d_NCHWc record for the layer. */
  bool winograd = true;
  /** With workloads_only: llvm layers that a full build runs by Winograd are built as Winograd
   *  here too, so they query no conv2d_NCHWc workload (llvm_winograd_workloads). */
  bool workloads_with_winograd = false;
};

/** One compiled kernel (one per distinct fused function). */
struct KernelInfo {
  std::string func_name;
  std::vector<std::string> ops;  ///< the group's ops, operands first
  std::string master_op;         ///< the op providing the schedule
  Json workload;                 ///< the dispatch key that was queried (null for simple schedules)
  std::string template_key;   ///< "direct", "winograd" (CUDA), "cpu" (llvm template-free), "simple"
  int64_t config_index = -1;  ///< the record's flat config index; -1 for fallback / none
  bool is_fallback = false;
  /** The config the schedule ran with, TVM-style (`[('tile_ic', [4, 16]), ...],None,-1`), a
   *  fallback's included; empty for template-free schedules. */
  std::string config;
  int num_nodes = 0;  ///< graph nodes calling it
  /** The workloads a tuner can tune for this kernel (keys whose first element is a registered
   *  template: conv2d_NCHWc.x86 on llvm; conv2d_nchw.cuda, and conv2d_nchw_winograd.cuda for 3x3
   *  stride-1 layers, depthwise/group/dense templates on cuda). Empty for untunable kernels. */
  std::vector<Json> tuning_workloads;
};

struct Built : runtime::CompiledGraph {
  std::vector<KernelInfo> kernels;
  transform::MemoryPlan memory;
  Function optimized;  ///< the graph after the passes, before fusion
  transform::FusedGraph fused;
  /** Kernels, workloads from the log / fallbacks, peak memory. */
  std::string report() const;
  /**
   * The report as JSON: {"target", "workloads": {"total", "from_log", "fallback", "layers",
   * "by_op": {family: {layers, total, from_log, fallback}}}, "kernels": [{"name", "ops",
   * "master_op", "schedule", "nodes", "workload" (key or null), "config_index" (null: fallback or
   * untuned), "config" (KernelInfo::config, null if empty), "fallback"}], "peak_bytes" (planned
   * activations), "intermediate_bytes", "param_bytes"}. Workload counts are distinct workload keys
   * of the tunable ops (conv2d, depthwise, dense).
   */
  Json report_json() const;
  /** "53 conv2d workloads: 53 from log, 0 fallback" style counts per tunable op. */
  int num_fallbacks() const;
};

Built build(const Function& f, const std::string& target, const Params& params = {},
            const BuildOptions& opt = {});

/**
 * The tuning tasks of a network (TVM's autotvm.task.extract_from_program): the workloads the build
 * queries for `target` (BuildOptions::workloads_only, nothing compiled), one task per distinct
 * workload, weighted by how many graph nodes call it per inference. Tasks come in the order their
 * first kernel appears. Convolution and dense kernels with no tunable template (llvm depthwise,
 * grouped and dense) are named in `untunable` with the reason ("fused_nn_dense_add: nn.dense has
 * no tuning template for llvm"); injective kernels are never tasks.
 */
std::vector<autotune::WeightedTask> extract_tasks(const Function& f, const std::string& target,
                                                  const Params& params = {},
                                                  std::vector<std::string>* untunable = nullptr);

/**
 * The workload keys of `tasks` (extract_tasks(f, "llvm", params)) whose layers a build without a
 * log runs by Winograd (BuildOptions::winograd): a record for such a task would replace the
 * Winograd kernel by the direct one (a record keeps its tuned direct kernel), which is why
 * `minitvm tune MODEL` leaves them out unless --disable-winograd. One workloads-only build.
 */
std::vector<std::string> llvm_winograd_workloads(const Function& f,
                                                 const std::vector<autotune::WeightedTask>& tasks,
                                                 const Params& params = {});

/** The optimisation pipeline alone (bind_params ... fold_constant), printing as build does. */
Function optimize(const Function& f, const Params& params, const BuildOptions& opt = {});

}  // namespace minitvm::relay
