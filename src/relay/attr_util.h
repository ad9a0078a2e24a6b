/** \file
 * Helpers shared by the relay sources that read call attributes (type rules, the reference
 * executor, lowering). Internal to the relay module.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "minitvm/relay/expr.h"

namespace minitvm::relay::detail {

/** An integer-list attribute: a JSON array of integers, or one integer as a list of one. */
inline std::vector<int64_t> attr_ints(const Json& j) {
  std::vector<int64_t> r;
  if (j.is_array())
    for (const auto& v : j) r.push_back(v.get<int64_t>());
  else if (j.is_number_integer())
    r.push_back(j.get<int64_t>());
  return r;
}

}  // namespace minitvm::relay::detail
