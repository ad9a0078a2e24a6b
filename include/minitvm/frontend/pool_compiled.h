/** \file
 * CompiledPoolExecutor: a PoolExecutor whose forward and backward run kernels compiled from the
 * topi pool computes (topi/pool.h) for a target ("llvm", "cuda -emulate", "cuda"). Compiled
 * modules are cached per (target, direction, workload), so cases that differ only in their values
 * reuse one kernel.
 */
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "minitvm/frontend/pool_executor.h"
#include "minitvm/topi/pool.h"

namespace minitvm {
namespace frontend {

/** Runs plans through compiled pool kernels. Not thread-safe (one cache per executor). */
class CompiledPoolExecutor : public PoolExecutor {
 public:
  /** target: "llvm" (default), "cuda -emulate" or "cuda". */
  explicit CompiledPoolExecutor(std::string target = "llvm");
  std::string name() const override;
  PoolForwardResult forward(const topi::PoolPlan& plan, const HostArray& input) override;
  /** Max modes use `indices` when they are PyTorch per-plane indices, otherwise they run the
   * forward kernel (with per-plane indices) first. */
  HostArray backward(const topi::PoolPlan& plan, const HostArray& input,
                     const HostArray& grad_output, const HostArray* indices) override;

  /** The kernel for a plan (compiled on first use). */
  const topi::PooledKernel& kernel(const topi::PoolPlan& plan, topi::PoolDirection dir,
                                   bool with_indices);
  /** Compile, in batches of `batch` kernels per module, every kernel that running these plans
   * (forward, and backward when `backward`) will need and that is not cached yet. Plans that
   * cannot be compiled are skipped (running them reports the error as usual). Returns the number
   * of kernels compiled. Only an optimisation: forward()/backward() compile on demand anyway. */
  size_t precompile(const std::vector<topi::PoolPlan>& plans, bool backward, size_t batch = 64);
  /** Number of distinct kernels compiled so far. */
  size_t num_compiled() const { return cache_.size(); }
  const std::string& target() const { return target_; }

 private:
  std::string target_;
  std::map<std::string, std::unique_ptr<topi::PooledKernel>> cache_;
};

}  // namespace frontend
}  // namespace minitvm
