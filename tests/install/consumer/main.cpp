// Builds and runs a kernel through an installed minitvm, and checks where TopHub is read from:
// argv[1] is the folder expected (the installed share/minitvm/tophub).
#include <minitvm/autotune/tophub.h>
#include <minitvm/minitvm.h>

#include <filesystem>
#include <iostream>
#include <string>

using namespace minitvm;

int main(int argc, char** argv) {
  const int n = 100;
  auto A = te::placeholder({n}, DataType::Float(32), "A");
  auto B = te::compute(
      {n}, [&](Var i) { return A(i) * 3.0f + 1.0f; }, "B");
  auto s = te::create_schedule({B.op()});
  auto mod = build(s, {A, B}, "llvm", "f");
  auto a = runtime::NDArray::from_vector(std::vector<float>(n, 2.0f), {n});
  auto b = runtime::NDArray::empty({n}, DataType::Float(32));
  mod.get_function("f")(a, b);
  auto v = b.to_vector<float>();
  for (float x : v)
    if (x != 7.0f) return 1;
  if (argc > 1) {
    std::string root = autotune::tophub::root();
    size_t records = autotune::tophub::context("llvm")->num_records();
    std::cout << "consumer: tophub " << root << ", " << records << " llvm records" << std::endl;
    namespace fs = std::filesystem;
    if (fs::weakly_canonical(root) != fs::weakly_canonical(argv[1])) {
      std::cout << "consumer: expected tophub " << argv[1] << std::endl;
      return 1;
    }
    // The installed folder holds TVM's llvm package and the pool package; a missing one nothing.
    bool is_folder = std::filesystem::is_directory(argv[1]);
    if (is_folder != (records > 0)) {
      std::cout << "consumer: " << records << " llvm records from " << argv[1] << std::endl;
      return 1;
    }
  }
  std::cout << "consumer: ok" << std::endl;
  return 0;
}
