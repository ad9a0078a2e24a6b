// The element types a HostArray holds, as one dispatcher: calls f(T{}) for the C++ type of `dt`
// (float32, float64, int64, int32, int8, uint8). Any other dtype is a CompileError that starts
// with `what` (e.g. "HostArray: element access").
#pragma once

#include <cstdint>
#include <string>

#include "minitvm/ir/dtype.h"
#include "minitvm/support/error.h"

namespace minitvm::frontend::detail {

template <typename F>
decltype(auto) visit_host_dtype(DataType dt, const std::string& what, F&& f) {
  if (dt == DataType::Float(32)) return f(float{});
  if (dt == DataType::Float(64)) return f(double{});
  if (dt == DataType::Int(64)) return f(int64_t{});
  if (dt == DataType::Int(32)) return f(int32_t{});
  if (dt == DataType::Int(8)) return f(int8_t{});
  if (dt == DataType::UInt(8)) return f(uint8_t{});
  MINITVM_USER_ERROR << what << ": dtype " << dt.str() << " is not supported on the host";
  return f(float{});  // unreachable: the error throws
}

}  // namespace minitvm::frontend::detail
