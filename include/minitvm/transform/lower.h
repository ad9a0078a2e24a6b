/** \file
 * `lower()`: schedule -> loop-nest IR, through one explicit list of passes
 * (src/transform/lower.cc).
 *
 * The IR can be printed after every pass: set `LowerOptions::print_after_each_pass` (to a stream)
 * or the environment variable MINITVM_PRINT_IR=1 (debug output only; results never depend on it).
 * Unchanged passes print "(unchanged)". MINITVM_TIME_PASSES=1 prints a per-pass timing table.
 */
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "minitvm/ir/stmt.h"
#include "minitvm/te/schedule.h"
#include "minitvm/transform/passes.h"

namespace minitvm {

struct LowerOptions {
  /** Print the IR after each pass to this stream (nullptr: off unless MINITVM_PRINT_IR is set). */
  std::ostream* print_after_each_pass = nullptr;
  /** Global unroll defaults (TVM build_config); pragmas override them per loop nest. */
  transform::UnrollOptions unroll{};
  bool disable_vectorize = false;
  /** TVM's double_buffer_split_loop (build_config default 1): see transform::inject_double_buffer.
   */
  int double_buffer_split_loop = 1;
  /** Extra passes run at the end, in order (name, pass). */
  std::vector<std::pair<std::string, std::function<ir::Stmt(const ir::Stmt&)>>> custom_passes;
};

/** Lower a schedule to a function whose parameters are `args` (tensors, in order). */
ir::PrimFunc lower(te::Schedule sch, const std::vector<te::Tensor>& args,
                   const std::string& name = "default_function", const LowerOptions& options = {});

/** The names of the passes of lower(), in order (for docs and tests). */
std::vector<std::string> lower_pass_names();

}  // namespace minitvm
