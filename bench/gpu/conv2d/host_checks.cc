// bench/gpu/conv2d: host-side helpers (parallel where the big layers have 400M-element tensors)
// and the checks of one built workload: references, argument shapes, launch limits.
#include "host_checks.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "vendor.h"

namespace minitvm::bench {

using sweep::OpKind;

// Run fn(begin, end) over [0, n) in chunks on up to hardware_concurrency threads.
void parallel_chunks(size_t n, const std::function<void(size_t, size_t)>& fn) {
  size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()),
                                    std::max<size_t>(1, n >> 20));
  if (threads <= 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> ts;
  size_t chunk = (n + threads - 1) / threads;
  for (size_t b = 0; b < n; b += chunk) ts.emplace_back(fn, b, std::min(n, b + chunk));
  for (auto& t : ts) t.join();
}

// Deterministic uniform [-1, 1) values, a hash of (seed, index): the same at any thread count.
std::vector<float> uniform(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  parallel_chunks(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      uint64_t z = (seed << 40) + i + 0x9E3779B97F4A7C15ull;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      v[i] = static_cast<float>(static_cast<double>(z >> 40) / 8388608.0 - 1.0);  // 24 bits
    }
  });
  return v;
}

double max_rel_error(const std::vector<float>& got, const std::vector<float>& ref) {
  if (got.size() != ref.size()) return INFINITY;
  std::mutex mu;
  double worst = 0;
  parallel_chunks(got.size(), [&](size_t b, size_t e) {
    double m = sweep::max_relative_error(got.data() + b, ref.data() + b, e - b);
    std::lock_guard<std::mutex> lock(mu);
    if (!(m <= worst)) worst = m;  // NaN or infinity sticks
  });
  return worst;
}

// The sweep's naive references, split over the batch (conv) or rows (dense) on several threads.
std::vector<float> naive_reference(const sweep::SweepWorkload& w, int64_t batch,
                                   const std::vector<std::vector<float>>& in, size_t out_size) {
  std::vector<float> out(out_size);
  size_t rows = static_cast<size_t>(batch);
  size_t row_in = in[0].size() / rows, row_out = out_size / rows;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t r; (r = next++) < rows;) {
      std::vector<float> x(in[0].begin() + static_cast<std::ptrdiff_t>(r * row_in),
                           in[0].begin() + static_cast<std::ptrdiff_t>((r + 1) * row_in));
      std::vector<float> y;
      if (w.op == OpKind::Dense) {
        y = sweep::reference_dense(1, w.in_dim, w.out_dim, x, in[1], w.bias ? &in[2] : nullptr);
      } else {
        auto ds = w.data_shape;
        ds[0] = 1;
        y = sweep::reference_conv2d(ds, w.kernel_shape, w.attrs, w.op == OpKind::Depthwise, x,
                                    in[1]);
      }
      std::copy(y.begin(), y.end(), out.begin() + static_cast<std::ptrdiff_t>(r * row_out));
    }
  };
  std::vector<std::thread> ts;
  size_t threads = std::min<size_t>(rows, std::max(1u, std::thread::hardware_concurrency()));
  for (size_t t = 1; t < threads; ++t) ts.emplace_back(work);
  work();
  for (auto& t : ts) t.join();
  return out;
}

int64_t batch_of(const sweep::SweepWorkload& w) {
  return w.op == OpKind::Dense ? w.batch : w.data_shape[0];
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "x" : "") + std::to_string(s[i]);
  return r;
}

// The shapes our layer's arguments must have: data, kernel/weight, [bias], output.
std::vector<std::vector<int64_t>> expected_shapes(const sweep::SweepWorkload& w) {
  if (w.op == OpKind::Dense) {
    std::vector<std::vector<int64_t>> s = {{w.batch, w.in_dim}, {w.out_dim, w.in_dim}};
    if (w.bias) s.push_back({w.out_dim});
    s.push_back({w.batch, w.out_dim});
    return s;
  }
  auto p = bench::conv_params(w);
  return {w.data_shape, w.kernel_shape, {p.out.begin(), p.out.end()}};
}

// "" when the layer's arguments have the expected shapes, else what differs.
std::string check_arg_shapes(const sweep::SweepWorkload& w, const topi::LayerBuild& L) {
  auto want = expected_shapes(w);
  if (L.args.size() != want.size())
    return "the layer has " + std::to_string(L.args.size()) + " arguments, expected " +
           std::to_string(want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    auto got = topi::nn::const_shape(L.args[i]);
    if (got != want[i])
      return "argument " + std::to_string(i) + " has shape " + shape_str(got) + ", expected " +
             shape_str(want[i]);
    if (L.args[i]->dtype != DataType::Float(32))
      return "argument " + std::to_string(i) + " is not float32";
  }
  return "";
}

// Launch dimensions of a built "cuda" module within the hardware limits (read from its saved JSON).
std::string check_launches(const runtime::Module& m, const std::string& tag) {
  auto dir = std::filesystem::temp_directory_path() /
             ("minitvm_bench_conv2d_" + std::to_string(::getpid()) + "_" + tag);
  std::filesystem::create_directories(dir);
  std::string path = (dir / "m.ptx").string();
  std::string err;
  int launches = 0;
  try {
    m.save(path);
    std::ifstream is(path + ".json");
    auto j = nlohmann::json::parse(is);
    for (const auto& f : j.at("functions"))
      for (const auto& l : f.at("launches")) {
        ++launches;
        auto g = l.at("grid").get<std::vector<int64_t>>();
        auto b = l.at("block").get<std::vector<int64_t>>();
        std::string k = l.at("kernel").get<std::string>();
        if (g.size() != 3 || b.size() != 3)
          err = k + ": grid/block are not 3-d";
        else if (g[0] < 1 || g[0] > 2147483647 || g[1] < 1 || g[1] > 65535 || g[2] < 1 ||
                 g[2] > 65535)
          err = k + ": grid " + shape_str(g) + " outside the CUDA limits";
        else if (b[0] < 1 || b[1] < 1 || b[2] < 1 || b[0] * b[1] * b[2] > 1024 || b[2] > 64)
          err = k + ": block " + shape_str(b) + " outside the CUDA limits";
        if (!err.empty()) break;
      }
    if (err.empty() && launches == 0) err = "the module launches no kernel";
  } catch (const std::exception& e) {
    err = std::string("reading the saved module: ") + e.what();
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return err;
}

}  // namespace minitvm::bench
