// HostArray storage, element conversion and layout transposes.
#include <cstring>

#include "minitvm/frontend/pool_executor.h"

namespace minitvm {
namespace frontend {

namespace {

template <typename F>
decltype(auto) visit_dtype(DataType dt, F&& f) {
  if (dt == DataType::Float(32)) return f(float{});
  if (dt == DataType::Float(64)) return f(double{});
  if (dt == DataType::Int(64)) return f(int64_t{});
  if (dt == DataType::Int(32)) return f(int32_t{});
  if (dt == DataType::Int(8)) return f(int8_t{});
  if (dt == DataType::UInt(8)) return f(uint8_t{});
  MINITVM_USER_ERROR << "HostArray: element access for dtype " << dt.str() << " is not supported on the host";
  return f(float{});  // unreachable
}

int64_t product(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
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
    : dtype_(dtype), shape_(std::move(shape)), numel_(product(shape_)) {
  MINITVM_USER_CHECK(numel_ >= 0) << "HostArray: negative dimension in shape";
  bytes_.assign(static_cast<size_t>(numel_) * dtype_.bytes(), std::byte{0});
}

HostArray HostArray::from_doubles(DataType dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
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
