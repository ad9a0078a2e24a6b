// CUDA vector add: split + bind to blockIdx/threadIdx, build for the GPU when there is one, else
// for the CPU emulator ("cuda -emulate", which runs the same emitted CUDA C), and check the result.
#include <minitvm/minitvm.h>
#include <minitvm/runtime/cuda.h>

#include <iostream>
#include <vector>
using namespace minitvm;

int main() {
  const int n = 1000;  // not a multiple of the block size: the kernel guards its stores
  DataType f32 = DataType::Float(32);
  te::Tensor A = te::placeholder({n}, f32, "A");
  te::Tensor B = te::placeholder({n}, f32, "B");
  te::Tensor C = te::compute(
      {n}, [&](Var i) { return A(i) + B(i); }, "C");
  te::Schedule s = te::create_schedule({C.op()});
  auto [bx, tx] = s[C].split(C.op().axis()[0], 128);
  s[C].bind(bx, te::thread_axis("blockIdx.x"));
  s[C].bind(tx, te::thread_axis("threadIdx.x"));

  const bool gpu = runtime::cuda_available();
  const std::string target = gpu ? "cuda" : "cuda -emulate";
  if (!gpu)
    std::cout << "no GPU (" << runtime::cuda_unavailable_reason() << "): using the emulator\n";
  runtime::Module mod = build(s, {A, B, C}, target, "vadd");
  std::cout << mod.get_source("cuda") << "\n";

  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = 0.5f * i, b[i] = 1000.0f - i;
  Device dev = gpu ? Device::cuda(0) : Device::cpu();
  auto a_nd = runtime::NDArray::from_vector(a, {n}).copy_to(dev);
  auto b_nd = runtime::NDArray::from_vector(b, {n}).copy_to(dev);
  auto c_nd = runtime::NDArray::empty({n}, f32, dev);
  mod.get_function("vadd")(a_nd, b_nd, c_nd);
  std::vector<float> c = c_nd.copy_to(Device::cpu()).to_vector<float>();
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) {
      std::cout << "cuda_vector_add: MISMATCH at " << i << ": " << c[i] << " != " << a[i] + b[i]
                << "\n";
      return 1;
    }
  std::cout << "cuda_vector_add: ok (" << n << " outputs on " << target << ")\n";
  return 0;
}
