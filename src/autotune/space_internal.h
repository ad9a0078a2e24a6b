// Helpers shared by space.cc and config_entity.cc (internal).
#pragma once

#include <cstdint>
#include <vector>

#include "minitvm/autotune/space.h"

namespace minitvm::autotune::detail {

/** A JSON array of the integers. */
Json int_list(const std::vector<int64_t>& v);
/** Whether a config's entity is the space's candidate: splits compare without their first size
 *  (TVM's SplitEntity ignores it), other entities exactly. */
bool same_choice(const Entity& space_e, const Entity& cfg_e);

}  // namespace minitvm::autotune::detail
