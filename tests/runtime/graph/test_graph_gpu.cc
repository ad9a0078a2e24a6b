// The graph executor on a CUDA device: the fixture network built for "cuda", run with device
// arrays, profiled, exported and loaded back. Skips without a CUDA GPU or NVRTC.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/graph_executor.h"
#include "minitvm/runtime/graph_library.h"
#include "minitvm/runtime/nvrtc.h"
#include "runtime/graph/graph_fixture.h"

namespace minitvm {
namespace {

using namespace graph_test;
using runtime::GraphExecutor;

#define SKIP_WITHOUT_GPU()                                                 \
  if (!runtime::cuda_available())                                          \
    GTEST_SKIP() << "no CUDA GPU: " << runtime::cuda_unavailable_reason(); \
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC is not installed"

void check(GraphExecutor& m, const Params& p, unsigned seed) {
  auto x = rnd(72, seed);
  m.set_input("data", NDArray::from_vector(x, {1, 2, 6, 6}));  // host array, copied to the device
  m.run();
  EXPECT_TRUE(m.get_output(0).device().is_cuda());
  const auto want = reference(x, p);
  for (int o = 0; o < 2; ++o) {
    NDArray host = NDArray::empty({1, 144}, f32);
    m.get_output(o, host);
    const auto got = host.to_vector<float>();
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-5f) << "output " << o << " [" << i << "]";
  }
}

TEST(GraphExecutorGpu, RunsAgainstNaiveLoops) {
  SKIP_WITHOUT_GPU();
  Params p;
  GraphExecutor m(compiled("cuda", p), Device::cuda(0));
  check(m, p, 1);
  check(m, p, 2);
  auto rep = m.profile(3);
  EXPECT_EQ(rep.calls.size(), 12u);
  EXPECT_EQ(rep.calls[0].device, "cuda0");
  EXPECT_THROW(GraphExecutor(compiled("cuda", p), Device::cpu()), RuntimeError);
}

TEST(GraphExecutorGpu, ExportLoadCuda) {
  SKIP_WITHOUT_GPU();
  Params p;
  const std::string path =
      (std::filesystem::temp_directory_path() / "minitvm_graph_gpu.mtvm").string();
  runtime::export_library(compiled("cuda", p), path);
  runtime::CompiledGraph g = runtime::load_compiled_graph(path);
  std::remove(path.c_str());
  EXPECT_EQ(g.lib.type_key(), "cuda");
  GraphExecutor m(g, Device::cuda(0));
  check(m, p, 3);
}

}  // namespace
}  // namespace minitvm
