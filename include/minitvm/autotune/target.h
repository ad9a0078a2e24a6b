/** \file
 * AutoTVM's view of a target string: the one `minitvm::Target` (include/minitvm/support/target.h),
 * parsed once with TVM v0.6 key/model semantics; these names are kept for the autotune and topi
 * call sites.
 */
#pragma once

#include "minitvm/support/target.h"

namespace minitvm::autotune {

using Target = ::minitvm::Target;
using ::minitvm::parse_target;

}  // namespace minitvm::autotune
