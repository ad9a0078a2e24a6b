// The example of README.md, kept compiling and checked by ctest (tests/install/tests.cmake).
#include <minitvm/minitvm.h>
#include <iostream>
#include <vector>
using namespace minitvm;

int main() {
  const int n = 1024;
  te::Tensor A = te::placeholder({n, n}, DataType::Float(32), "A");
  te::IterVar k = te::reduce_axis({0, n}, "k");
  te::Tensor S = te::compute(
      {n}, [&](Var i) { return te::sum(A(i, k) * 2.0f, {k}); }, "S");

  te::Schedule s = te::create_schedule({S.op()});
  auto [io, ii] = s[S].split(S.op().axis()[0], 64);
  s[S].parallel(io);

  std::cout << lower(s, {A, S}, "rowsum") << "\n";           // read the lowered IR
  runtime::Module mod = build(s, {A, S}, "llvm", "rowsum");  // or "cuda", "cuda -emulate"
  auto a = runtime::NDArray::from_vector(std::vector<float>(n * n, 1.0f), {n, n});
  auto out = runtime::NDArray::empty({n}, DataType::Float(32));
  mod.get_function("rowsum")(a, out);
  std::cout << out.to_vector<float>()[0] << "\n";  // 2048
}
