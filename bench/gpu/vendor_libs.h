/** \file
 * bench/gpu: NVIDIA's libraries (cuDNN, cuBLAS) opened at run time with dlopen for the GPU
 * benchmarks' comparison columns. Nothing links against them, so the benchmarks build and run on
 * machines without them (the columns are left out, with a NOTE line saying why).
 *
 *   bench::DynLib cudnn;
 *   if (cudnn.open(bench::kCudnnNames)) cudnn.sym(create, "cudnnCreate");
 */
#pragma once

#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace minitvm::bench {

/** Names tried for cuDNN (the legacy C API used here exists in 8 and 9). */
inline constexpr std::initializer_list<const char*> kCudnnNames = {"libcudnn.so.9", "libcudnn.so.8",
                                                                   "libcudnn.so"};
/** Names tried for cuBLAS. */
inline constexpr std::initializer_list<const char*> kCublasNames = {
    "libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11"};

/** A shared library opened with dlopen(RTLD_NOW | RTLD_LOCAL); never closed (vendor libraries
 *  keep threads and GPU state that must outlive their handles). */
struct DynLib {
  void* handle = nullptr;
  std::string name;   ///< the name that loaded
  std::string error;  ///< why the last name tried did not load, when none did

  /** Open the first of `names` that loads; false (with `error`) when none does. */
  bool open(std::initializer_list<const char*> names) {
    for (const char* n : names) {
      handle = dlopen(n, RTLD_NOW | RTLD_LOCAL);
      if (handle) {
        name = n;
        return true;
      }
      const char* e = dlerror();
      error = e ? e : std::string(n) + " could not be loaded";
    }
    return false;
  }
  /** Resolve `symbol` into the function pointer `fn`; false when it is missing. */
  template <typename F>
  bool sym(F& fn, const char* symbol) const {
    fn = handle ? reinterpret_cast<F>(dlsym(handle, symbol)) : nullptr;
    return fn != nullptr;
  }
};

}  // namespace minitvm::bench
