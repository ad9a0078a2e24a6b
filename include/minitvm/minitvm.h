/** \file
 * The umbrella header: everything a user program needs.
 *
 *   #include <minitvm/minitvm.h>
 *   using namespace minitvm;
 */
#pragma once

#include "minitvm/codegen/build.h"
#include "minitvm/ir/arith.h"
#include "minitvm/ir/dtype.h"
#include "minitvm/ir/expr.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/ir/stmt.h"
#include "minitvm/runtime/module.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/support/error.h"
#include "minitvm/te/schedule.h"
#include "minitvm/te/tensor.h"
#include "minitvm/transform/lower.h"

namespace minitvm {
// TVM's Python API puts these at the top level (tvm.lower, tvm.build, te.create_schedule).
namespace te {
using ::minitvm::te::create_schedule;
}
namespace ir {
using ::minitvm::ir::operator<<;
}
}  // namespace minitvm
