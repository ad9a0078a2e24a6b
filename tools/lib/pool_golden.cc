// Reading the PyTorch pooling golden format and turning a case's params into a PoolPlan.
#include <cmath>
#include <fstream>
#include <limits>

#include "minitvm/devtools/pool_conformance.h"

namespace minitvm {
namespace frontend {

using topi::PoolLayout;
using topi::PoolPlan;

namespace {

using nlohmann::json;

double number_or_special(const json& v, const std::string& field) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  MINITVM_USER_ERROR << "golden case: field '" << field << "' holds a non-number " << v.dump();
  return 0;
}

std::vector<double> values(const json& j, const std::string& field) {
  std::vector<double> out;
  const json& arr = j.at(field);
  MINITVM_USER_CHECK(arr.is_array()) << "golden case: field '" << field << "' is not an array";
  out.reserve(arr.size());
  for (const auto& v : arr) out.push_back(number_or_special(v, field));
  return out;
}

std::vector<int64_t> ints(const json& j, const std::string& field) {
  std::vector<int64_t> out;
  for (const auto& v : j.at(field)) out.push_back(v.get<int64_t>());
  return out;
}

// A params list: absent or null -> empty (PyTorch's "not given").
std::vector<int64_t> param_list(const json& p, const char* key) {
  if (!p.contains(key) || p.at(key).is_null()) return {};
  const json& v = p.at(key);
  if (v.is_number_integer()) return {v.get<int64_t>()};
  return v.get<std::vector<int64_t>>();
}

bool param_bool(const json& p, const char* key, bool dflt) {
  if (!p.contains(key) || p.at(key).is_null()) return dflt;
  return p.at(key).get<bool>();
}

}  // namespace

bool GoldenCase::has_tag(const std::string& t) const {
  for (const auto& s : tags)
    if (s == t) return true;
  return false;
}

GoldenCase parse_golden_case(const json& j) {
  GoldenCase c;
  try {
    c.id = j.at("id").get<std::string>();
    c.op = j.at("op").get<std::string>();
    c.dtype = DataType::parse(j.at("dtype").get<std::string>());
    c.params = j.at("params");
    c.input_shape = ints(j, "input_shape");
    if (j.contains("tags")) c.tags = j.at("tags").get<std::vector<std::string>>();
    if (j.contains("error")) {
      c.kind = GoldenCase::Kind::Rejected;
      c.error = j.at("error").get<std::string>();
      c.error_kind = j.value("error_kind", std::string("other"));
      c.reason = j.value("reason", std::string());
      return c;
    }
    if (j.value("quirk", std::string()) == "empty_window") c.kind = GoldenCase::Kind::EmptyWindow;
    c.input = values(j, "input");
    c.output_shape = ints(j, "output_shape");
    c.output = values(j, "output");
    if (j.contains("indices")) c.indices = ints(j, "indices");
    if (j.contains("grad_output")) c.grad_output = values(j, "grad_output");
    if (j.contains("grad_input")) c.grad_input = values(j, "grad_input");
    c.backward_error = j.value("backward_error", std::string());
  } catch (const json::exception& e) {
    MINITVM_USER_ERROR << "golden case " << (c.id.empty() ? std::string("<no id>") : c.id)
                       << ": malformed: " << e.what();
  }
  return c;
}

std::vector<GoldenCase> read_golden_file(const std::string& path) {
  std::ifstream in(path);
  MINITVM_USER_CHECK(in.good()) << "cannot open golden file " << path;
  std::vector<GoldenCase> cases;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {
      MINITVM_USER_ERROR << path << ":" << lineno << ": not valid JSON: " << e.what();
    }
    try {
      cases.push_back(parse_golden_case(j));
    } catch (const CompileError& e) {
      MINITVM_USER_ERROR << path << ":" << lineno << ": " << e.what();
    }
  }
  return cases;
}

PoolPlan plan_golden_case(const GoldenCase& c, PoolLayout layout) {
  const json& p = c.params;
  const std::string& op = c.op;
  MINITVM_USER_CHECK(op.size() > 3 && op[op.size() - 1] == 'd')
      << "golden case " << c.id << ": unknown op '" << op << "'";
  int rank = op[op.size() - 2] - '0';
  PoolInput in;
  in.shape = c.input_shape;
  in.dtype = c.dtype;
  in.layout = layout;
  if (layout == PoolLayout::ChannelsLast && static_cast<int>(in.shape.size()) >= rank + 1) {
    // (N,) C, spatial...  ->  (N,) spatial..., C
    auto cpos = in.shape.end() - rank - 1;
    int64_t ch = *cpos;
    in.shape.erase(cpos);
    in.shape.push_back(ch);
  }
  auto starts = [&](const char* prefix) { return op.rfind(prefix, 0) == 0; };
  if (starts("adaptive_")) {
    AdaptivePoolParams ap;
    for (const auto& v : p.at("output_size"))
      ap.output_size.push_back(v.is_null() ? std::nullopt
                                           : std::optional<int64_t>(v.get<int64_t>()));
    ap.return_indices = param_bool(p, "return_indices", false);
    return starts("adaptive_max") ? plan_adaptive_max_pool(rank, in, ap)
                                  : plan_adaptive_avg_pool(rank, in, ap);
  }
  if (starts("max_pool")) {
    MaxPoolParams mp;
    mp.kernel_size = param_list(p, "kernel_size");
    mp.stride = param_list(p, "stride");
    mp.padding = param_list(p, "padding");
    mp.dilation = param_list(p, "dilation");
    if (mp.padding.empty()) mp.padding = {0};
    if (mp.dilation.empty()) mp.dilation = {1};
    mp.ceil_mode = param_bool(p, "ceil_mode", false);
    mp.return_indices = param_bool(p, "return_indices", false);
    return plan_max_pool(rank, in, mp);
  }
  if (starts("avg_pool")) {
    AvgPoolParams ap;
    ap.kernel_size = param_list(p, "kernel_size");
    ap.stride = param_list(p, "stride");
    ap.padding = param_list(p, "padding");
    if (ap.padding.empty()) ap.padding = {0};
    ap.ceil_mode = param_bool(p, "ceil_mode", false);
    ap.count_include_pad = param_bool(p, "count_include_pad", true);
    if (p.contains("divisor_override") && !p.at("divisor_override").is_null())
      ap.divisor_override = p.at("divisor_override").get<int64_t>();
    return plan_avg_pool(rank, in, ap);
  }
  if (starts("lp_pool")) {
    LpPoolParams lp;
    lp.norm_type = p.at("norm_type").get<double>();
    lp.kernel_size = param_list(p, "kernel_size");
    lp.stride = param_list(p, "stride");
    lp.ceil_mode = param_bool(p, "ceil_mode", false);
    return plan_lp_pool(rank, in, lp);
  }
  MINITVM_USER_ERROR << "golden case " << c.id << ": unknown op '" << op << "'";
  return {};
}

}  // namespace frontend
}  // namespace minitvm
