// The CUDA driver API through dlopen. Prototypes follow cuda.h (the `_v2` entry points are the ones
// cuda.h maps the plain names to on 64-bit hosts).
#include "runtime/cuda/cuda_driver.h"

#include <dlfcn.h>

#include <mutex>
#include <sstream>

#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

namespace minitvm::runtime::cuda {

struct CudaDriver::Api {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);

  std::mutex mu;
  std::array<CUcontext, 64> contexts{};
};

namespace {
std::once_flag g_once;
std::string g_error;  // set when loading failed
CudaDriver* g_driver = nullptr;

template <typename F>
void bind(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) throw RuntimeError(std::string("CUDA driver is missing symbol ") + name);
}
}  // namespace

void CudaDriver::load() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw RuntimeError(std::string("no CUDA driver found (libcuda.so.1 could not be loaded): ") +
                       (why ? why : "unknown dlopen error"));
  }
  auto* a = new Api();
  bind(lib, a->cuInit, "cuInit");
  bind(lib, a->cuGetErrorName, "cuGetErrorName");
  bind(lib, a->cuGetErrorString, "cuGetErrorString");
  bind(lib, a->cuDeviceGetCount, "cuDeviceGetCount");
  bind(lib, a->cuDeviceGet, "cuDeviceGet");
  bind(lib, a->cuDeviceGetAttribute, "cuDeviceGetAttribute");
  bind(lib, a->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(lib, a->cuCtxSetCurrent, "cuCtxSetCurrent");
  bind(lib, a->cuCtxSynchronize, "cuCtxSynchronize");
  bind(lib, a->cuMemAlloc, "cuMemAlloc_v2");
  bind(lib, a->cuMemFree, "cuMemFree_v2");
  bind(lib, a->cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  bind(lib, a->cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  bind(lib, a->cuMemcpyDtoD, "cuMemcpyDtoD_v2");
  bind(lib, a->cuModuleLoadData, "cuModuleLoadData");
  bind(lib, a->cuModuleUnload, "cuModuleUnload");
  bind(lib, a->cuModuleGetFunction, "cuModuleGetFunction");
  bind(lib, a->cuFuncSetAttribute, "cuFuncSetAttribute");
  bind(lib, a->cuLaunchKernel, "cuLaunchKernel");
  bind(lib, a->cuEventCreate, "cuEventCreate");
  bind(lib, a->cuEventRecord, "cuEventRecord");
  bind(lib, a->cuEventSynchronize, "cuEventSynchronize");
  bind(lib, a->cuEventElapsedTime, "cuEventElapsedTime");
  bind(lib, a->cuEventDestroy, "cuEventDestroy_v2");
  api_ = a;
  check(a->cuInit(0), "cuInit (CUDA driver initialisation)");
}

CudaDriver& CudaDriver::get() {
  std::call_once(g_once, [] {
    auto* d = new CudaDriver();  // process lifetime: kernels may run during static destruction
    try {
      d->load();
      g_driver = d;
    } catch (const std::exception& e) {
      g_error = e.what();
      delete d;
    }
  });
  if (!g_driver) throw RuntimeError(g_error);
  return *g_driver;
}

bool CudaDriver::available() {
  try {
    get();
    return true;
  } catch (const RuntimeError&) {
    return false;
  }
}

std::string CudaDriver::unavailable_reason() {
  return available() ? std::string() : g_error;
}

std::string CudaDriver::error_name(CUresult r) {
  const char* name = nullptr;
  if (api_ && api_->cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUDA error " + std::to_string(r);
}

void CudaDriver::check(CUresult r, const std::string& what) {
  if (r == CUDA_SUCCESS) return;
  const char* desc = nullptr;
  if (api_) api_->cuGetErrorString(r, &desc);
  std::ostringstream os;
  os << what << " failed: " << error_name(r);
  if (desc) os << " (" << desc << ")";
  throw RuntimeError(os.str());
}

int CudaDriver::device_count() {
  int n = 0;
  check(api_->cuDeviceGetCount(&n), "cuDeviceGetCount");
  return n;
}

std::pair<int, int> CudaDriver::compute_capability(int device) {
  CUdevice dev = 0;
  check(api_->cuDeviceGet(&dev, device), "cuDeviceGet(" + std::to_string(device) + ")");
  int major = 0, minor = 0;
  check(api_->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
        "cuDeviceGetAttribute");
  check(api_->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
        "cuDeviceGetAttribute");
  return {major, minor};
}

void CudaDriver::set_device(int device) {
  MINITVM_RUNTIME_CHECK(device >= 0 && device < static_cast<int>(api_->contexts.size()))
      << "CUDA device id " << device << " out of range";
  CUcontext ctx = nullptr;
  {
    std::lock_guard<std::mutex> lock(api_->mu);
    ctx = api_->contexts[device];
    if (!ctx) {
      int n = device_count();
      MINITVM_RUNTIME_CHECK(device < n)
          << "cuda(" << device << ") requested but the driver reports " << n << " device(s)";
      CUdevice dev = 0;
      check(api_->cuDeviceGet(&dev, device), "cuDeviceGet");
      check(api_->cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
      api_->contexts[device] = ctx;
    }
  }
  check(api_->cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

CUdeviceptr CudaDriver::mem_alloc(size_t nbytes, int device) {
  set_device(device);
  CUdeviceptr p = 0;
  check(api_->cuMemAlloc(&p, nbytes == 0 ? 1 : nbytes),
        "cuMemAlloc(" + std::to_string(nbytes) + " bytes on cuda(" + std::to_string(device) + "))");
  return p;
}

void CudaDriver::mem_free(CUdeviceptr ptr, int device) noexcept {
  try {
    set_device(device);
    check(api_->cuMemFree(ptr), "cuMemFree");
  } catch (const std::exception& e) {
    log_warning(e.what());
  }
}

void CudaDriver::copy_htod(CUdeviceptr dst, const void* src, size_t nbytes, int device) {
  set_device(device);
  check(api_->cuMemcpyHtoD(dst, src, nbytes), "cuMemcpyHtoD");
}

void CudaDriver::copy_dtoh(void* dst, CUdeviceptr src, size_t nbytes, int device) {
  set_device(device);
  check(api_->cuMemcpyDtoH(dst, src, nbytes), "cuMemcpyDtoH");
}

void CudaDriver::copy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t nbytes, int device) {
  set_device(device);
  check(api_->cuMemcpyDtoD(dst, src, nbytes), "cuMemcpyDtoD");
}

void CudaDriver::synchronize(int device) {
  set_device(device);
  check(api_->cuCtxSynchronize(), "cuCtxSynchronize");
}

CUmodule CudaDriver::module_load(const std::string& image, int device) {
  set_device(device);
  CUmodule m = nullptr;
  // PTX must be NUL-terminated; std::string::c_str() guarantees it.
  check(api_->cuModuleLoadData(&m, image.c_str()), "cuModuleLoadData");
  return m;
}

void CudaDriver::module_unload(CUmodule mod) noexcept {
  CUresult r = api_->cuModuleUnload(mod);
  if (r != CUDA_SUCCESS) log_warning("cuModuleUnload failed: " + error_name(r));
}

CUfunction CudaDriver::module_get_function(CUmodule mod, const std::string& name) {
  CUfunction f = nullptr;
  check(api_->cuModuleGetFunction(&f, mod, name.c_str()), "cuModuleGetFunction('" + name + "')");
  return f;
}

void CudaDriver::launch(CUfunction f, const std::array<int64_t, 3>& grid,
                        const std::array<int64_t, 3>& block, int64_t dynamic_shared_bytes,
                        void** params, const std::string& kernel_name) {
  if (dynamic_shared_bytes > 48 * 1024) {
    check(api_->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   static_cast<int>(dynamic_shared_bytes)),
          "cuFuncSetAttribute(" + kernel_name + ", max dynamic shared memory)");
  }
  std::ostringstream what;
  what << "cuLaunchKernel(" << kernel_name << ", grid " << grid[0] << "x" << grid[1] << "x"
       << grid[2] << ", block " << block[0] << "x" << block[1] << "x" << block[2] << ")";
  check(api_->cuLaunchKernel(f, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
                             static_cast<unsigned>(grid[2]), static_cast<unsigned>(block[0]),
                             static_cast<unsigned>(block[1]), static_cast<unsigned>(block[2]),
                             static_cast<unsigned>(dynamic_shared_bytes), nullptr, params, nullptr),
        what.str());
}

CUevent CudaDriver::event_create(int device) {
  set_device(device);
  CUevent e = nullptr;
  check(api_->cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  return e;
}

void CudaDriver::event_record(CUevent e) {
  check(api_->cuEventRecord(e, nullptr), "cuEventRecord");
}

float CudaDriver::event_elapsed_ms(CUevent start, CUevent end) {
  check(api_->cuEventSynchronize(end), "cuEventSynchronize");
  float ms = 0;
  check(api_->cuEventElapsedTime(&ms, start, end), "cuEventElapsedTime");
  return ms;
}

void CudaDriver::event_destroy(CUevent e) noexcept {
  if (e) api_->cuEventDestroy(e);
}

}  // namespace minitvm::runtime::cuda
