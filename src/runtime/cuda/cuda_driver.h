/** \file
 * Internal: the CUDA driver API, loaded at run time with dlopen("libcuda.so.1").
 *
 * The CUDA toolkit is never needed to build minitvm: the few driver types and prototypes used are
 * declared here (values from cuda.h). CudaDriver::get() loads and initialises the driver once; on a
 * machine without one it throws RuntimeError "no CUDA driver found (libcuda.so.1 could not be
 * loaded): <dlerror>" every time it is asked. Every failing driver call becomes a RuntimeError
 * carrying the CUDA error name (cuGetErrorName), e.g. "CUDA_ERROR_INVALID_VALUE".
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace minitvm::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // NOLINT: matches cuda.h on 64-bit hosts
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUevent = struct CUevent_st*;
using CUstream = struct CUstream_st*;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr unsigned CU_EVENT_DEFAULT = 0;

/** The loaded driver: one per process, never unloaded. Methods throw RuntimeError on failure. */
class CudaDriver {
 public:
  /** The driver, loaded and initialised (cuInit) on first use; throws when there is none. */
  static CudaDriver& get();
  /** Whether get() would succeed. Never throws. */
  static bool available();
  /** Why the driver is unavailable ("" when available). */
  static std::string unavailable_reason();

  int device_count();
  std::pair<int, int> compute_capability(int device);
  /** Make the primary context of `device` current on this thread (retained once per device). */
  void set_device(int device);

  CUdeviceptr mem_alloc(size_t nbytes, int device);
  /** Never throws (used from destructors); failures are logged as warnings. */
  void mem_free(CUdeviceptr ptr, int device) noexcept;
  void copy_htod(CUdeviceptr dst, const void* src, size_t nbytes, int device);
  void copy_dtoh(void* dst, CUdeviceptr src, size_t nbytes, int device);
  void copy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t nbytes, int device);
  void synchronize(int device);

  CUmodule module_load(const std::string& image, int device);
  void module_unload(CUmodule mod) noexcept;
  CUfunction module_get_function(CUmodule mod, const std::string& name);
  void launch(CUfunction f, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block,
              int64_t dynamic_shared_bytes, void** params, const std::string& kernel_name);

  CUevent event_create(int device);
  void event_record(CUevent e);
  /** Milliseconds between two recorded events (waits for `end`). */
  float event_elapsed_ms(CUevent start, CUevent end);
  void event_destroy(CUevent e) noexcept;

  /** "CUDA_ERROR_OUT_OF_MEMORY" for a result code (or "CUDA error <n>"). */
  std::string error_name(CUresult r);
  /** Throws RuntimeError "<what> failed: <NAME> (<description>)" when r != CUDA_SUCCESS. */
  void check(CUresult r, const std::string& what);

 private:
  CudaDriver() = default;
  void load();
  struct Api;
  Api* api_ = nullptr;
};

}  // namespace minitvm::runtime::cuda
