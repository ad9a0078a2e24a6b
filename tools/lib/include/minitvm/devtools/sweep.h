/** \file
 * TopHub sweep: check every workload of AutoTVM tuning logs against our CUDA templates.
 *
 * For each distinct workload of the given records (formats 0.1 and 0.2; tasks `topi_nn_conv2d`,
 * `topi_nn_depthwise_conv2d_nchw`, `topi_nn_dense`, `conv2d_nchw.cuda`,
 * `conv2d_nchw_winograd.cuda`, `depthwise_conv2d_nchw.cuda`, `dense_small_batch.cuda`,
 * `dense_large_batch.cuda`):
 *
 *  1. the best record for the workload (ApplyHistoryBest over all the records, target "cuda") is
 *     applied to our template (the record's template: direct or winograd) and the layer is built
 *     for CUDA at the workload's own shapes;
 *  2. the CUDA source is compiled by NVRTC and the PTX checked by `ptxas` for sm_90;
 *  3. optionally (`emulate`) the layer is built for "cuda -emulate" and run against naive loops.
 *     The batch is reduced to 1 where the config does not tile the batch axis (conv2d direct,
 *     depthwise, dense small batch), because emulating a whole batch of a big layer takes minutes;
 *     dense large batch keeps its batch (its tile_x splits it) unless the work is over the limit.
 *
 * Workloads of other operators or dtypes (conv2d_transpose, batch_matmul, int8, NHWC) are
 * reported as skipped, not failed.
 *
 *   auto recs = autotune::load_records("tophub/seed/resnet50v1_bs_1.log");
 *   auto ws = topi::sweep::collect_workloads(recs);
 *   autotune::ApplyHistoryBest best(recs);
 *   for (auto& w : ws.supported) {
 *     auto r = topi::sweep::check_workload(w, best, {.emulate = true});
 *     if (!r.passed) std::cout << w.describe() << ": " << r.stage << ": " << r.reason << "\n";
 *   }
 */
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/record.h"
#include "minitvm/topi/layer.h"
#include "minitvm/topi/nn.h"

namespace minitvm::topi::sweep {

/** The operator a workload maps to. */
enum class OpKind { Conv2d, Depthwise, Dense };

/** One workload of a tuning log, decoded into layer arguments. */
struct SweepWorkload {
  OpKind op = OpKind::Conv2d;
  std::string task_name;              ///< as in the log: "topi_nn_conv2d", "conv2d_nchw.cuda", ...
  autotune::Json workload;            ///< the dispatch key of the log's records
  std::vector<int64_t> data_shape;    ///< conv: (N, CI, H, W)
  std::vector<int64_t> kernel_shape;  ///< conv: (CO, CI, KH, KW); depthwise (C, M, KH, KW)
  nn::Conv2dAttrs attrs;
  int64_t batch = 0, in_dim = 0, out_dim = 0;  ///< dense
  bool bias = false;                           ///< dense
  std::string source;                          ///< "file:line" of the first record seen
  /** "conv2d 1x64x56x56 k64x64x3x3 s1 p1,1 d1" style text. */
  std::string describe() const;
  /** Multiply-accumulates of the layer at batch `batch` (0 = its own batch). */
  int64_t macs(int64_t batch = 0) const;
};

/** Workloads of a set of records: supported ones (first-seen order, one per key) and skipped ones.
 */
struct CollectedWorkloads {
  std::vector<SweepWorkload> supported;
  /** Distinct unsupported workloads: (description, reason). */
  std::vector<std::pair<std::string, std::string>> skipped;
};

/** Decode a record's workload; nullopt with `why` set when the op/dtype/layout is not covered. */
std::optional<SweepWorkload> decode_workload(const autotune::Record& r, std::string* why);

/** Distinct workloads of records (by workload key), split into supported and skipped. */
CollectedWorkloads collect_workloads(const std::vector<autotune::Record>& records);

/** The template a record was tuned for: "winograd" (its task or config says so) or "direct". */
std::string record_template(const autotune::Record& rec);

/**
 * Build `w`'s layer for `target` at batch `batch` (0: the workload's own) with conv2d template
 * `template_key` ("direct" / "winograd"; ignored for depthwise and dense), under the current
 * dispatch context. Throws what the layer build throws.
 */
LayerBuild build_layer(const SweepWorkload& w, int64_t batch, const std::string& target,
                       const std::string& template_key);

/** A workload's layer built with the config of its best record (build_with_best_record). */
struct BestBuild {
  LayerBuild layer;  ///< the built layer when ok()
  /** The best record (owned by the ApplyHistoryBest); null when no record answers the workload. */
  const autotune::Record* record = nullptr;
  std::string template_key;  ///< "direct" / "winograd"
  std::string stage;  ///< failing stage: "key", "build", "nvrtc", "config" (the config does not fit
                      ///< the template: malformed); empty on success
  std::string reason;  ///< one line
  bool ok() const { return stage.empty(); }
};

/**
 * Step 1 of check_workload: find the best record of `best` for `w` (target "cuda"), check that our
 * layer queries the log's workload key (else the record could never reach our template: "key"),
 * apply the record's config with ApplyConfig and build the layer for `target` at batch `batch`
 * (0: the workload's own; for "cuda" the build includes NVRTC). A build that throws ("build",
 * "nvrtc") or falls back ("build") fails. Never throws. Safe to call from several threads at
 * once: dispatch contexts are per thread and `best` is only read.
 */
BestBuild build_with_best_record(const SweepWorkload& w, const autotune::ApplyHistoryBest& best,
                                 const std::string& target, int64_t batch = 0);

/** The first non-blank line of a message, cut to `max` characters (for one-line failure reasons).
 */
std::string first_line(const std::string& message, size_t max = 300);

/** Options of check_workload. */
struct CheckOptions {
  bool emulate = false;
  /** Architecture for NVRTC and ptxas. */
  std::string arch = "sm_90";
  /** Emulated layers larger than this (multiply-accumulates) are built and compiled only. */
  int64_t max_emulate_macs = 4'000'000'000;
  /** Relative tolerance of the comparison against the reference (direct conv2d, depthwise, dense).
   */
  double tolerance = 1e-3;
  /**
   * The same for the winograd template: its float32 input/output transforms lose about one more
   * digit than direct summation (worst measured over cuda_v0.06/v0.10 at batch 1: 1.0e-3 on a
   * 768-channel F(4,3) layer, vs 2.5e-4 for the worst direct layer).
   */
  double winograd_tolerance = 5e-3;
};

/** What happened to one workload. */
struct CheckResult {
  bool passed = false;
  bool emulated = false;       ///< the emulator ran and the output matched
  int64_t emulated_batch = 0;  ///< batch used on the emulator
  std::string stage;   ///< failing stage: "key", "build", "nvrtc", "ptxas", "emulate", "compare",
                       ///< "config" (malformed record)
  std::string reason;  ///< one line
  std::string config;  ///< the applied config (ConfigEntity::str())
  std::string template_key;  ///< "direct" / "winograd"
  int registers = 0;         ///< max registers of the kernels (ptxas)
  int64_t shared_bytes = 0;  ///< max static shared memory of the kernels (ptxas)
  double max_rel_error = 0;  ///< of the emulated run
  double seconds = 0;
};

/**
 * Check one workload with the best record of `best` for it (see the file comment). Never throws
 * for a failing workload: failures come back with stage and reason.
 */
CheckResult check_workload(const SweepWorkload& w, const autotune::ApplyHistoryBest& best,
                           const CheckOptions& options = {});

/** Whether a record was tuned for the CPU (target llvm): run_sweep checks those with
 * check_llvm_record. */
bool is_llvm_record(const autotune::Record& r);

/** What happened to one llvm record. */
struct LlvmCheckResult {
  bool passed = false;
  bool skipped = false;  ///< its task is not a registered template (stage "skip")
  /** Failing stage: "config" (malformed: arguments or config the template cannot have written),
   *  "instantiate", "build", "run", "compare"; empty on success. */
  std::string stage;
  std::string reason;  ///< one line
  double seconds = 0;
};

/**
 * Check an llvm record (conv2d_NCHWc.x86, the pool templates' `pool{R}d_<layout>_<dir>.llvm`,
 * matmul.llvm: any template registered with the tuner): its config is looked up in the template's
 * space, built for llvm, run once and compared with the template's reference (the tuner's
 * LocalMeasurer with check_correctness). Never throws for a failing record.
 */
LlvmCheckResult check_llvm_record(const autotune::Record& rec);

/** Totals of a sweep. */
struct SweepSummary {
  int passed = 0, failed = 0, skipped = 0, emulated = 0, not_emulated = 0;
  /** Lines that are not records (bad JSON, bad fields) and records whose config or arguments their
   *  template cannot have written: reported with file:line, neither passed nor failed. */
  int malformed = 0;
};

/** Options of run_sweep. */
struct SweepOptions {
  CheckOptions check;
  int limit = -1;        ///< check only the first N supported workloads (-1: all)
  bool verbose = false;  ///< one line per passing workload too
};

/**
 * `minitvm tophub check`: load the files, check every supported workload (CUDA records with
 * check_workload, llvm records with check_llvm_record: the best record of each distinct workload),
 * write one line per malformed line (`MALFORMED <file:line>: <reason>`), one per failure
 * (`FAIL <workload> [<task>, <file:line>] <stage>: <reason>`), one per skipped workload kind, and
 * the closing line `N passed, N failed` (`, N malformed` when there are) to `out`.
 */
SweepSummary run_sweep(const std::vector<std::string>& files, const SweepOptions& options,
                       std::ostream& out);

// ---- naive references (plain loops, double accumulation) -------------------------------------

/** conv2d NCHW; `depthwise`: kernel (C, M, KH, KW) and output channel c*M + m. */
std::vector<float> reference_conv2d(const std::vector<int64_t>& data_shape,
                                    const std::vector<int64_t>& kernel_shape,
                                    const nn::Conv2dAttrs& attrs, bool depthwise,
                                    const std::vector<float>& data,
                                    const std::vector<float>& kernel);
/** dense: out[i][j] = sum_k data[i][k] * weight[j][k] (+ bias[j]). */
std::vector<float> reference_dense(int64_t batch, int64_t in_dim, int64_t out_dim,
                                   const std::vector<float>& data, const std::vector<float>& weight,
                                   const std::vector<float>* bias);
/** Deterministic uniform [-1, 1) values. */
std::vector<float> random_values(size_t n, unsigned seed);
/** max |a-b| / max(1, |b|); infinity when the sizes differ or a value is not finite. */
double max_relative_error(const std::vector<float>& got, const std::vector<float>& ref);
/** The same over `n` values at `got` and `ref` (lets callers split a large comparison into chunks).
 */
double max_relative_error(const float* got, const float* ref, size_t n);

/** Run a built layer (CPU NDArrays; llvm or "cuda -emulate" modules) on `inputs`; returns the
 * output. */
std::vector<float> run_layer(const LayerBuild& layer,
                             const std::vector<std::vector<float>>& inputs);

}  // namespace minitvm::topi::sweep
