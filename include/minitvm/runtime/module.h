/** \file
 * Runtime modules and functions: what `build()` returns and what users call.
 *
 * A Module holds compiled functions for one target (llvm JIT code, a CUDA module, the CUDA CPU
 * emulator). `Module::get_function(name)` returns a PackedFunc; calling it checks arity, dtypes and
 * shapes against the function's signature (taken from the lowered function) and throws
 * RuntimeError with the argument name on a mismatch.
 *
 * Calling convention of compiled CPU code (LLVM backend): every lowered function becomes
 *   extern "C" void NAME(void* const* args);
 * args[i] is the data pointer of buffer argument i, or a pointer to the value of scalar argument i
 * stored in exactly the argument's dtype (int32 -> int32_t*, float32 -> float*, ...).
 */
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "minitvm/ir/dtype.h"
#include "minitvm/runtime/ndarray.h"

namespace minitvm::runtime {

/** One parameter of a compiled function. */
struct ArgSpec {
  enum class Kind { Buffer, Scalar };
  std::string name;
  Kind kind = Kind::Buffer;
  DataType dtype;
  std::vector<int64_t> shape;  ///< buffers only; static shapes
};

/** The parameters of a compiled function, in call order. */
struct FunctionSignature {
  std::string name;
  std::vector<ArgSpec> args;
};

/**
 * One kernel launch of a CUDA host function (static launch dimensions).
 *
 * Argument indices: with S = signature.args.size(), an index i < S is the function's own argument
 * i; an index S + t is CudaFunctionInfo::temporaries[t] (a device buffer the host function
 * allocates, see TempBuffer).
 */
struct KernelLaunch {
  std::string kernel;     ///< e.g. "matmul_kernel0"
  std::vector<int> args;  ///< kernel order; signature args, then temporaries (above)
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  int64_t dynamic_shared_bytes = 0;
};

/**
 * A global-memory buffer that a CUDA host function allocates itself (an intermediate tensor that
 * one kernel writes and a later kernel reads, e.g. winograd's data_pack). Its contents are
 * undefined at the start of each call; it is not visible to the caller.
 */
struct TempBuffer {
  std::string name;      ///< the allocation's name in the lowered IR, e.g. "B"
  DataType dtype;        ///< element type (lanes included)
  int64_t elements = 0;  ///< number of elements of `dtype`
};

/** A CUDA host function: its signature, its temporaries and the kernels it launches, in order. */
struct CudaFunctionInfo {
  FunctionSignature signature;
  std::vector<KernelLaunch> launches;
  /** Device buffers allocated by the host function; KernelLaunch::args index S + t is entry t. */
  std::vector<TempBuffer> temporaries;
};

/** An argument of a PackedFunc call. */
using ArgValue = std::variant<NDArray, int64_t, double>;

/** One C++ argument as an ArgValue: arrays as they are, floating-point scalars as double, integers
 *  as int64 (the variadic call operators of PackedFunc and TimeEvaluator). */
inline ArgValue to_arg_value(const NDArray& a) {
  return a;
}
template <typename T>
ArgValue to_arg_value(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<double>(v);
  else
    return static_cast<int64_t>(v);
}

/** A callable compiled function. Cheap to copy. */
class PackedFunc {
 public:
  using Body = std::function<void(const std::vector<ArgValue>&)>;
  PackedFunc() = default;
  PackedFunc(Body body, FunctionSignature sig) : body_(std::move(body)), sig_(std::move(sig)) {}

  template <typename... Args>
  void operator()(Args&&... args) const {
    call(std::vector<ArgValue>{to_arg_value(std::forward<Args>(args))...});
  }
  void call(const std::vector<ArgValue>& args) const;
  const FunctionSignature& signature() const { return sig_; }
  explicit operator bool() const { return static_cast<bool>(body_); }

 private:
  Body body_;
  FunctionSignature sig_;
};

/**
 * Throws RuntimeError naming the function and argument if args do not match sig: arity, then per
 * argument dtype, shape and device of buffers (and contiguity), or the kind and range of scalars.
 * Example message: "fused: argument 2 'Out' expects float32[1000] on cpu(0), got float64[1000] on
 * cpu(0)". Integer scalar arguments accept int64 values in range; float32/float64 scalar arguments
 * accept int64 or double values.
 */
void check_arguments(const FunctionSignature& sig, const std::vector<ArgValue>& args,
                     Device expected_device);

/**
 * Store a checked scalar argument in exactly the dtype of `spec` at `out` (at least 8 bytes,
 * aligned for int64/double): int32 -> int32_t, float32 -> float, bool -> one byte, ...
 */
void encode_scalar(const ArgSpec& spec, const ArgValue& value, void* out);

/** Implementation side of a module; one subclass per target. */
class ModuleNode {
 public:
  virtual ~ModuleNode() = default;
  /** "llvm", "cuda", "cuda-emulator" */
  virtual std::string type_key() const = 0;
  /** Empty PackedFunc when there is no such function. */
  virtual PackedFunc get_function(const std::string& name) = 0;
  /** Source in the given format ("" = the module's main form: LLVM IR, CUDA C, ...). */
  virtual std::string get_source(const std::string& format) const = 0;
  virtual std::vector<std::string> function_names() const = 0;
  /** Save to a file (formats as documented per module); default: not supported. */
  virtual void save(const std::string& path) const;
};

/** User handle to a module. */
class Module {
 public:
  Module() = default;
  explicit Module(std::shared_ptr<ModuleNode> node) : node_(std::move(node)) {}
  /** Throws RuntimeError if the function does not exist (listing those that do). */
  PackedFunc get_function(const std::string& name) const;
  std::string get_source(const std::string& format = "") const;
  std::string type_key() const;
  std::vector<std::string> function_names() const;
  void save(const std::string& path) const;
  ModuleNode* node() const { return node_.get(); }
  explicit operator bool() const { return static_cast<bool>(node_); }

 private:
  std::shared_ptr<ModuleNode> node_;
};

}  // namespace minitvm::runtime
