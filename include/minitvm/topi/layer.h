/** \file
 * One-call layer builds: a conv2d / depthwise conv2d / dense layer compiled for a target under the
 * current AutoTVM dispatch context, with everything a user wants to look at.
 *
 *   auto best = autotune::tophub::context("cuda");
 *   autotune::DispatchScope scope(*best);
 *   auto L = topi::build_conv2d({1, 64, 56, 56}, {64, 64, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}, "cuda
 * -emulate"); std::cout << L.config.str() << (L.is_fallback ? " (fallback)" : "") << "\n" << L.ir
 * << L.source; L.module.get_function(L.func_name)(data, kernel, out);
 *
 * CUDA targets ("cuda", "cuda -emulate", "cuda -model=titanx", ...) use the tuned templates of
 * cuda_schedule.h (conv2d picks winograd when the answering record is a winograd one); "llvm"
 * conv2d uses TVM's x86 template conv2d_NCHWc.x86 (cpu_schedule.h; TopHub llvm records apply,
 * `config`/`is_fallback` as for CUDA, template_key "conv2d_NCHWc.x86"), llvm depthwise and dense
 * the untuned CPU schedules (`config` empty, is_fallback false). Arguments of the function: data,
 * kernel/weight, [bias], output.
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/autotune/space.h"
#include "minitvm/runtime/module.h"
#include "minitvm/te/tensor.h"
#include "minitvm/topi/nn.h"

namespace minitvm::topi {

struct LayerBuild {
  runtime::Module module;
  std::string func_name;
  std::vector<te::Tensor> args;   ///< placeholders and output, in call order
  autotune::ConfigEntity config;  ///< the config applied (CUDA targets)
  bool is_fallback = false;
  std::string template_key;  ///< "direct", "winograd", "conv2d_NCHWc.x86" (llvm conv2d) or ""
  autotune::Json workload;   ///< the workload key that was queried
  std::string ir;            ///< lowered IR text
  std::string source;        ///< generated source (CUDA C; LLVM IR for llvm)
};

/** Build options beyond the target. */
struct LayerOptions {
  std::string name = "default_function";
  /** Only lower (module stays empty): for inspection without a compiler. */
  bool lower_only = false;
  /** Force a template ("direct" / "winograd") for conv2d instead of the record's. */
  std::string force_template;
  /** llvm conv2d: take and return the blocked layouts of the chosen config instead of NCHW/OIHW
   *  (data NCHW[ic_bn]c, kernel OIHW[ic_bn]i[oc_bn]o, output NCHW[oc_bn]c; `args` has the shapes):
   *  the convolution alone, as in a network kept in NCHWc (TVM's AlterOpLayout), with the kernel
   *  packed once by the caller. The module also holds the layout transforms `<name>_pack_data`
   *  (NCHW -> blocked), `<name>_pack_kernel` (OIHW -> blocked) and `<name>_unpack_output`. */
  bool nchwc_blocked = false;
};

LayerBuild build_conv2d(const std::vector<int64_t>& data_shape,
                        const std::vector<int64_t>& kernel_shape, const nn::Conv2dAttrs& attrs,
                        const std::string& target, const LayerOptions& opt = {});
LayerBuild build_depthwise_conv2d(const std::vector<int64_t>& data_shape,
                                  const std::vector<int64_t>& kernel_shape,
                                  const nn::Conv2dAttrs& attrs, const std::string& target,
                                  const LayerOptions& opt = {});
LayerBuild build_dense(int64_t batch, int64_t in_dim, int64_t out_dim, bool bias,
                       const std::string& target, const LayerOptions& opt = {});

}  // namespace minitvm::topi
