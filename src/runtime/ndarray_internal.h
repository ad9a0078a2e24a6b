/** \file
 * Internal: the layout of NDArray::Container, shared by ndarray.cc and dlpack.cc.
 */
#pragma once

#include <functional>
#include <vector>

#include "minitvm/runtime/ndarray.h"

namespace minitvm::runtime {

/** Storage and metadata of an NDArray. `deleter` releases the memory (or the DLPack producer). */
struct NDArray::Container {
  void* data = nullptr;  ///< element 0 (DLPack byte_offset already applied)
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  ///< in elements, always filled
  DataType dtype;
  Device device;
  std::function<void()> deleter;
  ~Container();
};

}  // namespace minitvm::runtime
