// A program linked only against minitvm_runtime_lite (no LLVM, no NVRTC): loads a file written by
// export_library, runs it on the CPU and compares the outputs with expected values.
//   minitvm_graph_lite_run LIB INPUTS.params EXPECTED.params [--measure N]
// INPUTS holds the inputs by name; EXPECTED the outputs, named by output index ("0", "1", ...).
// Exit status 0 when every output is within 1e-5 of the expected values, 1 when not, 2 on errors.
// --measure N also prints what the profiler's instrumentation costs: the mean of N plain run()s,
// the per-run wall time of profile(N), and the cost of one steady_clock::now() pair.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "minitvm/runtime/graph_executor.h"
#include "minitvm/runtime/graph_library.h"

using namespace minitvm;
using namespace minitvm::runtime;

static std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int main(int argc, char** argv) {
  const bool measure = argc == 6 && std::string(argv[4]) == "--measure";
  if (argc != 4 && !measure) {
    std::fprintf(stderr, "usage: %s LIB INPUTS.params EXPECTED.params [--measure N]\n", argv[0]);
    return 2;
  }
  try {
    CompiledGraph g = load_compiled_graph(argv[1]);
    GraphExecutor m(g, Device::cpu());
    for (const auto& [name, a] : load_param_dict(read_file(argv[2]))) m.set_input(name, a);
    m.run();
    double max_err = 0;
    int n = 0;
    for (const auto& [key, want] : load_param_dict(read_file(argv[3]))) {
      std::vector<float> got = m.get_output(std::stoi(key)).to_vector<float>();
      std::vector<float> ref = want.to_vector<float>();
      if (got.size() != ref.size()) {
        std::fprintf(stderr, "output %s: %zu values, expected %zu\n", key.c_str(), got.size(),
                     ref.size());
        return 1;
      }
      for (size_t i = 0; i < got.size(); ++i)
        max_err = std::max(max_err, double(std::fabs(got[i] - ref[i])));
      ++n;
    }
    ProfileReport rep = m.profile(2);
    std::printf("%s", rep.table().c_str());
    std::printf("%s: %d outputs, max abs error %g\n", max_err <= 1e-5 ? "OK" : "MISMATCH", n,
                max_err);
    if (measure) {
      using clock = std::chrono::steady_clock;
      const int runs = std::stoi(argv[5]);
      for (int i = 0; i < runs / 10 + 1; ++i) m.run();
      auto t0 = clock::now();
      for (int i = 0; i < runs; ++i) m.run();
      const double run_us =
          std::chrono::duration<double, std::micro>(clock::now() - t0).count() / runs;
      ProfileReport p = m.profile(runs);
      const int ops = static_cast<int>(p.calls.size()) / runs;
      volatile int64_t sink = 0;
      t0 = clock::now();
      for (int i = 0; i < 1000000; ++i) {
        auto a = clock::now(), b = clock::now();
        sink = sink + (b - a).count();
      }
      const double pair_ns =
          std::chrono::duration<double, std::nano>(clock::now() - t0).count() / 1e6;
      std::printf(
          "measure: %d ops; run() %.2f us; profile() wall %.2f us/run, sum of op times %.2f "
          "us/run; "
          "clock pair %.1f ns\n",
          ops, run_us, p.wall_us / runs, p.total_us() / runs, pair_ns);
    }
    return max_err <= 1e-5 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
