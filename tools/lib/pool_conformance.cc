// The conformance harness: runs golden cases through a PoolExecutor and compares with the golden
// README's rules (exact shapes, indices and errors; bit-exact max values; tolerances for averages).
#include <cmath>
#include <cstring>
#include <ostream>
#include <sstream>

#include "minitvm/devtools/pool_conformance.h"

namespace minitvm {
namespace frontend {

using topi::DivisorRule;
using topi::PoolLayout;
using topi::PoolPlan;

namespace {

std::string fmt_value(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string fmt_shape(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

// Distance in units in the last place between two float32 values (both finite).
int64_t float_ulps(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return std::llabs(static_cast<int64_t>(ia) - static_cast<int64_t>(ib));
}

// How one quantity is compared.
struct Rule {
  double rel = 0;    // |got - want| <= rel * max(1, |want|)
  int64_t ulps = 0;  // or within this many float32 ulps
};

bool close(double got, double want, const Rule& r, bool is_f32) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (got == want) return true;
  if (std::isinf(want) || std::isinf(got)) return false;
  if (r.ulps > 0 && is_f32 &&
      float_ulps(static_cast<float>(got), static_cast<float>(want)) <= r.ulps)
    return true;
  return std::abs(got - want) <= r.rel * std::max(1.0, std::abs(want));
}

// Appends a failure line when `got` differs from the golden `want` (values cast to the dtype).
void compare_values(const GoldenCase& c, const char* what, const HostArray& got,
                    const std::vector<double>& want, const Rule& rule,
                    std::vector<std::string>& failures) {
  if (got.numel() != static_cast<int64_t>(want.size())) {
    failures.push_back(c.id + ": " + what + " has " + std::to_string(got.numel()) +
                       " elements, expected " + std::to_string(want.size()));
    return;
  }
  HostArray w = HostArray::from_doubles(got.dtype(), got.shape(), want);
  bool f32 = got.dtype() == DataType::Float(32);
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < got.numel(); ++i) {
    if (!close(got.get(i), w.get(i), rule, f32)) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  if (bad)
    failures.push_back(c.id + ": " + what + " differs at index " + std::to_string(first) +
                       ": got " + fmt_value(got.get(first)) + ", expected " +
                       fmt_value(w.get(first)) + " (" + std::to_string(bad) + " of " +
                       std::to_string(got.numel()) + " differ)");
}

void compare_ints(const GoldenCase& c, const char* what, const HostArray& got,
                  const std::vector<int64_t>& want, std::vector<std::string>& failures) {
  if (got.numel() != static_cast<int64_t>(want.size())) {
    failures.push_back(c.id + ": " + what + " has " + std::to_string(got.numel()) +
                       " elements, expected " + std::to_string(want.size()));
    return;
  }
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < got.numel(); ++i)
    if (got.get_int(i) != want[i]) {
      if (first < 0) first = i;
      ++bad;
    }
  if (bad)
    failures.push_back(c.id + ": " + what + " differs at index " + std::to_string(first) +
                       ": got " + std::to_string(got.get_int(first)) + ", expected " +
                       std::to_string(want[first]) + " (" + std::to_string(bad) + " of " +
                       std::to_string(got.numel()) + " differ)");
}

bool is_max_op(const std::string& op) {
  return op.find("max_pool") != std::string::npos;
}

Rule output_rule(const GoldenCase& c, const PoolPlan& plan, bool exact) {
  bool f32 = c.dtype == DataType::Float(32);
  if (!c.dtype.is_floating() || is_max_op(c.op)) return {};
  if (plan.divisor_rule == DivisorRule::Mean)
    return {f32 ? 0.0 : 1e-15, 2};  // mean() order differs
  if (exact) return {};
  if (c.op.rfind("adaptive_avg", 0) == 0) return {f32 ? 2e-6 : 1e-12, 2};
  return {f32 ? 2e-6 : 1e-12, 0};
}

Rule grad_rule(const GoldenCase& c, bool exact) {
  bool f32 = c.dtype == DataType::Float(32);
  if (exact) return {};
  if (is_max_op(c.op)) return {f32 ? 0.0 : 1e-15, 0};
  return {f32 ? 1e-5 : 1e-12, 0};
}

// Layout helpers: golden data is channels-first.
HostArray to_layout(const HostArray& a, const PoolPlan& plan) {
  return plan.layout == PoolLayout::ChannelsLast
             ? to_channels_last(a, plan.spatial_rank(), plan.batched)
             : a;
}
HostArray from_layout(const HostArray& a, const PoolPlan& plan) {
  return plan.layout == PoolLayout::ChannelsLast
             ? to_channels_first(a, plan.spatial_rank(), plan.batched)
             : a;
}

std::vector<int64_t> channels_first_output_shape(const PoolPlan& plan) {
  PoolPlan cf = plan;
  cf.layout = PoolLayout::ChannelsFirst;
  return cf.output_shape();
}

void run_valid(const GoldenCase& c, PoolExecutor& exec, const ConformanceOptions& opts,
               CaseResult& r) {
  PoolPlan plan;
  try {
    plan = plan_golden_case(c, opts.layout);
  } catch (const PoolParamError& e) {
    if (c.kind == GoldenCase::Kind::EmptyWindow) {
      r.note = "empty_window case rejected (allowed)";
      return;
    }
    r.failures.push_back(c.id + ": rejected a valid case: " + e.what());
    return;
  }
  std::vector<int64_t> oshape = channels_first_output_shape(plan);
  if (oshape != c.output_shape) {
    r.failures.push_back(c.id + ": output_shape differs: got " + fmt_shape(oshape) + ", expected " +
                         fmt_shape(c.output_shape));
    return;
  }
  HostArray input = to_layout(HostArray::from_doubles(c.dtype, c.input_shape, c.input), plan);
  PoolForwardResult fwd;
  try {
    fwd = exec.forward(plan, input);
  } catch (const CompileError& e) {
    if (c.kind == GoldenCase::Kind::EmptyWindow) {
      r.note = "empty_window case rejected by the executor (allowed)";
      return;
    }
    r.failures.push_back(c.id + ": forward failed: " + e.what());
    return;
  }
  compare_values(c, "output", from_layout(fwd.output, plan), c.output,
                 output_rule(c, plan, opts.exact), r.failures);
  if (c.indices) {
    if (!fwd.indices.defined())
      r.failures.push_back(c.id + ": indices were requested but not returned");
    else
      compare_ints(c, "indices", from_layout(fwd.indices, plan), *c.indices, r.failures);
  }
  if (!c.backward_error.empty()) {
    try {
      check_backward(plan);
      HostArray go(plan.dtype, plan.output_shape());
      exec.backward(plan, input, go, nullptr);
      r.failures.push_back(c.id + ": backward accepted, PyTorch rejects it: " + c.backward_error);
    } catch (const CompileError&) {
    }
    return;
  }
  if (!c.grad_output || !c.grad_input) return;
  try {
    HostArray go =
        to_layout(HostArray::from_doubles(c.dtype, c.output_shape, *c.grad_output), plan);
    HostArray gi = exec.backward(plan, input, go, fwd.indices.defined() ? &fwd.indices : nullptr);
    compare_values(c, "grad_input", from_layout(gi, plan), *c.grad_input, grad_rule(c, opts.exact),
                   r.failures);
  } catch (const CompileError& e) {
    r.failures.push_back(c.id + ": backward failed: " + e.what());
  }
}

}  // namespace

CaseResult run_pool_case(const GoldenCase& c, PoolExecutor& exec, const ConformanceOptions& opts) {
  CaseResult r;
  r.id = c.id;
  try {
    if (c.kind == GoldenCase::Kind::Rejected) {
      try {
        PoolPlan plan = plan_golden_case(c, opts.layout);
        r.failures.push_back(c.id + ": accepted a case PyTorch rejects (" + c.error_kind + ": " +
                             c.error + "); plan: " + plan.str());
      } catch (const PoolParamError& e) {
        std::string kind = error_kind_name(e.kind());
        r.note = "rejected (" + kind + "): " + e.what();
        if (kind != c.error_kind) {
          r.note += " [golden kind " + c.error_kind + "]";
          if (opts.check_error_kind)
            r.failures.push_back(c.id + ": rejected with kind " + kind + " (" + e.what() +
                                 "), expected " + c.error_kind + " (" + c.error + ")");
        }
      }
    } else {
      run_valid(c, exec, opts, r);
    }
  } catch (const std::exception& e) {
    r.failures.push_back(c.id + ": unexpected error: " + e.what());
  }
  r.passed = r.failures.empty();
  return r;
}

std::string ConformanceSummary::str() const {
  return std::to_string(passed) + " passed, " + std::to_string(failed) + " failed";
}

ConformanceSummary run_pool_cases(const std::vector<GoldenCase>& cases, PoolExecutor& exec,
                                  const ConformanceOptions& opts, std::ostream* log) {
  ConformanceSummary s;
  for (const auto& c : cases) {
    CaseResult r = run_pool_case(c, exec, opts);
    if (r.passed) {
      ++s.passed;
      continue;
    }
    ++s.failed;
    if (log)
      for (const auto& f : r.failures) *log << f << "\n";
    s.failures.push_back(std::move(r));
  }
  if (log) *log << s.str() << "\n";
  return s;
}

}  // namespace frontend
}  // namespace minitvm
