// Builds and runs a kernel through an installed minitvm.
#include <minitvm/minitvm.h>

#include <iostream>

using namespace minitvm;

int main() {
  const int n = 100;
  auto A = te::placeholder({n}, DataType::Float(32), "A");
  auto B = te::compute({n}, [&](Var i) { return A(i) * 3.0f + 1.0f; }, "B");
  auto s = te::create_schedule({B.op()});
  auto mod = build(s, {A, B}, "llvm", "f");
  auto a = runtime::NDArray::from_vector(std::vector<float>(n, 2.0f), {n});
  auto b = runtime::NDArray::empty({n}, DataType::Float(32));
  mod.get_function("f")(a, b);
  auto v = b.to_vector<float>();
  for (float x : v)
    if (x != 7.0f) return 1;
  std::cout << "consumer: ok" << std::endl;
  return 0;
}
