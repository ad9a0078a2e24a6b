/** \file
 * TopHub: TVM's pre-tuned logs, shipped in the repository's `tophub/` folder and read locally
 * (never downloaded). `tophub/index.json` says which file serves which backend for each TVM
 * version (TVM's PACKAGE_VERSION tables) and holds the backend alias table.
 *
 * Root: $MINITVM_TOPHUB_ROOT when set (the value NONE disables TopHub, as TVM's TOPHUB_LOCATION; a
 * value that is not a folder warns once), else `share/minitvm/tophub` of the prefix the library
 * itself was installed to (found with dladdr: `<prefix>/lib/libminitvm.so.0` or, for static links,
 * the program), else, only for a library still in its build tree, the source tree's `tophub/`. An
 * installed library without its share folder warns once and has no TopHub records.
 *
 *   auto best = tophub::context("cuda -model=titanx");   // loads tophub/cuda_v0.06.log
 *   DispatchScope scope(*best);
 */
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/fallback.h"

namespace minitvm::autotune::tophub {

struct Options {
  /** Which TVM release's package table to follow: "v0.5", "v0.6", "v0.7" or "v0.8". */
  std::string tvm_version = "v0.6";
  /** Also load the project's seed logs (the `seed` folder: cuda -model=unknown logs). */
  bool include_seed_logs = false;
  /** Model substitution rule of load_reference_log. TVM v0.6 uses LastRecord, which with
   *  cuda_v0.06 gives unknown models no reference at all; we default to v0.7's rule. */
  ReferenceModelRule reference_rule = ReferenceModelRule::MostFrequent;
  LoadOptions load;
};

/** The TopHub folder in use ("" when disabled with MINITVM_TOPHUB_ROOT=NONE). */
std::string root();
/** Backend name after TVM's alias table (nvptx -> cuda, metal/vulkan -> opencl, ...). */
std::string alias(const std::string& backend);
/** File name serving `backend` for a TVM version, e.g. ("cuda", "v0.7") -> "cuda_v0.09.log";
 *  "" when the index has none. */
std::string package_file(const std::string& backend, const std::string& tvm_version = "v0.6");

/**
 * TVM `tophub.context`: for each target, the first candidate backend (each -device=X option, then
 * the target name) that has a package file present under root() is loaded (one file per target);
 * then every extra file (they compete by mean cost, no precedence). Never touches the network.
 */
std::unique_ptr<ApplyHistoryBest> context(const std::vector<Target>& targets,
                                          const std::vector<std::string>& extra_files = {},
                                          const Options& opt = {});
std::unique_ptr<ApplyHistoryBest> context(const std::string& target,
                                          const std::vector<std::string>& extra_files = {},
                                          const Options& opt = {});

/**
 * Reference records for fallback configs (TVM `load_reference_log`): from the backend's package
 * file (only if present), records of `model` (or the substitute model of opt.reference_rule) whose
 * workload name is `workload_name` and, if non-empty, template key `template_key`. Cached per
 * argument set for the process lifetime.
 */
std::vector<Record> load_reference_log(const std::string& backend, const std::string& model,
                                       const std::string& workload_name,
                                       const std::string& template_key, const Options& opt = {});

}  // namespace minitvm::autotune::tophub
