#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <numeric>

#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/workspace.h"
#include "runtime/cpu/guarded_memory.h"

using namespace minitvm;
using runtime::NDArray;

TEST(NDArray, EmptyIsAlignedCompactAndSized) {
  NDArray a = NDArray::empty({3, 5, 7}, DataType::Float(32));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u);
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{3, 5, 7}));
  EXPECT_EQ(a.strides(), (std::vector<int64_t>{35, 7, 1}));
  EXPECT_EQ(a.size(), 105);
  EXPECT_EQ(a.nbytes(), 420);
  EXPECT_EQ(a.ndim(), 3);
  EXPECT_TRUE(a.is_contiguous());
  EXPECT_EQ(a.device(), Device::cpu());
  EXPECT_EQ(a.str(), "float32[3, 5, 7] on cpu(0)");
  NDArray s = NDArray::empty({}, DataType::Int(64));  // 0-d
  EXPECT_EQ(s.size(), 1);
  NDArray z = NDArray::empty({0, 4}, DataType::Int(8));
  EXPECT_EQ(z.size(), 0);
  EXPECT_NE(z.data(), nullptr);
  // 2 MiB and more (weights, activation pools): 2 MiB-aligned, for transparent huge pages; the
  // whole array is usable (written end to end) and reads back.
  NDArray big = NDArray::empty({3, 1 << 18}, DataType::Float(32));  // 3 MiB
  if (runtime::guard_pages() == runtime::GuardPages::Off)  // (else placed against a guard page)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(big.data()) % (uintptr_t(2) << 20), 0u);
  std::vector<float> v(size_t(3) << 18);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 1000);
  big.copy_from_bytes(v.data(), v.size() * sizeof(float));
  EXPECT_EQ(big.to_vector<float>(), v);
}

TEST(NDArray, FromVectorRoundTripsEachType) {
  std::vector<double> d = {1.5, -2.25, 3e100};
  EXPECT_EQ(NDArray::from_vector(d, {3}).to_vector<double>(), d);
  EXPECT_EQ(NDArray::from_vector(d, {3}).dtype(), DataType::Float(64));
  std::vector<int8_t> i8 = {-128, 0, 127, 5};
  EXPECT_EQ(NDArray::from_vector(i8, {2, 2}).to_vector<int8_t>(), i8);
  std::vector<uint64_t> u64 = {~0ull, 1};
  EXPECT_EQ(NDArray::from_vector(u64, {2}).dtype(), DataType::UInt(64));
  EXPECT_EQ(NDArray::from_vector(u64, {2}).to_vector<uint64_t>(), u64);
  std::vector<bool> b = {true, false, true};
  NDArray bn = NDArray::from_vector(b, {3});
  EXPECT_EQ(bn.dtype(), DataType::Bool());
  EXPECT_EQ(bn.nbytes(), 3);
  EXPECT_EQ(bn.to_vector<bool>(), b);
}

TEST(NDArray, ToVectorRejectsWrongType) {
  NDArray a = NDArray::from_vector(std::vector<float>{1, 2}, {2});
  try {
    a.to_vector<double>();
    FAIL() << "no throw";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("float64 does not match dtype float32"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(a.to_vector<int32_t>(), CompileError);  // same size, different kind
  EXPECT_THROW(NDArray::from_vector(std::vector<float>{1, 2, 3}, {2}), CompileError);
  EXPECT_THROW(NDArray::empty({2, -1}, DataType::Float(32)), CompileError);
}

TEST(NDArray, HalfTypesStoreBitPatterns) {
  // 1.0 = 0x3C00 in float16, 0x3F80 in bfloat16; -2.0 = 0xC000 / 0xC000.
  std::vector<uint16_t> h = {0x3C00, 0xC000, 0x7C00};
  NDArray a = NDArray::from_vector(h, {3}, DataType::Float(16));
  EXPECT_EQ(a.dtype(), DataType::Float(16));
  EXPECT_EQ(a.nbytes(), 6);
  EXPECT_EQ(a.to_vector<uint16_t>(), h);
  NDArray b = NDArray::from_vector(std::vector<uint16_t>{0x3F80}, {1}, DataType::BFloat(16));
  EXPECT_EQ(b.to_vector<uint16_t>()[0], 0x3F80);
  EXPECT_THROW(a.to_vector<float>(), CompileError);
  EXPECT_THROW(NDArray::from_vector(std::vector<float>{1}, {1}, DataType::Float(16)), CompileError);
}

TEST(NDArray, CopiesAreDeep) {
  NDArray a = NDArray::from_vector(std::vector<int32_t>{1, 2, 3, 4}, {2, 2});
  NDArray b = a.copy_to(Device::cpu());
  EXPECT_NE(a.data(), b.data());
  static_cast<int32_t*>(a.data())[0] = 100;
  EXPECT_EQ(b.to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4}));
  NDArray c = NDArray::empty({2, 2}, DataType::Int(32));
  c.copy_from(a);
  EXPECT_EQ(c.to_vector<int32_t>(), (std::vector<int32_t>{100, 2, 3, 4}));
  EXPECT_THROW(c.copy_from(NDArray::empty({4}, DataType::Int(32))), CompileError);
  EXPECT_THROW(c.copy_from(NDArray::empty({2, 2}, DataType::Float(32))), CompileError);
  EXPECT_THROW(c.copy_from_bytes(a.data(), 3), CompileError);
}

TEST(NDArray, NoDriverGivesClearError) {
  // This test documents the no-driver path; on a machine with a GPU it is skipped.
  try {
    NDArray g = NDArray::empty({4}, DataType::Float(32), Device::cuda(0));
    GTEST_SKIP() << "a CUDA driver is present; the no-driver error cannot be observed";
  } catch (const RuntimeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("no CUDA driver found (libcuda.so.1 could not be loaded): "),
              std::string::npos)
        << m;
  }
}

TEST(DLPack, ExportKeepsArrayAliveAndDescribesIt) {
  DLManagedTensor* t = nullptr;
  void* data = nullptr;
  {
    NDArray a = NDArray::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
    data = a.data();
    t = a.to_dlpack();
  }  // the NDArray handle is gone; the DLPack tensor still owns the memory
  EXPECT_EQ(t->dl_tensor.data, data);
  EXPECT_EQ(t->dl_tensor.ndim, 2);
  EXPECT_EQ(t->dl_tensor.shape[0], 2);
  EXPECT_EQ(t->dl_tensor.shape[1], 3);
  EXPECT_EQ(t->dl_tensor.strides[0], 3);
  EXPECT_EQ(t->dl_tensor.strides[1], 1);
  EXPECT_EQ(t->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(t->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(t->dl_tensor.dtype.lanes, 1);
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(static_cast<float*>(t->dl_tensor.data)[5], 6.0f);
  t->deleter(t);
}

TEST(DLPack, RoundTripIsZeroCopy) {
  NDArray a = NDArray::from_vector(std::vector<int64_t>{7, 8, 9}, {3});
  NDArray b = NDArray::from_dlpack(a.to_dlpack());
  EXPECT_EQ(a.data(), b.data());
  EXPECT_EQ(b.dtype(), DataType::Int(64));
  EXPECT_EQ(b.to_vector<int64_t>(), (std::vector<int64_t>{7, 8, 9}));
  NDArray h = NDArray::from_vector(std::vector<uint16_t>{0x3C00}, {1}, DataType::BFloat(16));
  EXPECT_EQ(NDArray::from_dlpack(h.to_dlpack()).dtype(), DataType::BFloat(16));
  NDArray bo = NDArray::from_vector(std::vector<bool>{true, false}, {2});
  DLManagedTensor* bt = bo.to_dlpack();
  EXPECT_EQ(bt->dl_tensor.dtype.bits, 8);
  EXPECT_EQ(NDArray::from_dlpack(bt).to_vector<bool>(), (std::vector<bool>{true, false}));
}

namespace {
// A foreign producer: a column-major 3x4 float32 matrix with a byte offset and a counting deleter.
struct Producer {
  std::vector<float> storage;
  int64_t shape[2] = {3, 4};
  int64_t strides[2] = {1, 3};  // column-major
  DLManagedTensor managed{};
  int* deleted;
};
void producer_deleter(DLManagedTensor* t) {
  auto* p = static_cast<Producer*>(t->manager_ctx);
  ++*p->deleted;
  delete p;
}
DLManagedTensor* make_column_major(int* deleted) {
  auto* p = new Producer();
  p->deleted = deleted;
  p->storage.assign(1 + 12, 0.0f);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) p->storage[1 + i + 3 * j] = float(10 * i + j);
  DLTensor& t = p->managed.dl_tensor;
  t.data = p->storage.data();
  t.byte_offset = sizeof(float);  // element 0 is storage[1]
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = p->shape;
  t.strides = p->strides;
  p->managed.manager_ctx = p;
  p->managed.deleter = producer_deleter;
  return &p->managed;
}
}  // namespace

TEST(DLPack, ImportHonoursStridesAsViewAndReleasesProducer) {
  int deleted = 0;
  {
    NDArray v = NDArray::from_dlpack(make_column_major(&deleted));
    EXPECT_FALSE(v.is_contiguous());
    EXPECT_EQ(v.strides(), (std::vector<int64_t>{1, 3}));
    std::vector<float> expect;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) expect.push_back(float(10 * i + j));
    EXPECT_EQ(v.to_vector<float>(), expect);  // row-major order regardless of strides
    NDArray c = v.contiguous();
    EXPECT_TRUE(c.is_contiguous());
    EXPECT_EQ(c.to_vector<float>(), expect);
    // Writing through the view reaches the producer's memory (it is not a copy).
    std::vector<float> ones(12, 1.0f);
    v.copy_from_bytes(ones.data(), ones.size() * sizeof(float));
    EXPECT_EQ(v.to_vector<float>(), ones);
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(DLPack, RejectedImportStillReleasesProducer) {
  int deleted = 0;
  DLManagedTensor* t = make_column_major(&deleted);
  t->dl_tensor.dtype = {5 /* kDLComplex */, 64, 1};
  EXPECT_THROW(NDArray::from_dlpack(t), CompileError);
  EXPECT_EQ(deleted, 1);
}

TEST(DLPack, ImportRejectsOverflowingShapeAndReleasesProducer) {
  int deleted = 0;
  DLManagedTensor* t = make_column_major(&deleted);
  int64_t huge[2] = {int64_t{1} << 32, int64_t{1} << 32};  // 2^64 elements would wrap to 0
  t->dl_tensor.shape = huge;
  try {
    NDArray::from_dlpack(t);
    ADD_FAILURE() << "accepted a 2^64-element shape";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "NDArray::from_dlpack: the element or byte count of the 2-d shape overflows "
                  "int64"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(deleted, 1);
}

// A shape whose element count wraps to 0 used to give a 0-byte array with that shape, which passed
// the argument check of a compiled function and then made the kernel write far out of bounds.
TEST(NDArray, EmptyRejectsElementAndByteCountOverflow) {
  auto message = [](const std::vector<int64_t>& shape, DataType dt) -> std::string {
    try {
      NDArray::empty(shape, dt);
    } catch (const CompileError& e) {
      return e.what();
    }
    return "no error";
  };
  std::string m =
      message({int64_t{1} << 32, int64_t{1} << 32}, DataType::Float(32));  // 2^64 elements
  EXPECT_NE(m.find("element count of shape [4294967296, 4294967296] overflows int64"),
            std::string::npos)
      << m;
  m = message({int64_t{1} << 62}, DataType::Float(32));  // 2^62 elements fit, 2^64 bytes do not
  EXPECT_NE(
      m.find("shape [4611686018427387904] of float32 needs more than 9223372036854775807 bytes"),
      std::string::npos)
      << m;
  m = message({3, -2}, DataType::Float(32));
  EXPECT_NE(m.find("negative dimension -2 at axis 1 in shape [3, -2]"), std::string::npos) << m;
  // A zero dimension makes the array empty whatever the other dimensions are.
  NDArray z = NDArray::empty({0, int64_t{1} << 40, int64_t{1} << 40}, DataType::Float(32));
  EXPECT_EQ(z.size(), 0);
  EXPECT_EQ(z.nbytes(), 0);
}

// Empty arrays copy nothing: the host side may be a null pointer (an empty std::vector's data()),
// which memcpy must never receive (UBSan: null pointer passed as argument declared nonnull).
TEST(NDArray, EmptyArraysCopyWithoutTouchingPointers) {
  NDArray a = NDArray::from_vector(std::vector<float>{}, {2, 0});
  EXPECT_EQ(a.size(), 0);
  EXPECT_TRUE(a.to_vector<float>().empty());
  a.copy_from_bytes(nullptr, 0);
  a.copy_to_bytes(nullptr, 0);
  NDArray b = NDArray::empty({2, 0}, DataType::Float(32));
  b.copy_from(a);
  EXPECT_EQ(a.copy_to(Device::cpu()).shape(), (std::vector<int64_t>{2, 0}));
}

namespace {
/** Whether the byte at `p` can be read: write(2) from an inaccessible address fails with EFAULT
 *  instead of faulting. */
bool readable(const void* p) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const ssize_t n = write(fds[1], p, 1);
  const int err = errno;
  close(fds[0]);
  close(fds[1]);
  if (n == 1) return true;
  if (err != EFAULT) throw std::runtime_error("write failed: " + std::to_string(err));
  return false;
}

}  // namespace

// MINITVM_GUARD_PAGES (what the sanitizer stage sets): arrays and workspace blocks end at or start
// at an inaccessible page, 64-byte aligned; every byte of them is usable; in turn when alternating.
TEST(NDArray, GuardPagesFenceArraysAndWorkspaceBlocks) {
  using runtime::GuardPages;
  for (int64_t n : {1, 100, 1024, 5000}) {
    SCOPED_TRACE(n);
    {
      runtime::ScopedGuardPages g(GuardPages::After);
      NDArray a = NDArray::empty({n}, DataType::Float(32));
      auto* p = static_cast<const char*>(a.data());
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
      std::vector<float> v(static_cast<size_t>(n), 2.5f);
      a.copy_from_bytes(v.data(), v.size() * 4);
      EXPECT_EQ(a.to_vector<float>(), v);
      EXPECT_FALSE(readable(p + (n * 4 + 63) / 64 * 64));  // the first byte after the slack
      EXPECT_TRUE(readable(p + n * 4 - 1));
    }
    {
      runtime::ScopedGuardPages g(GuardPages::Before);
      NDArray a = NDArray::empty({n}, DataType::Float(32));
      auto* p = static_cast<const char*>(a.data());
      EXPECT_FALSE(readable(p - 1));
      EXPECT_TRUE(readable(p));
      EXPECT_TRUE(readable(p + n * 4 - 1));
      void* w = minitvm_workspace_alloc(n * 4);
      auto* q = static_cast<const char*>(w);
      EXPECT_FALSE(readable(q - 1));
      std::fill_n(static_cast<float*>(w), n, 1.f);
      minitvm_workspace_free(w);
    }
  }
  runtime::ScopedGuardPages g(GuardPages::Alternate);
  NDArray x = NDArray::empty({10}, DataType::Float(32)),
          y = NDArray::empty({10}, DataType::Float(32));
  const bool x_before = !readable(static_cast<const char*>(x.data()) - 1);
  const bool y_before = !readable(static_cast<const char*>(y.data()) - 1);
  EXPECT_NE(x_before, y_before);
  // Blocks freed after the mode is off again go back to the system (no mix-up of allocators).
  void* w = minitvm_workspace_alloc(256);
  runtime::set_guard_pages(GuardPages::Off);
  minitvm_workspace_free(w);
}
