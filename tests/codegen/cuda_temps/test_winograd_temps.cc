// Winograd conv2d on CUDA runs as several kernels (kernel_pack, data_pack, bgemm, inverse/output)
// that communicate through global temporaries; built for "cuda -emulate" with a fixed config and
// compared with a naive direct convolution.
#include <gtest/gtest.h>

#include <minitvm/autotune/dispatch.h>
#include <minitvm/topi/cuda_schedule.h>
#include <minitvm/topi/layer.h>

#include "minitvm/runtime/nvrtc.h"
#include "minitvm/runtime/ptxas.h"
#include "topi/ref.h"

namespace {

using namespace minitvm;
using namespace topi_test;
using autotune::ConfigEntity;
using autotune::OtherOptionEntity;
using autotune::SplitEntity;
namespace nn = minitvm::topi::nn;

std::vector<float> run_layer(const topi::LayerBuild& L,
                             const std::vector<std::vector<float>>& inputs) {
  std::vector<runtime::ArgValue> args;
  for (size_t i = 0; i + 1 < L.args.size(); ++i)
    args.push_back(runtime::NDArray::from_vector(inputs[i], nn::const_shape(L.args[i])));
  auto out = runtime::NDArray::empty(nn::const_shape(L.args.back()), DataType::Float(32));
  args.push_back(out);
  L.module.get_function(L.func_name).call(args);
  return out.to_vector<float>();
}

ConfigEntity winograd_cfg() {
  ConfigEntity c;
  c.template_key = "winograd";
  c.set("tile_b", SplitEntity{{-1, 1, 1, 1}});
  c.set("tile_y", SplitEntity{{-1, 1, 4, 2}});
  c.set("tile_x", SplitEntity{{-1, 1, 4, 1}});
  c.set("tile_rc", SplitEntity{{-1, 2}});
  c.set("auto_unroll_max_step", OtherOptionEntity{128});
  c.set("unroll_explicit", OtherOptionEntity{1});
  return c;
}

TEST(CudaTempsWinograd, Conv2dEmulatedMatchesDirectReference) {
  ConvShape s{1, 4, 8, 8, 8, 3, 3, 1, 1, {1, 1, 1, 1}};
  autotune::ApplyConfig ctx(winograd_cfg());
  autotune::DispatchScope scope(ctx);
  auto L =
      topi::build_conv2d({1, 4, 8, 8}, {8, 4, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}, "cuda -emulate");
  ASSERT_EQ(L.template_key, "winograd");
  EXPECT_FALSE(L.is_fallback);
  // Several kernels: the transformed kernel, the transformed data and the batched GEMM are
  // computed by separate kernels and handed over in global memory.
  EXPECT_NE(L.source.find("default_function_kernel3("), std::string::npos) << L.source;
  for (const char* temp : {"allocate kernel_pack[", "allocate data_pack[", "allocate bgemm["})
    EXPECT_NE(L.ir.find(temp), std::string::npos) << temp;
  EXPECT_NE(L.source.find("default_function_kernel2( float* __restrict__ kernel_pack,  float* "
                          "__restrict__ data_pack,  "
                          "float* __restrict__ bgemm)"),
            std::string::npos);
  EXPECT_EQ(L.module.get_function(L.func_name).signature().args.size(), 3u)
      << "data, kernel, output only";
  auto x = rnd(4 * 8 * 8, 11), k = rnd(8 * 4 * 9, 12);
  auto want = conv_ref(s, x, k);
  expect_close(run_layer(L, {x, k}), want, 1e-4f);
  expect_close(run_layer(L, {x, k}), want, 1e-4f);  // a second call reuses nothing stale

  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC not found (the emulator run passed)";
  runtime::NvrtcOptions o;
  o.arch = "sm_90";
  runtime::NvrtcResult r = runtime::nvrtc_compile(L.source, o);
  if (runtime::find_ptxas().empty()) GTEST_SKIP() << "ptxas not found (NVRTC passed)";
  runtime::PtxasReport rep = runtime::ptxas_check(r.ptx, "sm_90");
  EXPECT_GE(rep.kernels.size(), 3u) << rep.output;
  for (const auto& kr : rep.kernels) EXPECT_LE(kr.registers, 255) << kr.name;
}

}  // namespace
