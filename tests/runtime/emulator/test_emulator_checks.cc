// Emulator self-tests: the violations it must report (as EmulatorError, never a crash).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "minitvm/runtime/cuda_emulator.h"
#include "runtime/emulator/kernels.h"

using namespace minitvm::runtime::emulator;

namespace {

/** Runs a 1-D launch and returns the EmulatorError message ("" if none). */
std::string run_error(const std::string& src, const std::string& name, int64_t grid, int64_t block,
                      std::vector<EmuArg> args) {
  try {
    launch(*compile(src), name, {grid, 1, 1}, {block, 1, 1}, args);
  } catch (const EmulatorError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << "message: " << (msg)

}  // namespace

TEST(EmulatorChecks, ReductionWithoutBarrierIsARace) {
  const char* src =
      R"(extern "C" __global__ void racy_kernel0( float* __restrict__ out,  float* __restrict__ in) {
  __shared__ float red_buf[64];
  red_buf[((int)threadIdx.x)] = in[((int)threadIdx.x)];
  if (((int)threadIdx.x) < 32) {
    red_buf[((int)threadIdx.x)] = (red_buf[((int)threadIdx.x)] + red_buf[(((int)threadIdx.x) + 32)]);
  }
  __syncthreads();
  if (((int)threadIdx.x) == 0) {
    out[0] = red_buf[0];
  }
}
)";
  std::vector<float> in(64, 1.0f), out(1, 0.0f);
  const std::string msg =
      run_error(src, "racy_kernel0", 1, 64, {EmuArg::buffer(out), EmuArg::buffer(in)});
  EXPECT_HAS(msg, "data race on shared memory 'red_buf[32]'");
  EXPECT_HAS(msg, "racy_kernel0");
  EXPECT_HAS(msg, "thread (0,0,0) read it and thread (32,0,0) writes it");
  EXPECT_HAS(msg, "since the start of the block");
}

TEST(EmulatorChecks, WriteWriteRaceAfterABarrierNamesTheInterval) {
  const char* src = R"(extern "C" __global__ void ww_kernel0( int* __restrict__ out) {
  __shared__ int flag[4];
  flag[((int)threadIdx.x)] = 0;
  __syncthreads();
  flag[1] = ((int)threadIdx.x);
  __syncthreads();
  out[((int)threadIdx.x)] = flag[1];
}
)";
  std::vector<int> out(4, 0);
  const std::string msg = run_error(src, "ww_kernel0", 1, 4, {EmuArg::buffer(out)});
  EXPECT_HAS(msg, "'flag[1]'");
  EXPECT_HAS(msg, "thread (0,0,0) and thread (1,0,0) both write it");
  EXPECT_HAS(msg, "after barrier #1 (__syncthreads() at line 4)");
}

TEST(EmulatorChecks, OverlappingFloat4SharedStoresAreARace) {
  const char* src =
      R"(extern "C" __global__ void vrace_kernel0( float* __restrict__ out,  float* __restrict__ in) {
  __shared__ float buf[64];
  ((float4*)(buf + ((((int)threadIdx.x) >> 1) * 4)))[0] = ((float4*)(in + (((int)threadIdx.x) * 4)))[0];
  __syncthreads();
  out[((int)threadIdx.x)] = buf[((int)threadIdx.x)];
}
)";
  std::vector<float> in(64), out(16, 0.0f);
  for (int i = 0; i < 64; ++i) in[i] = static_cast<float>(i);
  const std::string msg =
      run_error(src, "vrace_kernel0", 1, 16, {EmuArg::buffer(out), EmuArg::buffer(in)});
  EXPECT_HAS(msg, "data race on shared memory 'buf[0]'");
  EXPECT_HAS(msg, "thread (0,0,0) and thread (1,0,0) both write it");
}

TEST(EmulatorChecks, BroadcastReadsOfSharedMemoryAreNotRaces) {
  const char* src =
      R"(extern "C" __global__ void bcast_kernel0( float* __restrict__ out,  float* __restrict__ in) {
  __shared__ float buf[4];
  if (((int)threadIdx.x) < 4) {
    buf[((int)threadIdx.x)] = in[((int)threadIdx.x)];
  }
  __syncthreads();
  out[((int)threadIdx.x)] = (((float4*)(buf + 0))[0].w + buf[(((int)threadIdx.x) & 3)]);
}
)";
  std::vector<float> in = {1, 2, 3, 4}, out(32, 0.0f);
  EXPECT_EQ(run_error(src, "bcast_kernel0", 1, 32, {EmuArg::buffer(out), EmuArg::buffer(in)}), "");
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], 4.0f + in[t & 3]);
}

TEST(EmulatorChecks, OutOfBoundsGlobalReadNamesBufferIndexBlockAndThread) {
  const char* src =
      R"(extern "C" __global__ void noguard_kernel0( float* __restrict__ C,  float* __restrict__ A) {
  C[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = (A[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] * 2.000000e+00f);
}
)";
  std::vector<float> a(1000, 1.0f), c(1024, 0.0f);
  const std::string msg =
      run_error(src, "noguard_kernel0", 16, 64, {EmuArg::buffer(c), EmuArg::buffer(a)});
  EXPECT_HAS(msg, "kernel 'noguard_kernel0', block (15,0,0), thread (40,0,0)");
  EXPECT_HAS(
      msg,
      "out-of-bounds access to global buffer 'A' at index 1000 (A has 1000 elements of 4 bytes)");
}

TEST(EmulatorChecks, OutOfBoundsSharedAndLocalAccesses) {
  const char* shared_src = R"(extern "C" __global__ void soob_kernel0( float* __restrict__ out) {
  __shared__ float tile[64];
  tile[(((int)threadIdx.x) + 1)] = 1.000000e+00f;
  __syncthreads();
  out[((int)threadIdx.x)] = tile[((int)threadIdx.x)];
}
)";
  std::vector<float> out(64, 0.0f);
  std::string msg = run_error(shared_src, "soob_kernel0", 1, 64, {EmuArg::buffer(out)});
  EXPECT_HAS(msg, "thread (63,0,0)");
  EXPECT_HAS(
      msg,
      "out-of-bounds access to shared array 'tile' at index 64 (tile has 64 elements of 4 bytes)");

  const char* local_src =
      R"(extern "C" __global__ void loob_kernel0( float* __restrict__ out, int n) {
   float acc_local[4];
  for (int i = 0; i < n; ++i) {
    acc_local[i] = 0.000000e+00f;
  }
  out[((int)threadIdx.x)] = acc_local[0];
}
)";
  msg = run_error(local_src, "loob_kernel0", 1, 2, {EmuArg::buffer(out), EmuArg::scalar_int(5)});
  EXPECT_HAS(
      msg, "out-of-bounds access to local array 'acc_local' at index 4 (acc_local has 4 elements)");
}

TEST(EmulatorChecks, MisalignedFloat4Access) {
  const char* src =
      R"(extern "C" __global__ void mis_kernel0( float* __restrict__ B,  float* __restrict__ A) {
  ((float4*)(B + (((int)threadIdx.x) * 4)))[0] = ((float4*)(A + ((((int)threadIdx.x) * 4) + 1)))[0];
}
)";
  std::vector<float> a(64, 1.0f), b(64, 0.0f);
  const std::string msg =
      run_error(src, "mis_kernel0", 1, 8, {EmuArg::buffer(b), EmuArg::buffer(a)});
  EXPECT_HAS(msg,
             "misaligned vector access to global buffer 'A' at index 1 (needs 16-byte alignment)");
}

TEST(EmulatorChecks, BarrierNotReachedByAllThreads) {
  const char* src = R"(extern "C" __global__ void div_kernel0( float* __restrict__ out) {
  __shared__ float buf[64];
  if (((int)threadIdx.x) < 32) {
    buf[((int)threadIdx.x)] = 1.000000e+00f;
    __syncthreads();
    out[((int)threadIdx.x)] = buf[(31 - ((int)threadIdx.x))];
  }
}
)";
  std::vector<float> out(64, 0.0f);
  const std::string msg = run_error(src, "div_kernel0", 1, 64, {EmuArg::buffer(out)});
  EXPECT_HAS(msg, "__syncthreads() at line 5 is not reached by all threads of the block");
  EXPECT_HAS(
      msg, "32 threads (e.g. thread (0,0,0)) wait at it, 32 threads (e.g. thread (32,0,0)) exited");
}

TEST(EmulatorChecks, ThreadsAtDifferentBarriers) {
  const char* src = R"(extern "C" __global__ void div2_kernel0( float* __restrict__ out) {
  if (((int)threadIdx.x) < 2) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[((int)threadIdx.x)] = 1.000000e+00f;
}
)";
  std::vector<float> out(4, 0.0f);
  const std::string msg = run_error(src, "div2_kernel0", 1, 4, {EmuArg::buffer(out)});
  EXPECT_HAS(msg,
             "threads wait at different __syncthreads() calls: thread (0,0,0) at line 3, thread "
             "(2,0,0) at line 5");
}

TEST(EmulatorChecks, IntegerDivisionByZeroIsReportedNotACrash) {
  const char* src = R"(extern "C" __global__ void fpe_kernel0( int* __restrict__ out, int d) {
  out[((int)threadIdx.x)] = (((int)threadIdx.x) / d);
}
)";
  std::vector<int> out(4, 0);
  const std::string msg =
      run_error(src, "fpe_kernel0", 1, 4, {EmuArg::buffer(out), EmuArg::scalar_int(0)});
  EXPECT_HAS(msg, "fault SIGFPE");
  EXPECT_HAS(msg, "kernel 'fpe_kernel0', block (0,0,0), thread (0,0,0)");
  // The emulator still works afterwards.
  EXPECT_EQ(run_error(src, "fpe_kernel0", 1, 4, {EmuArg::buffer(out), EmuArg::scalar_int(2)}), "");
  EXPECT_EQ(out[3], 1);
}

TEST(EmulatorChecks, InvalidLaunchesAndArguments) {
  auto ck = compile(minitvm_test::kVectorAdd);
  std::vector<float> a(64), b(64), c(64);
  const std::vector<EmuArg> args = {EmuArg::buffer(c), EmuArg::buffer(a), EmuArg::buffer(b),
                                    EmuArg::scalar_int(64)};
  auto msg_of = [&](Dim3 grid, Dim3 block, std::vector<EmuArg> as,
                    const std::string& name = "vadd_kernel0") {
    try {
      launch(*ck, name, grid, block, as);
    } catch (const EmulatorError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_HAS(msg_of({1, 1, 1}, {128, 1, 1}, args), "more threads than __launch_bounds__(64)");
  EXPECT_HAS(msg_of({1, 1, 1}, {2048, 1, 1}, args), "invalid block size");
  EXPECT_HAS(msg_of({1, 1, 1}, {64, 1, 1}, {EmuArg::buffer(c)}), "expected 4 arguments, got 1");
  EXPECT_HAS(msg_of({1, 1, 1}, {64, 1, 1},
                    {EmuArg::buffer(c), EmuArg::buffer(a), EmuArg::buffer(b), EmuArg::buffer(b)}),
             "argument 3 ('n') must be a scalar");
  EXPECT_HAS(msg_of({1, 1, 1}, {64, 1, 1}, args, "nope"),
             "no kernel 'nope' in the source (it has: vadd_kernel0)");
}

TEST(EmulatorChecks, TooMuchStaticSharedMemory) {
  const char* src = R"(extern "C" __global__ void big_kernel0( float* __restrict__ out) {
  __shared__ float big[16384];
  big[((int)threadIdx.x)] = 0.000000e+00f;
  out[0] = 0.000000e+00f;
}
)";
  std::vector<float> out(1);
  EXPECT_HAS(run_error(src, "big_kernel0", 1, 1, {EmuArg::buffer(out)}),
             "CUDA allows at most 48 KiB");
}

TEST(EmulatorChecks, CompileErrorCarriesLogAndNumberedSource) {
  const char* src = R"(extern "C" __global__ void bad_kernel0( float* __restrict__ out) {
  out[0] = undefined_name;
}
)";
  try {
    compile(src);
    FAIL() << "no error";
  } catch (const EmulatorError& e) {
    const std::string msg = e.what();
    EXPECT_HAS(msg, "host compilation of the CUDA source failed");
    EXPECT_HAS(msg, "kernel.cu:2");
    EXPECT_HAS(msg, "undefined_name");
    EXPECT_HAS(msg, "   2 |   out[0] = undefined_name;");  // support::with_line_numbers
  }
}
