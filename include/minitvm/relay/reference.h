/** \file
 * The naive reference executor of the graph IR: every op as plain C++ loops (double accumulation)
 * over host float32 arrays, independent of te/topi. It is the oracle of the relay tests and the
 * evaluator of constant folding.
 *
 *   auto outs = relay::reference_run(f, {{"data", x}}, params);   // outputs, tuples flattened
 */
#pragma once

#include <map>
#include <string>
#include <vector>

#include "minitvm/relay/expr.h"

namespace minitvm::relay {

/** Evaluate one call node's operator on argument values (one array per argument; tuple-typed
 *  results give one array per field). float32 only (CompileError otherwise). */
std::vector<runtime::NDArray> reference_eval(const ExprNode& call,
                                             const std::vector<runtime::NDArray>& args);

/** Run a function: every parameter must be given in `inputs` or `params` (by var name, shape and
 *  dtype checked). Returns the body's value, a tuple body flattened into its fields. */
std::vector<runtime::NDArray> reference_run(const Function& f, const Params& inputs,
                                            const Params& params = {});

}  // namespace minitvm::relay
