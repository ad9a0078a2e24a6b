// HostArray storage, element conversion and layout transposes.
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <sstream>

#include "frontend/host_dtype.h"
#include "minitvm/frontend/pool_executor.h"
#include "minitvm/support/checked_math.h"

namespace minitvm {
namespace frontend {

namespace {

template <typename F>
decltype(auto) visit_dtype(DataType dt, F&& f) {
  return detail::visit_host_dtype(dt, "HostArray: element access", std::forward<F>(f));
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

// Element count of a HostArray shape: dimensions >= 0, no int64 overflow in elements or bytes.
int64_t checked_numel(DataType dtype, const std::vector<int64_t>& s) {
  for (size_t i = 0; i < s.size(); ++i)
    MINITVM_USER_CHECK(s[i] >= 0) << "HostArray: negative dimension " << s[i] << " at axis " << i
                                  << " in shape " << shape_str(s);
  std::optional<int64_t> n = checked_product(s);
  MINITVM_USER_CHECK(n) << "HostArray: the element count of shape " << shape_str(s)
                        << " overflows int64";
  MINITVM_USER_CHECK(checked_mul(*n, dtype.bytes()))
      << "HostArray: shape " << shape_str(s) << " of " << dtype.str() << " needs more than "
      << INT64_MAX << " bytes";
  return *n;
}

// Whether v converts to T without undefined behaviour or loss of the integer part: NaN and values
// outside T's range do not (float -> integer conversion of those is undefined in C++).
template <typename T>
bool fits(double v) {
  if constexpr (std::is_floating_point_v<T>) {
    return true;
  } else {
    // [lowest, max + 1) is exact in double for every integer type up to 64 bits.
    return !std::isnan(v) && v >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
           v < static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
  }
}

// Moves axis `from` of a row-major array to position `to` (byte-wise element copies).
HostArray move_axis(const HostArray& a, int from, int to) {
  std::vector<int64_t> shape = a.shape();
  std::vector<int64_t> perm(shape.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  perm.erase(perm.begin() + from);
  perm.insert(perm.begin() + to, from);
  std::vector<int64_t> out_shape;
  for (int64_t p : perm) out_shape.push_back(shape[p]);
  HostArray out(a.dtype(), out_shape);
  size_t es = static_cast<size_t>(a.dtype().bytes());
  int nd = static_cast<int>(shape.size());
  std::vector<int64_t> in_strides(nd, 1);
  for (int i = nd - 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * shape[i + 1];
  std::vector<int64_t> idx(nd, 0);
  const auto* src = static_cast<const std::byte*>(a.raw());
  auto* dst = static_cast<std::byte*>(out.raw());
  for (int64_t o = 0; o < out.numel(); ++o) {
    int64_t off = 0;
    for (int i = 0; i < nd; ++i) off += idx[i] * in_strides[perm[i]];
    std::memcpy(dst + o * es, src + off * es, es);
    for (int i = nd - 1; i >= 0; --i) {
      if (++idx[i] < out_shape[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

}  // namespace

HostArray::HostArray(DataType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)), numel_(checked_numel(dtype_, shape_)) {
  const size_t n = static_cast<size_t>(numel_) * static_cast<size_t>(dtype_.bytes());
  try {
    bytes_.assign(n, std::byte{0});
  } catch (const std::bad_alloc&) {
    MINITVM_RUNTIME_CHECK(false) << "HostArray: out of host memory allocating " << n
                                 << " bytes for shape " << shape_str(shape_) << " of "
                                 << dtype_.str();
  } catch (const std::length_error&) {
    MINITVM_RUNTIME_CHECK(false) << "HostArray: cannot allocate " << n << " bytes for shape "
                                 << shape_str(shape_) << " of " << dtype_.str();
  }
}

HostArray HostArray::from_doubles(DataType dtype, std::vector<int64_t> shape,
                                  const std::vector<double>& values) {
  HostArray a(dtype, std::move(shape));
  MINITVM_USER_CHECK(static_cast<int64_t>(values.size()) == a.numel())
      << "HostArray: " << values.size() << " values for a shape of " << a.numel() << " elements";
  for (int64_t i = 0; i < a.numel(); ++i) a.set(i, values[i]);
  return a;
}

void HostArray::check_type(size_t size, DataType::Code code) const {
  MINITVM_ICHECK(static_cast<int>(size) * 8 == dtype_.bits() && code == dtype_.code())
      << "HostArray of " << dtype_.str() << " accessed with a different element type";
}

double HostArray::get(int64_t i) const {
  return visit_dtype(dtype_, [&](auto t) -> double {
    using T = decltype(t);
    T v;
    std::memcpy(&v, bytes_.data() + i * sizeof(T), sizeof(T));
    return static_cast<double>(v);
  });
}

int64_t HostArray::get_int(int64_t i) const {
  return visit_dtype(dtype_, [&](auto t) -> int64_t {
    using T = decltype(t);
    T v;
    std::memcpy(&v, bytes_.data() + i * sizeof(T), sizeof(T));
    return static_cast<int64_t>(v);
  });
}

void HostArray::set(int64_t i, double v) {
  visit_dtype(dtype_, [&](auto t) {
    using T = decltype(t);
    MINITVM_USER_CHECK(fits<T>(v))
        << "HostArray: value " << v << " at element " << i << " does not fit in " << dtype_.str();
    T x = static_cast<T>(v);
    std::memcpy(bytes_.data() + i * sizeof(T), &x, sizeof(T));
    return 0;
  });
}

void HostArray::set_int(int64_t i, int64_t v) {
  visit_dtype(dtype_, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_integral_v<T>) {
      MINITVM_USER_CHECK(v >= static_cast<int64_t>(std::numeric_limits<T>::lowest()) &&
                         v <= static_cast<int64_t>(std::numeric_limits<T>::max()))
          << "HostArray: value " << v << " at element " << i << " does not fit in " << dtype_.str();
    }
    T x = static_cast<T>(v);
    std::memcpy(bytes_.data() + i * sizeof(T), &x, sizeof(T));
    return 0;
  });
}

std::vector<double> HostArray::to_doubles() const {
  std::vector<double> v(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) v[i] = get(i);
  return v;
}

HostArray to_channels_first(const HostArray& a, int spatial_rank, bool batched) {
  int nd = static_cast<int>(a.shape().size());
  MINITVM_USER_CHECK(nd == spatial_rank + 1 + (batched ? 1 : 0))
      << "to_channels_first: rank " << nd << " does not match " << spatial_rank << "-d pooling";
  return move_axis(a, nd - 1, batched ? 1 : 0);
}

HostArray to_channels_last(const HostArray& a, int spatial_rank, bool batched) {
  int nd = static_cast<int>(a.shape().size());
  MINITVM_USER_CHECK(nd == spatial_rank + 1 + (batched ? 1 : 0))
      << "to_channels_last: rank " << nd << " does not match " << spatial_rank << "-d pooling";
  return move_axis(a, batched ? 1 : 0, nd - 1);
}

}  // namespace frontend
}  // namespace minitvm
