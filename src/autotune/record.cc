// Decoding, validation and byte-exact encoding of TVM tuning records (formats 0.1 and 0.2).
#include "minitvm/autotune/record.h"

#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <sstream>

#include "minitvm/autotune/json_text.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

namespace minitvm::autotune {

namespace {
constexpr size_t kMaxLineBytes = size_t{1} << 20;  // TopHub lines are < 2 KiB
constexpr int kMaxDepth = 32;                      // TopHub nesting depth is 5
constexpr size_t kMaxEntities = 256;
constexpr size_t kMaxCosts = 100000;

// Nesting depth of JSON text, ignoring brackets inside strings; stops early past the limit.
int json_depth(const std::string& s) {
  int depth = 0, max_depth = 0;
  bool in_str = false, esc = false;
  for (char c : s) {
    if (in_str) {
      if (esc)
        esc = false;
      else if (c == '\\')
        esc = true;
      else if (c == '"')
        in_str = false;
      continue;
    }
    if (c == '"')
      in_str = true;
    else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
      if (max_depth > kMaxDepth) return max_depth;
    } else if (c == ']' || c == '}')
      --depth;
  }
  return max_depth;
}

const Json& field(const Json& obj, const char* key) {
  auto it = obj.find(key);
  MINITVM_USER_CHECK(it != obj.end()) << "missing key \"" << key << "\"";
  return *it;
}

std::string as_string(const Json& v, const char* what) {
  MINITVM_USER_CHECK(v.is_string()) << what << " must be a string, got " << py_json_dumps(v);
  return v.get<std::string>();
}

double as_number(const Json& v, const char* what) {
  MINITVM_USER_CHECK(v.is_number()) << what << " must be a number, got " << py_json_dumps(v);
  double d = v.get<double>();
  MINITVM_USER_CHECK(std::isfinite(d)) << what << " is not finite";
  return d;
}

int64_t as_int(const Json& v, const char* what) {
  MINITVM_USER_CHECK(v.is_number_integer())
      << what << " must be an integer, got " << py_json_dumps(v);
  MINITVM_USER_CHECK(!v.is_number_unsigned() || v.get<uint64_t>() <= uint64_t(INT64_MAX))
      << what << " is too large";
  return v.get<int64_t>();
}

// Every ["TENSOR", ...] inside args must be exactly ["TENSOR", [non-negative ints], "dtype"].
void check_tensors(const Json& v) {
  if (!v.is_array()) return;
  if (!v.empty() && v[0].is_string() && v[0].get<std::string>() == "TENSOR") {
    MINITVM_USER_CHECK(v.size() == 3)
        << "tensor argument has " << v.size()
        << " fields (expected [\"TENSOR\", shape, dtype]): " << py_json_dumps(v);
    MINITVM_USER_CHECK(v[1].is_array()) << "tensor shape is not a list: " << py_json_dumps(v);
    for (const auto& d : v[1])
      MINITVM_USER_CHECK(d.is_number_integer() && d.get<int64_t>() >= 0 &&
                         !(d.is_number_unsigned() && d.get<uint64_t>() > uint64_t(INT64_MAX)))
          << "tensor shape has a non-integer or negative extent: " << py_json_dumps(v);
    MINITVM_USER_CHECK(v[2].is_string()) << "tensor dtype is not a string: " << py_json_dumps(v);
    return;
  }
  for (const auto& e : v) check_tensors(e);
}

MeasureResult decode_result(const Json& r) {
  MINITVM_USER_CHECK(r.is_array() && r.size() == 4)
      << "result must be [costs, error_no, all_cost, timestamp]";
  MeasureResult m;
  MINITVM_USER_CHECK(r[0].is_array()) << "costs must be a list";
  MINITVM_USER_CHECK(!r[0].empty()) << "costs list is empty";
  MINITVM_USER_CHECK(r[0].size() <= kMaxCosts) << "too many costs";
  for (const auto& c : r[0]) {
    double d = as_number(c, "cost");
    MINITVM_USER_CHECK(d >= 0) << "negative cost " << py_float_repr(d);
    m.costs.push_back(d);
  }
  m.error_no = static_cast<int>(as_int(r[1], "error_no"));
  MINITVM_USER_CHECK(as_int(r[1], "error_no") >= 0 && as_int(r[1], "error_no") <= 1000)
      << "error_no out of range";
  m.all_cost = as_number(r[2], "all_cost");
  m.timestamp = as_number(r[3], "timestamp");
  return m;
}

void decode_entities(const Json& e, ConfigEntity& cfg) {
  MINITVM_USER_CHECK(e.is_array()) << "config entity must be a list";
  MINITVM_USER_CHECK(e.size() <= kMaxEntities) << "too many knobs";
  for (const auto& k : e) {
    MINITVM_USER_CHECK(k.is_array() && k.size() == 3)
        << "knob entry must be [name, kind, value], got " << py_json_dumps(k);
    std::string name = as_string(k[0], "knob name");
    std::string kind = as_string(k[1], "knob kind");
    MINITVM_USER_CHECK(!cfg.has(name)) << "knob '" << name << "' appears twice";
    try {
      cfg.set(name, entity_from_json(kind, k[2]));
    } catch (const CompileError& err) {
      MINITVM_USER_ERROR << "knob '" << name << "': " << err.what();
    }
  }
}

std::vector<std::string> keys_of(const Json& obj) {
  std::vector<std::string> out;
  for (const auto& [k, v] : obj.items()) out.push_back(k);
  return out;
}

Json extras(const Json& obj, std::initializer_list<const char*> known) {
  Json out = Json::object();
  for (const auto& [k, v] : obj.items()) {
    bool is_known = false;
    for (auto* kk : known) is_known |= (k == kk);
    if (!is_known) out[k] = v;
  }
  return out;
}

void decode_v01(const Json& j, Record& rec) {
  const Json& v = field(j, "v");
  MINITVM_USER_CHECK(v.is_number() && v.get<double>() == 0.1)
      << "unsupported record version " << py_json_dumps(v);
  rec.version = 0.1;
  const Json& i = field(j, "i");
  MINITVM_USER_CHECK(i.is_array() && i.size() == 6)
      << "\"i\" must have 6 elements [target, task, args, kwargs, workload, config]";
  rec.input.target_str = as_string(i[0], "target");
  rec.input.task_name = as_string(i[1], "task name");
  MINITVM_USER_CHECK(i[2].is_array()) << "task args must be a list";
  MINITVM_USER_CHECK(i[3].is_object()) << "task kwargs must be an object";
  MINITVM_USER_CHECK(i[4].is_array() && !i[4].empty() && i[4][0].is_string())
      << "workload must be a list starting with the compute name";
  check_tensors(i[2]);
  rec.input.args = i[2];
  rec.input.kwargs = i[3];
  rec.input.workload = i[4];
  const Json& c = i[5];
  MINITVM_USER_CHECK(c.is_object()) << "config must be an object";
  ConfigEntity& cfg = rec.input.config;
  cfg.index = as_int(field(c, "i"), "config index");
  MINITVM_USER_CHECK(cfg.index >= 0) << "negative config index " << cfg.index;
  const Json& ch = field(c, "c");
  if (!ch.is_null()) cfg.code_hash = as_string(ch, "code hash");
  const Json& t = field(c, "t");
  cfg.template_key = t.is_null() ? "" : as_string(t, "template key");
  rec.template_key_empty_string = t.is_string() && cfg.template_key.empty();
  decode_entities(field(c, "e"), cfg);
  rec.config_key_order = keys_of(c);
  rec.config_extra = extras(c, {"i", "c", "t", "e"});
  rec.result = decode_result(field(j, "r"));
  rec.extra = extras(j, {"i", "r", "v"});
}

void decode_v02(const Json& j, Record& rec) {
  const Json& v = field(j, "version");
  MINITVM_USER_CHECK(v.is_number() && v.get<double>() == 0.2)
      << "unsupported record version " << py_json_dumps(v);
  rec.version = 0.2;
  if (auto it = j.find("tvm_version"); it != j.end())
    rec.tvm_version = as_string(*it, "tvm_version");
  const Json& i = field(j, "input");
  MINITVM_USER_CHECK(i.is_array() && i.size() == 4)
      << "\"input\" must have 4 elements [target, task, args, kwargs]";
  rec.input.target_str = as_string(i[0], "target");
  rec.input.task_name = as_string(i[1], "task name");
  MINITVM_USER_CHECK(i[2].is_array()) << "task args must be a list";
  MINITVM_USER_CHECK(i[3].is_object()) << "task kwargs must be an object";
  check_tensors(i[2]);
  rec.input.args = i[2];
  rec.input.kwargs = i[3];
  rec.input.workload = workload_v02(rec.input.task_name, i[2]);
  const Json& c = field(j, "config");
  MINITVM_USER_CHECK(c.is_object()) << "config must be an object";
  ConfigEntity& cfg = rec.input.config;
  cfg.index = as_int(field(c, "index"), "config index");
  MINITVM_USER_CHECK(cfg.index >= 0) << "negative config index " << cfg.index;
  const Json& ch = field(c, "code_hash");
  if (!ch.is_null()) cfg.code_hash = as_string(ch, "code hash");
  decode_entities(field(c, "entity"), cfg);
  rec.config_key_order = keys_of(c);
  rec.config_extra = extras(c, {"index", "code_hash", "entity"});
  rec.result = decode_result(field(j, "result"));
  rec.extra = extras(j, {"input", "config", "result", "version", "tvm_version"});
}

Json costs_json(const std::vector<double>& costs) {
  Json a = Json::array();
  for (double c : costs) a.push_back(c);
  return a;
}

Json result_json(const MeasureResult& r) {
  return Json::array({costs_json(r.costs), r.error_no, r.all_cost, r.timestamp});
}

Json code_hash_json(const ConfigEntity& c) {
  return c.code_hash ? Json(*c.code_hash) : Json(nullptr);
}

}  // namespace

double MeasureResult::mean_cost() const {
  if (costs.empty()) return INFINITY;
  return std::accumulate(costs.begin(), costs.end(), 0.0) / static_cast<double>(costs.size());
}

std::string workload_key(const Json& workload) {
  return py_repr(workload, true);
}

Json workload_v02(const std::string& task_name, const Json& args) {
  Json w = Json::array({task_name});
  for (const auto& a : args) w.push_back(a);
  return w;
}

static Json flatten_v01(const Json& a) {
  if (a.is_null()) return 0;
  if (!a.is_array()) return a;
  if (a.size() == 3 && a[0].is_string() && a[0].get<std::string>() == "TENSOR" && a[1].is_array()) {
    Json t = a[1];
    t.push_back(a[2]);
    return t;
  }
  Json out = Json::array();
  for (const auto& e : a) out.push_back(flatten_v01(e));
  return out;
}

Json workload_v01(const std::string& compute_name, const Json& args) {
  Json w = Json::array({compute_name});
  for (const auto& a : args) w.push_back(flatten_v01(a));
  return w;
}

Record decode_record(const std::string& line_in) {
  std::string line = line_in;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  MINITVM_USER_CHECK(line.size() <= kMaxLineBytes)
      << "line longer than " << kMaxLineBytes << " bytes";
  MINITVM_USER_CHECK(json_depth(line) <= kMaxDepth) << "JSON nested deeper than " << kMaxDepth;
  Json j;
  try {
    j = Json::parse(line);
  } catch (const Json::exception& e) {
    std::string what = e.what();
    if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    MINITVM_USER_ERROR << "bad JSON (" << what << ")";
  }
  MINITVM_USER_CHECK(j.is_object()) << "record is not a JSON object";
  Record rec;
  if (j.contains("i"))
    decode_v01(j, rec);
  else if (j.contains("input"))
    decode_v02(j, rec);
  else
    MINITVM_USER_ERROR << "record has neither \"i\" (format 0.1) nor \"input\" (format 0.2)";
  rec.key_order = keys_of(j);
  try {
    rec.input.target = parse_target(rec.input.target_str);
  } catch (const CompileError& e) {
    MINITVM_USER_ERROR << "bad target: " << e.what();
  }
  rec.input.config.cost = rec.result.mean_cost();
  return rec;
}

std::string encode_record(const Record& r) {
  const bool v01 = r.version < 0.15;
  const ConfigEntity& cfg = r.input.config;
  Json cdict = Json::object();
  std::vector<std::string> corder = r.config_key_order;
  if (corder.empty())
    corder = v01 ? std::vector<std::string>{"i", "t", "c", "e"}
                 : std::vector<std::string>{"index", "code_hash", "entity"};
  for (const auto& k : corder) {
    if (v01 && k == "i")
      cdict[k] = cfg.index;
    else if (v01 && k == "t")
      cdict[k] = (cfg.template_key.empty() && !r.template_key_empty_string)
                     ? Json(nullptr)
                     : Json(cfg.template_key);
    else if (v01 && k == "c")
      cdict[k] = code_hash_json(cfg);
    else if (v01 && k == "e")
      cdict[k] = cfg.entity_json();
    else if (!v01 && k == "index")
      cdict[k] = cfg.index;
    else if (!v01 && k == "code_hash")
      cdict[k] = code_hash_json(cfg);
    else if (!v01 && k == "entity")
      cdict[k] = cfg.entity_json();
    else if (r.config_extra.contains(k))
      cdict[k] = r.config_extra[k];
  }
  Json top = Json::object();
  std::vector<std::string> order = r.key_order;
  if (order.empty())
    order = v01 ? std::vector<std::string>{"i", "r", "v"}
                : std::vector<std::string>{"input", "config", "result", "version", "tvm_version"};
  for (const auto& k : order) {
    if (v01 && k == "i") {
      top[k] = Json::array({r.input.target_str, r.input.task_name, r.input.args, r.input.kwargs,
                            r.input.workload, cdict});
    } else if (v01 && k == "r") {
      top[k] = result_json(r.result);
    } else if (v01 && k == "v") {
      top[k] = 0.1;
    } else if (!v01 && k == "input") {
      top[k] = Json::array({r.input.target_str, r.input.task_name, r.input.args, r.input.kwargs});
    } else if (!v01 && k == "config") {
      top[k] = cdict;
    } else if (!v01 && k == "result") {
      top[k] = result_json(r.result);
    } else if (!v01 && k == "version") {
      top[k] = 0.2;
    } else if (!v01 && k == "tvm_version") {
      if (r.tvm_version) top[k] = *r.tvm_version;
    } else if (r.extra.contains(k)) {
      top[k] = r.extra[k];
    }
  }
  return py_json_dumps(top);
}

std::vector<Record> load_records_from_string(const std::string& text, const std::string& name,
                                             const LoadOptions& opt, LoadReport* report) {
  LoadReport local;
  LoadReport& rep = report ? *report : local;
  rep.file = name;
  std::vector<Record> out;
  size_t pos = 0;
  int lineno = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string::npos ? text.size() : nl;
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++lineno;
    ++rep.lines;
    if (!line.empty() && line[0] == '#') {
      ++rep.comments;
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      ++rep.blank;
      continue;
    }
    std::string reason;
    try {
      Record r = decode_record(line);
      if (opt.check_index) reason = check_record(r);
      if (reason.empty()) {
        r.source = name;
        r.line = lineno;
        out.push_back(std::move(r));
        ++rep.records;
        continue;
      }
    } catch (const CompileError& e) {
      reason = e.what();
    }
    std::string msg = name + ":" + std::to_string(lineno) + ": " + reason;
    MINITVM_USER_CHECK(!opt.strict) << "malformed tuning record at " << msg;
    log_warning("skipping tuning record at " + msg);
    rep.skipped.push_back({name, lineno, reason});
  }
  return out;
}

std::vector<Record> load_records(const std::string& path, const LoadOptions& opt,
                                 LoadReport* report) {
  std::ifstream in(path, std::ios::binary);
  MINITVM_USER_CHECK(in.good()) << "cannot open tuning log '" << path << "'";
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_records_from_string(ss.str(), path, opt, report);
}

void save_records(const std::string& path, const std::vector<Record>& records, bool append) {
  std::ofstream out(path, append ? std::ios::app : std::ios::trunc);
  MINITVM_USER_CHECK(out.good()) << "cannot write tuning log '" << path << "'";
  for (const auto& r : records) out << encode_record(r) << "\n";
}

}  // namespace minitvm::autotune

// The loader's checks of a record against its template's space, and the registry of the spaces of
// TVM's own templates (filled by topi).
namespace minitvm::autotune {

namespace {
struct TemplateSpaceRegistry {
  std::mutex mu;
  std::map<std::string, TemplateSpaceFn> fns;
};

TemplateSpaceRegistry& template_space_registry() {
  static TemplateSpaceRegistry* r = new TemplateSpaceRegistry();  // filled from static init
  return *r;
}

std::mutex& provider_mu() {
  static std::mutex mu;
  return mu;
}
RecordSpaceProvider& provider() {
  static RecordSpaceProvider p;
  return p;
}

// Only CUDA logs are checked against template_space: TopHub's rocm logs were tuned with CUDA's
// unroll_explicit [0, 1] although TVM v0.6 defines [1] for rocm, so their indices exceed the
// rebuilt space.
std::optional<ConfigSpace> cuda_space(const Record& r) {
  if (r.input.target.name != "cuda") return std::nullopt;
  try {
    return template_space(r.input.task_name, r.input.config.template_key, r.input.workload,
                          r.input.target);
  } catch (const CompileError&) {
    return std::nullopt;  // not checkable (e.g. an axis too large to enumerate)
  }
}

std::string index_reason(const Record& r, const ConfigSpace& space) {
  int64_t n = space.size();
  if (r.input.config.index >= n)
    return "config index " + std::to_string(r.input.config.index) + " is outside the space of " +
           r.input.task_name + " (size " + std::to_string(n) + ")";
  return "";
}
}  // namespace

bool register_template_space(const std::string& task_name, TemplateSpaceFn fn) {
  MINITVM_USER_CHECK(!task_name.empty() && fn) << "register_template_space: empty name or function";
  TemplateSpaceRegistry& r = template_space_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.fns[task_name] = std::move(fn);
  return true;
}

std::optional<ConfigSpace> template_space(const std::string& task_name,
                                          const std::string& template_key, const Json& workload,
                                          const Target& target) {
  TemplateSpaceFn fn;
  {
    TemplateSpaceRegistry& r = template_space_registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.fns.find(task_name);
    if (it == r.fns.end()) return std::nullopt;
    fn = it->second;
  }
  return fn(task_name, template_key, workload, target);
}

void set_record_space_provider(RecordSpaceProvider fn) {
  std::lock_guard<std::mutex> lock(provider_mu());
  provider() = std::move(fn);
}

std::string check_record_index(const Record& r) {
  std::optional<ConfigSpace> space = cuda_space(r);
  return space ? index_reason(r, *space) : "";
}

std::string check_record(const Record& r) {
  std::optional<ConfigSpace> space = cuda_space(r);
  if (space) {
    if (std::string why = index_reason(r, *space); !why.empty()) return why;
  } else {
    RecordSpaceProvider p;
    {
      std::lock_guard<std::mutex> lock(provider_mu());
      p = provider();
    }
    if (p) {
      std::string error;
      space = p(r, error);
      if (!error.empty()) return error;
    }
  }
  if (!space) return "";
  std::string why = check_config(r.input.config, *space);
  return why.empty() ? "" : r.input.task_name + ": " + why;
}

}  // namespace minitvm::autotune
