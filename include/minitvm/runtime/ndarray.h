/** \file
 * NDArray: a reference-counted n-dimensional array on a device (CPU or CUDA), exchangeable with
 * DLPack. Contract (implemented in src/runtime/ndarray.cc and src/runtime/dlpack.cc):
 *
 *   NDArray::empty(shape, dtype, device)           // 64-byte aligned on the CPU
 *   NDArray::from_vector(std::vector<T>, shape)    // CPU, dtype from T
 *   NDArray::from_vector(values, shape, dtype)     // CPU, raw storage (e.g. uint16_t bits for
 * float16) a.to_vector<T>()                               // copies to host; T must match the dtype
 *   a.shape(), a.dtype(), a.device(), a.strides() (elements; compact row-major unless imported)
 *   a.data() (device pointer), a.size() (elements), a.nbytes()
 *   a.copy_from(other) / a.copy_to(device)         // host<->device and same-device copies
 *   a.to_dlpack() -> DLManagedTensor*, NDArray::from_dlpack(DLManagedTensor*)
 *
 * Strided views: an array imported from DLPack with non-compact strides stays a zero-copy *view*
 * of the producer's memory (is_contiguous() is false). Host copies (to_vector, copy_to_bytes,
 * copy_from, copy_to) honour the strides; compiled functions only accept contiguous arrays
 * (call contiguous() first). Non-contiguous CUDA views can be exported/imported but not copied.
 *
 * float16 and bfloat16 arrays are stored as their 16-bit patterns: read and write them with
 * uint16_t (to_vector<uint16_t>(), from_vector(bits, shape, DataType::Float(16))).
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

/** The DataType that a host element type T stores: bool -> bool, float -> float32, ... */
template <typename T>
DataType dtype_of() {
  if constexpr (std::is_same_v<T, bool>)
    return DataType::Bool();
  else if constexpr (std::is_floating_point_v<T>)
    return DataType::Float(sizeof(T) * 8);
  else if constexpr (std::is_signed_v<T>)
    return DataType::Int(sizeof(T) * 8);
  else
    return DataType::UInt(sizeof(T) * 8);
}

/**
 * Whether host elements of type `host` (as given by dtype_of<T>()) may hold elements of `stored`:
 * the same type, or 16-bit integers holding float16/bfloat16 bit patterns.
 */
inline bool host_type_matches(DataType host, DataType stored) {
  if (host == stored) return true;
  bool is_half =
      (stored.is_float() || stored.is_bfloat()) && stored.bits() == 16 && stored.lanes() == 1;
  return is_half && host.is_integral() && !host.is_bool() && host.bits() == 16;
}

class NDArray {
 public:
  struct Container;  ///< defined in src/runtime/ndarray.cc

  NDArray() = default;
  /** Uninitialised array; CPU memory is 64-byte aligned. A CUDA device needs a driver. */
  static NDArray empty(const std::vector<int64_t>& shape, DataType dtype,
                       Device dev = Device::cpu());
  /** CPU array holding `values` (row-major), dtype from T. */
  template <typename T>
  static NDArray from_vector(const std::vector<T>& values, const std::vector<int64_t>& shape) {
    return from_vector(values, shape, dtype_of<T>());
  }
  /** CPU array of `dtype` whose elements are `values` stored as T (see host_type_matches). */
  template <typename T>
  static NDArray from_vector(const std::vector<T>& values, const std::vector<int64_t>& shape,
                             DataType dtype) {
    MINITVM_USER_CHECK(host_type_matches(dtype_of<T>(), dtype))
        << "NDArray::from_vector: host element type " << dtype_of<T>() << " cannot hold dtype "
        << dtype;
    NDArray a = empty(shape, dtype, Device::cpu());
    MINITVM_USER_CHECK(static_cast<int64_t>(values.size()) == a.size())
        << "NDArray::from_vector: " << values.size() << " values for a shape of " << a.size()
        << " elements";
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(values.begin(), values.end());
      a.copy_from_bytes(bytes.data(), bytes.size());
    } else {
      a.copy_from_bytes(values.data(), values.size() * sizeof(T));
    }
    return a;
  }
  /** Copy of the elements in row-major order; throws CompileError if T does not match dtype(). */
  template <typename T>
  std::vector<T> to_vector() const {
    MINITVM_USER_CHECK(defined()) << "NDArray::to_vector: undefined array";
    MINITVM_USER_CHECK(host_type_matches(dtype_of<T>(), dtype()))
        << "NDArray::to_vector: element type " << dtype_of<T>() << " does not match dtype "
        << dtype();
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(static_cast<size_t>(size()));
      copy_to_bytes(bytes.data(), bytes.size());
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> out(static_cast<size_t>(size()));
      copy_to_bytes(out.data(), out.size() * sizeof(T));
      return out;
    }
  }

  const std::vector<int64_t>& shape() const;
  /** Strides in elements (not bytes). */
  std::vector<int64_t> strides() const;
  DataType dtype() const;
  Device device() const;
  /** Address of element 0 (a CUdeviceptr for CUDA arrays). */
  void* data() const;
  int64_t size() const;
  /** size() * dtype().bytes(): the bytes of the elements, not of a strided view's span. */
  int64_t nbytes() const;
  int ndim() const { return static_cast<int>(shape().size()); }
  bool defined() const { return static_cast<bool>(c_); }
  /** True when the strides are compact row-major (size-1 dimensions ignored). */
  bool is_contiguous() const;
  /** This array if contiguous, else a compact copy on the same device. */
  NDArray contiguous() const;
  /** "float32[4, 8] on cpu(0)" */
  std::string str() const;

  /** Overwrite all elements from row-major host bytes; nbytes must equal nbytes(). */
  void copy_from_bytes(const void* host, size_t nbytes);
  /** Copy all elements, row-major, into host memory of exactly nbytes() bytes. */
  void copy_to_bytes(void* host, size_t nbytes) const;
  /** Copy the elements of `other` (same shape and dtype, any device) into this array. */
  void copy_from(const NDArray& other);
  /** A new compact array on `dev` with the same elements. */
  NDArray copy_to(Device dev) const;

  /**
   * Export as DLPack. The returned tensor keeps this array's memory alive until the consumer
   * calls its deleter. float16/bfloat16 map to kDLFloat/kDLBfloat, bool to kDLBool (8 bits).
   */
  DLManagedTensor* to_dlpack() const;
  /**
   * Import a DLPack tensor without copying: the result owns `t` and calls t->deleter when the last
   * reference dies. Strides are honoured (non-compact tensors become strided views).
   */
  static NDArray from_dlpack(DLManagedTensor* t);

  std::shared_ptr<Container> container() const { return c_; }

 private:
  explicit NDArray(std::shared_ptr<Container> c) : c_(std::move(c)) {}
  std::shared_ptr<Container> c_;
};

}  // namespace minitvm::runtime
