// NDArray storage, metadata and copies. DLPack exchange lives in dlpack.cc.
#include "minitvm/runtime/ndarray.h"

#include <sys/mman.h>

#include <cstdlib>
#include <functional>
#include <sstream>

#include "minitvm/support/checked_math.h"
#include "runtime/cpu/guarded_memory.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/ndarray_internal.h"

namespace minitvm::runtime {

namespace {

// Compact row-major strides. Only an empty array's strides can overflow (a zero dimension with
// huge others); they are never used to address memory, so they saturate instead of wrapping.
std::vector<int64_t> compact_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc = checked_mul(acc, shape[i]).value_or(INT64_MAX);
  }
  return s;
}

// Shapes are validated on creation (checked_nbytes, DLPack import), so the count exists.
int64_t element_count(const std::vector<int64_t>& shape) {
  return checked_product(shape).value_or(0);
}

// Copies every element of `shape` between two strided layouts (strides in elements). The innermost
// dimension becomes one memcpy when it is contiguous on both sides.
void strided_copy(char* dst, const std::vector<int64_t>& dst_strides, const char* src,
                  const std::vector<int64_t>& src_strides, const std::vector<int64_t>& shape,
                  int64_t esize) {
  const size_t nd = shape.size();
  // Nothing to copy for an empty array (its data pointers may be null: memcpy must not see them).
  for (int64_t d : shape)
    if (d == 0) return;
  if (nd == 0) {
    std::memcpy(dst, src, static_cast<size_t>(esize));
    return;
  }
  std::function<void(size_t, char*, const char*)> rec = [&](size_t d, char* o, const char* i) {
    if (d + 1 == nd) {
      if (dst_strides[d] == 1 && src_strides[d] == 1) {
        std::memcpy(o, i, static_cast<size_t>(shape[d] * esize));
      } else {
        for (int64_t k = 0; k < shape[d]; ++k)
          std::memcpy(o + k * dst_strides[d] * esize, i + k * src_strides[d] * esize,
                      static_cast<size_t>(esize));
      }
      return;
    }
    for (int64_t k = 0; k < shape[d]; ++k)
      rec(d + 1, o + k * dst_strides[d] * esize, i + k * src_strides[d] * esize);
  };
  rec(0, dst, src);
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "]";
  return os.str();
}

// The byte count of a compact array of `shape` and `dtype`; every dimension must be >= 0 and
// neither the element count nor the byte count may overflow int64.
int64_t checked_nbytes(const std::vector<int64_t>& shape, DataType dtype) {
  for (size_t i = 0; i < shape.size(); ++i)
    MINITVM_USER_CHECK(shape[i] >= 0) << "NDArray: negative dimension " << shape[i] << " at axis "
                                      << i << " in shape " << shape_str(shape);
  std::optional<int64_t> n = checked_product(shape);
  MINITVM_USER_CHECK(n) << "NDArray: the element count of shape " << shape_str(shape)
                        << " overflows int64";
  std::optional<int64_t> bytes = checked_mul(*n, dtype.bytes());
  MINITVM_USER_CHECK(bytes) << "NDArray: shape " << shape_str(shape) << " of " << dtype
                            << " needs more than " << INT64_MAX << " bytes (" << *n
                            << " elements of " << dtype.bytes() << " bytes)";
  return *bytes;
}

}  // namespace

NDArray::Container::~Container() {
  if (deleter) deleter();
}

NDArray NDArray::empty(const std::vector<int64_t>& shape, DataType dtype, Device dev) {
  MINITVM_USER_CHECK(dtype.bits() > 0 && dtype.lanes() > 0)
      << "NDArray::empty: invalid dtype " << dtype;
  const size_t nbytes = static_cast<size_t>(checked_nbytes(shape, dtype));
  auto c = std::make_shared<Container>();
  c->shape = shape;
  c->strides = compact_strides(shape);
  c->dtype = dtype;
  c->device = dev;
  if (dev.is_cpu()) {
    const size_t rounded = (nbytes + 63) / 64 * 64;
    // Arrays of 2 MiB or more (a network's weights and activation pools) on 2 MiB-aligned
    // storage marked for transparent huge pages, as PyTorch's CPU allocator does: a kernel that
    // streams a layer's weights takes a TLB miss per 2 MiB instead of per 4 KiB (ResNet-50 on a
    // 2-core Xeon with THP in "madvise" mode: 35.5 -> 35.0 ms). Elsewhere 64-byte alignment.
    constexpr size_t kHuge = size_t(2) << 20;
    void* p;
    if (guard_pages() != GuardPages::Off) {  // a test run looking for out-of-bounds kernels
      p = guarded_alloc(nbytes);
      MINITVM_RUNTIME_CHECK(p) << "NDArray::empty: out of host memory allocating " << nbytes
                               << " bytes";
      c->data = p;
      c->deleter = [p] { guarded_free(p); };
      return NDArray(std::move(c));
    }
    if (rounded >= kHuge) {
      const size_t padded = (rounded + kHuge - 1) / kHuge * kHuge;
      p = std::aligned_alloc(kHuge, padded);
#ifdef MADV_HUGEPAGE
      if (p) (void)madvise(p, padded, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
    } else {
      p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    }
    MINITVM_RUNTIME_CHECK(p) << "NDArray::empty: out of host memory allocating " << nbytes
                             << " bytes";
    c->data = p;
    c->deleter = [p] { std::free(p); };
  } else {
    auto& drv = cuda::CudaDriver::get();  // throws "no CUDA driver found ..." without one
    cuda::CUdeviceptr p = drv.mem_alloc(nbytes, dev.id);
    c->data = reinterpret_cast<void*>(static_cast<uintptr_t>(p));
    int id = dev.id;
    c->deleter = [p, id] { cuda::CudaDriver::get().mem_free(p, id); };
  }
  return NDArray(std::move(c));
}

const std::vector<int64_t>& NDArray::shape() const {
  MINITVM_USER_CHECK(c_) << "NDArray: undefined array";
  return c_->shape;
}
std::vector<int64_t> NDArray::strides() const {
  MINITVM_USER_CHECK(c_) << "NDArray: undefined array";
  return c_->strides;
}
DataType NDArray::dtype() const {
  MINITVM_USER_CHECK(c_) << "NDArray: undefined array";
  return c_->dtype;
}
Device NDArray::device() const {
  MINITVM_USER_CHECK(c_) << "NDArray: undefined array";
  return c_->device;
}
void* NDArray::data() const {
  return c_ ? c_->data : nullptr;
}
int64_t NDArray::size() const {
  return element_count(shape());
}
int64_t NDArray::nbytes() const {
  return size() * dtype().bytes();
}

bool NDArray::is_contiguous() const {
  const auto& sh = shape();
  int64_t expect = 1;
  for (size_t i = sh.size(); i-- > 0;) {
    if (sh[i] != 1 && c_->strides[i] != expect) return false;
    expect = checked_mul(expect, sh[i]).value_or(INT64_MAX);
  }
  return true;
}

NDArray NDArray::contiguous() const {
  if (is_contiguous()) return *this;
  return copy_to(device());
}

std::string NDArray::str() const {
  if (!c_) return "undefined NDArray";
  std::ostringstream os;
  os << c_->dtype << "[";
  for (size_t i = 0; i < c_->shape.size(); ++i) os << (i ? ", " : "") << c_->shape[i];
  os << "] on " << c_->device;
  return os.str();
}

void NDArray::copy_from_bytes(const void* host, size_t n) {
  MINITVM_USER_CHECK(static_cast<int64_t>(n) == nbytes())
      << "NDArray::copy_from_bytes: " << n << " bytes given for " << str() << " (" << nbytes()
      << " bytes)";
  if (device().is_cpu()) {
    strided_copy(static_cast<char*>(c_->data), c_->strides, static_cast<const char*>(host),
                 compact_strides(c_->shape), c_->shape, dtype().bytes());
    return;
  }
  MINITVM_RUNTIME_CHECK(is_contiguous())
      << "NDArray: host copy into a strided CUDA view is not supported";
  cuda::CudaDriver::get().copy_htod(reinterpret_cast<uintptr_t>(c_->data), host, n, device().id);
}

void NDArray::copy_to_bytes(void* host, size_t n) const {
  MINITVM_USER_CHECK(static_cast<int64_t>(n) == nbytes())
      << "NDArray::copy_to_bytes: " << n << " bytes given for " << str() << " (" << nbytes()
      << " bytes)";
  if (device().is_cpu()) {
    strided_copy(static_cast<char*>(host), compact_strides(c_->shape),
                 static_cast<const char*>(c_->data), c_->strides, c_->shape, dtype().bytes());
    return;
  }
  MINITVM_RUNTIME_CHECK(is_contiguous())
      << "NDArray: host copy from a strided CUDA view is not supported";
  cuda::CudaDriver::get().copy_dtoh(host, reinterpret_cast<uintptr_t>(c_->data), n, device().id);
}

void NDArray::copy_from(const NDArray& other) {
  MINITVM_USER_CHECK(defined() && other.defined()) << "NDArray::copy_from: undefined array";
  MINITVM_USER_CHECK(shape() == other.shape() && dtype() == other.dtype())
      << "NDArray::copy_from: cannot copy " << other.str() << " into " << str();
  if (c_ == other.c_) return;
  const Device d = device(), s = other.device();
  if (d.is_cpu() && s.is_cpu()) {
    strided_copy(static_cast<char*>(c_->data), c_->strides, static_cast<const char*>(other.data()),
                 other.c_->strides, c_->shape, dtype().bytes());
  } else if (d.is_cpu()) {  // device -> host
    if (is_contiguous()) {
      other.copy_to_bytes(c_->data, static_cast<size_t>(nbytes()));
    } else {
      NDArray tmp = other.copy_to(Device::cpu());
      copy_from(tmp);
    }
  } else if (s.is_cpu()) {  // host -> device
    NDArray src = other.contiguous();
    copy_from_bytes(src.data(), static_cast<size_t>(nbytes()));
  } else {
    MINITVM_RUNTIME_CHECK(is_contiguous() && other.is_contiguous())
        << "NDArray::copy_from: strided CUDA views cannot be copied";
    auto& drv = cuda::CudaDriver::get();
    if (d.id == s.id) {
      drv.copy_dtod(reinterpret_cast<uintptr_t>(c_->data),
                    reinterpret_cast<uintptr_t>(other.data()), static_cast<size_t>(nbytes()), d.id);
    } else {  // across devices: stage through the host
      copy_from(other.copy_to(Device::cpu()));
    }
  }
}

NDArray NDArray::copy_to(Device dev) const {
  NDArray out = empty(shape(), dtype(), dev);
  out.copy_from(*this);
  return out;
}

}  // namespace minitvm::runtime
