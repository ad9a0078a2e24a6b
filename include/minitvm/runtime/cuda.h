/** \file
 * CUDA modules and devices. The CUDA driver (libcuda.so.1) is loaded with dlopen on first use, so
 * everything here links and runs its non-GPU parts on machines without CUDA; operations that need
 * the GPU throw RuntimeError "no CUDA driver found (libcuda.so.1 could not be loaded): ...".
 *
 * A CUDA module ("cuda") holds PTX, the CUDA C it came from, and for each host function its
 * signature and kernel launches (CudaFunctionInfo in module.h). Calling a function checks the
 * arguments (all buffers on the same cuda(i) device), loads the PTX into that device's context
 * once (cuModuleLoadData), and launches every KernelLaunch in order on the default stream with the
 * recorded grid/block/dynamic shared memory. Kernel parameters are passed in KernelLaunch::args
 * order: buffers as device pointers, scalars in their exact dtype. Launches are asynchronous;
 * copying a result to the host synchronises.
 *
 * File format (save/load): `save(path)` writes the PTX to `path` and a JSON sidecar to
 * `path + ".json"`:
 *   {"format": "minitvm-cuda-module", "version": 1, "arch": "sm_90",
 *    "cuda_source": "...",
 *    "functions": [{"name": "f",
 *                   "args": [{"name": "A", "kind": "buffer", "dtype": "float32", "shape": [1024]},
 *                            {"name": "n", "kind": "scalar", "dtype": "int32"}],
 *                   "launches": [{"kernel": "f_kernel0", "args": [0, 1],
 *                                 "grid": [8, 1, 1], "block": [128, 1, 1],
 *                                 "dynamic_shared_bytes": 0}]}]}
 * load_cuda_module(path) reads both back; no GPU is needed until a function is called.
 */
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "minitvm/runtime/module.h"

namespace minitvm::runtime {

/** Whether a CUDA driver is loaded and reports at least one device. Never throws. */
bool cuda_available();
/** Number of CUDA devices; 0 when there is no driver. Never throws. */
int cuda_device_count();
/** Why there is no usable CUDA device ("" when there is one). */
std::string cuda_unavailable_reason();
/** Compute capability {major, minor} of cuda(device); throws RuntimeError without a driver. */
std::pair<int, int> cuda_compute_capability(int device = 0);
/** Wait for all work on cuda(device). */
void cuda_synchronize(Device dev);

/**
 * A "cuda" module from PTX. get_source("cuda") / get_source("") returns `cuda_source`,
 * get_source("ptx") the PTX. `arch` is recorded in the saved metadata.
 */
Module make_cuda_module(std::string ptx, std::vector<CudaFunctionInfo> functions,
                        std::string cuda_source, std::string arch = "sm_90");
/** Load a module written by Module::save of a "cuda" module; throws RuntimeError on bad files. */
Module load_cuda_module(const std::string& path);

/**
 * Load a "cuda" module's PTX into cuda(dev)'s context now (cuModuleLoadData: the driver
 * JIT-compiles it for the device) instead of at the module's first call on `dev`, which then finds
 * it loaded. Lets a program pay the JIT cost on another thread while it runs other kernels; safe
 * to call from several threads. CompileError for a module that is not "cuda" or a device that is
 * not CUDA; RuntimeError without a driver or when the driver rejects the PTX.
 */
void cuda_module_load(const Module& m, Device dev);

}  // namespace minitvm::runtime
