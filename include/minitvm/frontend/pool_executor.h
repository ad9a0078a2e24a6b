/** \file
 * Host arrays and the PoolExecutor interface: anything that can run a PoolPlan forward (with
 * optional indices) and backward on host data. The naive reference executor (pool_reference.cc)
 * implements it with plain loop nests; compiled kernels (llvm, CUDA, the CUDA emulator) implement
 * it later and are checked against the golden data and the reference through the same interface.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "minitvm/frontend/pool_plan.h"
#include "minitvm/ir/dtype.h"
#include "minitvm/support/error.h"

namespace minitvm {
namespace frontend {

/** A dense row-major host array of one dtype (float16/bfloat16 are stored but not computed on). */
class HostArray {
 public:
  HostArray() = default;
  /** Zero-filled array. Throws CompileError for a negative dimension or an element/byte count
   * that overflows int64, RuntimeError when the memory cannot be allocated. */
  HostArray(DataType dtype, std::vector<int64_t> shape);
  /** Array of `dtype` holding `values` converted from double (exact for int64 up to 2^53). */
  static HostArray from_doubles(DataType dtype, std::vector<int64_t> shape,
                                const std::vector<double>& values);

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t numel() const { return numel_; }
  bool defined() const { return dtype_.bits() != 0; }
  void* raw() { return bytes_.data(); }
  const void* raw() const { return bytes_.data(); }
  size_t nbytes() const { return bytes_.size(); }

  /** Typed pointer; throws InternalError when T does not match dtype(). */
  template <typename T>
  T* data() {
    check_type(sizeof(T), type_code<T>());
    return reinterpret_cast<T*>(bytes_.data());
  }
  template <typename T>
  const T* data() const {
    check_type(sizeof(T), type_code<T>());
    return reinterpret_cast<const T*>(bytes_.data());
  }
  /** Element i converted to double. */
  double get(int64_t i) const;
  /** Element i converted to int64 (for indices and integer data). */
  int64_t get_int(int64_t i) const;
  /** Set element i from a double (cast to the dtype); throws CompileError for NaN or a value
   * outside an integer dtype's range (such a conversion is undefined behaviour in C++). */
  void set(int64_t i, double v);
  /** Set element i from an int64 exactly (converted for float dtypes); throws CompileError when
   * it does not fit an integer dtype. */
  void set_int(int64_t i, int64_t v);
  /** All elements as doubles. */
  std::vector<double> to_doubles() const;

 private:
  template <typename T>
  static constexpr DataType::Code type_code() {
    if constexpr (std::is_floating_point_v<T>)
      return DataType::Code::Float;
    else if constexpr (std::is_signed_v<T>)
      return DataType::Code::Int;
    else
      return DataType::Code::UInt;
  }
  void check_type(size_t size, DataType::Code code) const;

  DataType dtype_ = DataType::Void();
  std::vector<int64_t> shape_;
  int64_t numel_ = 0;
  std::vector<std::byte> bytes_;
};

/** Result of a forward run: output, and indices (int64, same shape) when the plan asks for them. */
struct PoolForwardResult {
  HostArray output;
  HostArray indices;
};

/** Runs PoolPlans on host arrays. Inputs and outputs are in the plan's layout and dtype. */
class PoolExecutor {
 public:
  virtual ~PoolExecutor() = default;
  /** Short name for reports ("reference", "llvm", "cuda-emulate"). */
  virtual std::string name() const = 0;
  /** Forward pass. `indices` is filled when plan.return_indices (max modes). */
  virtual PoolForwardResult forward(const topi::PoolPlan& plan, const HostArray& input) = 0;
  /** Backward pass: d(sum(output*grad_output))/d(input). For max modes `indices` may be the
   * forward's indices or null (then the argmax is recomputed from `input`). */
  virtual HostArray backward(const topi::PoolPlan& plan, const HostArray& input,
                             const HostArray& grad_output, const HostArray* indices) = 0;
};

/** The naive reference: loop nests over the plan with PyTorch CPU's exact NaN, tie, index,
 * divisor, accumulation-order and int64 rules. Supports float32/float64 everywhere, int64 avg,
 * and int8/uint8/int32/int64 max. */
class ReferencePoolExecutor : public PoolExecutor {
 public:
  std::string name() const override { return "reference"; }
  PoolForwardResult forward(const topi::PoolPlan& plan, const HostArray& input) override;
  HostArray backward(const topi::PoolPlan& plan, const HostArray& input,
                     const HostArray& grad_output, const HostArray* indices) override;
};

/** Convert between the plan's layout and channels-first order (copies; same dtype). */
HostArray to_channels_first(const HostArray& a, int spatial_rank, bool batched);
HostArray to_channels_last(const HostArray& a, int spatial_rank, bool batched);

}  // namespace frontend
}  // namespace minitvm
