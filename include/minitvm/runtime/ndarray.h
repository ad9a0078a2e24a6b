/** \file
 * NDArray: a reference-counted n-dimensional array on a device (CPU or CUDA), exchangeable with
 * DLPack. Contract (implemented in src/runtime/ndarray.cc):
 *
 *   NDArray::empty(shape, dtype, device)           // 64-byte aligned on the CPU
 *   NDArray::from_vector(std::vector<T>, shape)    // CPU, dtype from T
 *   a.to_vector<T>()                               // copies to host; dtype must match T
 *   a.shape(), a.dtype(), a.device(), a.strides() (elements; compact row-major unless imported)
 *   a.data() (device pointer), a.size() (elements), a.nbytes()
 *   a.copy_from(other) / a.copy_to(device)         // host<->device and same-device copies
 *   a.to_dlpack() -> DLManagedTensor*, NDArray::from_dlpack(DLManagedTensor*)
 */
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "minitvm/ir/dtype.h"
#include "minitvm/support/error.h"

struct DLManagedTensor;

namespace minitvm::runtime {

template <typename T>
DataType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return DataType::Bool();
  else if constexpr (std::is_floating_point_v<T>) return DataType::Float(sizeof(T) * 8);
  else if constexpr (std::is_signed_v<T>) return DataType::Int(sizeof(T) * 8);
  else return DataType::UInt(sizeof(T) * 8);
}

class NDArray {
 public:
  struct Container;  ///< defined in src/runtime/ndarray.cc

  NDArray() = default;
  static NDArray empty(const std::vector<int64_t>& shape, DataType dtype, Device dev = Device::cpu());
  template <typename T>
  static NDArray from_vector(const std::vector<T>& values, const std::vector<int64_t>& shape) {
    NDArray a = empty(shape, dtype_of<T>(), Device::cpu());
    MINITVM_USER_CHECK(static_cast<int64_t>(values.size()) == a.size())
        << "NDArray::from_vector: " << values.size() << " values for a shape of " << a.size()
        << " elements";
    a.copy_from_bytes(values.data(), values.size() * sizeof(T));
    return a;
  }
  template <typename T>
  std::vector<T> to_vector() const {
    MINITVM_USER_CHECK(dtype_of<T>() == dtype() || (sizeof(T) * 8 == static_cast<size_t>(dtype().bits()) && !std::is_same_v<T, bool>
                       && dtype().is_bfloat() == false && ((std::is_floating_point_v<T>) == dtype().is_float())))
        << "NDArray::to_vector: element type does not match dtype " << dtype();
    std::vector<T> out(static_cast<size_t>(size()));
    copy_to_bytes(out.data(), out.size() * sizeof(T));
    return out;
  }

  const std::vector<int64_t>& shape() const;
  std::vector<int64_t> strides() const;
  DataType dtype() const;
  Device device() const;
  void* data() const;
  int64_t size() const;
  int64_t nbytes() const;
  int ndim() const { return static_cast<int>(shape().size()); }
  bool defined() const { return static_cast<bool>(c_); }

  void copy_from_bytes(const void* host, size_t nbytes);
  void copy_to_bytes(void* host, size_t nbytes) const;
  void copy_from(const NDArray& other);
  NDArray copy_to(Device dev) const;

  DLManagedTensor* to_dlpack() const;
  static NDArray from_dlpack(DLManagedTensor* t);

  std::shared_ptr<Container> container() const { return c_; }

 private:
  std::shared_ptr<Container> c_;
};

}  // namespace minitvm::runtime
