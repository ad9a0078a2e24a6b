/** \file
 * The PyTorch pooling golden format (tests/data/pool/<op>.jsonl, see its README) and the
 * conformance harness that runs golden cases through any PoolExecutor.
 *
 * A case is valid (forward output, optional indices, optional backward), rejected (PyTorch raised
 * an error: planning must throw PoolParamError), or an optional `empty_window` quirk case (passes
 * when rejected or when the empty windows give -inf). Failures read "id: what differs at index i:
 * got x, expected y"; the summary line is "N passed, N failed".
 */
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "minitvm/frontend/pool_executor.h"
#include "minitvm/frontend/pool_plan.h"

namespace minitvm {
namespace frontend {

/** One line of a golden file, typed. Tensors are flattened row-major in channels-first order. */
struct GoldenCase {
  enum class Kind { Valid, Rejected, EmptyWindow };

  std::string id;
  std::string op;  ///< "max_pool2d", "adaptive_avg_pool2d", ...
  DataType dtype = DataType::Float(32);
  nlohmann::json params;  ///< the op's parameters as written in the file
  std::vector<int64_t> input_shape;
  std::vector<std::string> tags;
  Kind kind = Kind::Valid;

  std::vector<double> input;
  std::vector<int64_t> output_shape;
  std::vector<double> output;
  std::optional<std::vector<int64_t>> indices;
  std::optional<std::vector<double>> grad_output;
  std::optional<std::vector<double>> grad_input;
  std::string backward_error;  ///< non-empty: PyTorch rejected the backward pass

  // Rejected cases.
  std::string error;       ///< first line of PyTorch's message
  std::string error_kind;  ///< "pad_gt_half_kernel", ...
  std::string reason;

  bool has_tag(const std::string& t) const;
};

/** Parse one JSON object of the golden format; throws CompileError naming the field on bad input.
 */
GoldenCase parse_golden_case(const nlohmann::json& j);
/** Read a .jsonl golden file; throws CompileError with file and line on a malformed line. */
std::vector<GoldenCase> read_golden_file(const std::string& path);

/** Build the PoolPlan of a golden case's op and params (throws PoolParamError where PyTorch does).
 * With channels_last the plan expects the input in NLC/NHWC/NDHWC layout. */
topi::PoolPlan plan_golden_case(const GoldenCase& c,
                                topi::PoolLayout layout = topi::PoolLayout::ChannelsFirst);

/** How strictly values are compared. */
struct ConformanceOptions {
  /** false: the tolerances of the golden README (what compiled kernels must meet). true: every
   * value bit-exact (NaN == NaN) except float32 mean-path outputs (2 ulp); the reference meets it.
   */
  bool exact = false;
  /** Also fail a rejected case when our error kind differs from the golden `error_kind`. */
  bool check_error_kind = false;
  /** Run the case in channels-last layout (input transposed before, results transposed after). */
  topi::PoolLayout layout = topi::PoolLayout::ChannelsFirst;
};

/** Outcome of one case. */
struct CaseResult {
  std::string id;
  bool passed = false;
  std::vector<std::string> failures;  ///< one line each: "id: ..."
  std::string note;                   ///< e.g. "rejected as expected (stride_zero)"
};

/** Run one golden case through `exec`. Never throws for case-level problems (they become failures).
 */
CaseResult run_pool_case(const GoldenCase& c, PoolExecutor& exec,
                         const ConformanceOptions& opts = {});

/** Totals of a run. */
struct ConformanceSummary {
  int passed = 0;
  int failed = 0;
  std::vector<CaseResult> failures;
  /** "N passed, N failed" */
  std::string str() const;
};

/** Run many cases; prints one line per failure to `log` when given, and returns the totals. */
ConformanceSummary run_pool_cases(const std::vector<GoldenCase>& cases, PoolExecutor& exec,
                                  const ConformanceOptions& opts = {}, std::ostream* log = nullptr);

}  // namespace frontend
}  // namespace minitvm
