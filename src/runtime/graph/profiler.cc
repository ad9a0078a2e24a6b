// ProfileReport: the per-kernel table, the PyTorch-style op table, TVM's CSV/JSON and the Chrome
// trace (formats in docs/RUNTIME.md, "Profiler"). GraphExecutor::profile() (graph_executor.cc)
// fills the calls.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "minitvm/runtime/graph_executor.h"
#include "minitvm/runtime/thread_pool.h"
#include "minitvm/support/error.h"
#include "runtime/graph/graph_internal.h"

namespace minitvm::runtime {

std::string profile_op_type(const std::map<std::string, std::string>& attrs,
                            const std::string& func_name) {
  if (auto a = attrs.find("op_type"); a != attrs.end() && !a->second.empty()) return a->second;
  if (auto a = attrs.find("ops"); a != attrs.end() && !a->second.empty()) {
    const std::string& ops = a->second;
    const size_t cut = ops.find_first_of(",+");
    std::string first = ops.substr(0, cut);
    first.erase(0, first.find_first_not_of(' '));
    first.erase(first.find_last_not_of(' ') + 1);
    if (!first.empty()) return first;
  }
  std::string t = func_name;
  if (t.rfind("fused_", 0) == 0) t = t.substr(6);
  const size_t us = t.find_last_of('_');
  if (us != std::string::npos && us + 1 < t.size() &&
      t.find_first_not_of("0123456789", us + 1) == std::string::npos)
    t = t.substr(0, us);
  return t.empty() ? func_name : t;
}

namespace {

std::string fixed(double v, int digits = 2) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

// TVM's AsTable layout: first column left-aligned, the others right-aligned, every cell padded to
// its column's width and followed by two spaces.
std::string layout(const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return "";
  std::vector<size_t> w(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) w[c] = std::max(w[c], r[c].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      const std::string pad(w[c] - r[c].size(), ' ');
      line += c == 0 ? r[c] + pad : pad + r[c];
      line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

// PyTorch's format_time: us below 1 ms, ms below 1 s, else s, three decimals.
std::string torch_time(double us) {
  char buf[64];
  if (us >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3fs", us / 1e6);
  else if (us >= 1e3)
    std::snprintf(buf, sizeof buf, "%.3fms", us / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3fus", us);
  return buf;
}

std::string torch_percent(double part, double total) {
  if (total <= 0) return "NaN";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * part / total);
  return buf;
}

struct Agg {
  std::string name, ops, shapes, device;
  int first_node = 0;
  int64_t calls = 0;
  double total = 0, min = std::numeric_limits<double>::infinity(), max = 0;
};

std::vector<Agg> aggregate(const std::vector<ProfileCall>& calls, bool by_op_type) {
  std::vector<Agg> rows;
  std::map<std::string, size_t> index;
  for (const ProfileCall& c : calls) {
    const std::string key =
        by_op_type ? c.op_type : c.func_name + "\n" + c.arg_shapes + "\n" + c.device;
    auto [it, fresh] = index.emplace(key, rows.size());
    if (fresh) {
      Agg a;
      a.name = by_op_type ? c.op_type : c.func_name;
      a.ops = c.ops;
      a.shapes = c.arg_shapes;
      a.device = c.device;
      a.first_node = c.node;
      rows.push_back(a);
    }
    Agg& a = rows[it->second];
    if (a.ops != c.ops) a.ops.clear();  // differing strings aggregate to empty (as TVM)
    a.calls += 1;
    a.total += c.duration_us;
    a.min = std::min(a.min, c.duration_us);
    a.max = std::max(a.max, c.duration_us);
  }
  return rows;
}

void sort_rows(std::vector<Agg>& rows, bool by_time) {
  std::stable_sort(rows.begin(), rows.end(), [&](const Agg& a, const Agg& b) {
    return by_time ? a.total > b.total : a.first_node < b.first_node;
  });
}

}  // namespace

double ProfileReport::total_us() const {
  double t = 0;
  for (const ProfileCall& c : calls) t += c.duration_us;
  return t;
}

std::string ProfileReport::table(bool sort_by_time) const {
  std::vector<Agg> rows = aggregate(calls, false);
  sort_rows(rows, sort_by_time);
  const double total = total_us();
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"Name", "Ops", "Calls", "Total (us)", "Mean (us)", "Min (us)", "Max (us)",
                   "Percent", "Argument Shapes"});
  int64_t n = 0;
  for (const Agg& a : rows) {
    n += a.calls;
    cells.push_back({a.name, a.ops, std::to_string(a.calls), fixed(a.total),
                     fixed(a.total / a.calls), fixed(a.min), fixed(a.max),
                     fixed(total > 0 ? 100.0 * a.total / total : 0.0), a.shapes});
  }
  cells.push_back({"----------", "", "", "", "", "", "", "", ""});
  cells.push_back({"Total", "", std::to_string(n), fixed(total), "", "", "",
                   fixed(total > 0 ? 100.0 : 0.0), ""});
  std::ostringstream os;
  os << layout(cells);
  os << "(" << runs << " run" << (runs == 1 ? "" : "s") << "; wall time " << fixed(wall_us)
     << " us including instrumentation)\n";
  return os.str();
}

std::string ProfileReport::op_table() const {
  std::vector<Agg> rows = aggregate(calls, true);
  sort_rows(rows, true);
  double total = 0;
  size_t name_w = 4;
  for (const Agg& a : rows) {
    total += a.total;
    name_w = std::max(name_w, a.name.size());
  }
  name_w += 4;  // PyTorch legacy: longest key + 4, the other columns 15, each cell left-aligned
  const size_t col_w = 15;
  const std::vector<std::string> headers = {"Self CPU total %", "Self CPU total",
                                            "CPU total %",      "CPU total",
                                            "CPU time avg",     "Number of Calls"};
  auto cell = [](const std::string& s, size_t w) {
    return s + std::string(w > s.size() ? w - s.size() : 0, ' ') + "  ";
  };
  std::string sep = cell(std::string(name_w, '-'), name_w);
  for (size_t i = 0; i < headers.size(); ++i) sep += cell(std::string(col_w, '-'), col_w);
  std::string out = sep + "\n" + cell("Name", name_w);
  for (const auto& h : headers) out += cell(h, col_w);
  out += "\n" + sep + "\n";
  for (const Agg& a : rows) {
    // A kernel has no children: its self time is its total time.
    out += cell(a.name, name_w) + cell(torch_percent(a.total, total), col_w) +
           cell(torch_time(a.total), col_w) + cell(torch_percent(a.total, total), col_w) +
           cell(torch_time(a.total), col_w) + cell(torch_time(a.total / a.calls), col_w) +
           cell(std::to_string(a.calls), col_w) + "\n";
  }
  out += sep + "\n";
  out += "Self CPU time total: " + torch_time(total) + "\n";
  return out;
}

std::string ProfileReport::csv() const {
  const double total = total_us();
  bool any_ops = false;
  for (const ProfileCall& c : calls) any_ops |= !c.ops.empty();
  // TVM's AsCSV: the metric names sorted, one line per call, strings quoted.
  std::ostringstream os;
  os << "Argument Shapes,Count,Device,Duration (us),Name," << (any_ops ? "Ops," : "")
     << "Percent\n";
  for (const ProfileCall& c : calls) {
    os << '"' << c.arg_shapes << "\",1,\"" << c.device << "\"," << c.duration_us << ",\""
       << c.func_name << "\",";
    if (any_ops) os << '"' << c.ops << "\",";
    os << (total > 0 ? 100.0 * c.duration_us / total : 0.0) << "\n";
  }
  return os.str();
}

std::string ProfileReport::json() const {
  const double total = total_us();
  auto num = [](double v) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(std::numeric_limits<double>::max_digits10) << v;
    return os.str();
  };
  auto str = [](const std::string& s) { return nlohmann::json(s).dump(); };
  std::ostringstream os;
  os << "{\"calls\":[";
  std::map<std::string, std::pair<int64_t, double>> per_device;
  for (size_t i = 0; i < calls.size(); ++i) {
    const ProfileCall& c = calls[i];
    auto& d = per_device[c.device];
    d.first += 1;
    d.second += c.duration_us;
    os << (i ? "," : "") << "{\"Argument Shapes\":{\"string\":" << str(c.arg_shapes)
       << "},\"Count\":{\"count\":1},"
       << "\"Device\":{\"string\":" << str(c.device)
       << "},\"Duration (us)\":{\"microseconds\":" << num(c.duration_us)
       << "},\"Name\":{\"string\":" << str(c.func_name) << "},";
    if (!c.ops.empty()) os << "\"Ops\":{\"string\":" << str(c.ops) << "},";
    os << "\"Percent\":{\"percent\":" << num(total > 0 ? 100.0 * c.duration_us / total : 0.0)
       << "}}";
  }
  os << "],\"device_metrics\":{";
  bool first = true;
  for (const auto& [dev, d] : per_device) {
    os << (first ? "" : ",") << str(dev) << ":{\"Count\":{\"count\":" << d.first
       << "},\"Duration (us)\":{\"microseconds\":" << num(d.second)
       << "},\"Name\":{\"string\":\"Total\"},"
       << "\"Percent\":{\"percent\":" << num(total > 0 ? 100.0 * d.second / total : 0.0) << "}}";
    first = false;
  }
  os << "},\"configuration\":{\"Executor\":{\"string\":\"Graph\"},\"Number of threads\":{\"count\":"
     << thread_pool_size() << "},\"Runs\":{\"count\":" << runs << "}}}";
  return os.str();
}

// Python's repr(round(x, 3)): at most three decimals, trailing zeros dropped, at least one kept.
static std::string py_round3(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  std::string s = buf;
  while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  return s;
}

std::string ProfileReport::debug_table() const {
  // Mean time per node over the runs, in graph order of first appearance.
  struct Node {
    const ProfileCall* call;
    double total = 0;
    int n = 0;
  };
  std::vector<Node> nodes;
  std::map<int, size_t> index;
  for (const ProfileCall& c : calls) {
    auto [it, fresh] = index.emplace(c.node, nodes.size());
    if (fresh) nodes.push_back({&c});
    nodes[it->second].total += c.duration_us;
    nodes[it->second].n += 1;
  }
  double total = 0;
  for (const Node& n : nodes) total += n.total / n.n;
  struct Row {
    double us;
    std::vector<std::string> cells;
  };
  std::vector<Row> rows;
  for (const Node& n : nodes) {
    const double us = n.total / n.n;
    for (const auto& shape : n.call->output_shapes) {
      std::string sh = "(";
      for (size_t i = 0; i < shape.size(); ++i) sh += (i ? ", " : "") + std::to_string(shape[i]);
      sh += shape.size() == 1 ? ",)" : ")";  // numpy's shape tuple
      rows.push_back({us,
                      {n.call->node_name, n.call->func_name, py_round3(us),
                       py_round3(total > 0 ? 100.0 * us / total : 0), sh,
                       std::to_string(n.call->num_inputs), std::to_string(n.call->num_outputs)}});
    }
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.us > b.us; });
  std::vector<std::vector<std::string>> cells = {
      {"Node Name", "Ops", "Time(us)", "Time(%)", "Shape", "Inputs", "Outputs"},
      {"---------", "---", "--------", "-------", "-----", "------", "-------"}};
  for (auto& r : rows) cells.push_back(std::move(r.cells));
  cells.push_back({"Total_time", "-", py_round3(total), "-", "-", "-", "-"});
  std::vector<size_t> w(7, 0);
  for (const auto& r : cells)
    for (size_t c = 0; c < 7; ++c) w[c] = std::max(w[c], r[c].size());
  std::string out;
  for (const auto& r : cells) {
    for (size_t c = 0; c < 7; ++c) out += r[c] + std::string(w[c] + 2 - r[c].size(), ' ');
    out += "\n";
  }
  return out;
}

std::string ProfileReport::chrome_trace() const {
  nlohmann::json events = nlohmann::json::array();
  for (const ProfileCall& c : calls) {
    nlohmann::json args = {{"func_name", c.func_name},
                           {"argument_shapes", c.arg_shapes},
                           {"device", c.device},
                           {"node", c.node},
                           {"run", c.run}};
    if (!c.ops.empty()) args["ops"] = c.ops;
    events.push_back({{"name", c.node_name},
                      {"cat", c.op_type},
                      {"ph", "X"},
                      {"ts", c.start_us},
                      {"dur", c.duration_us},
                      {"pid", 1},
                      {"tid", 1},
                      {"args", args}});
  }
  nlohmann::json root = {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
  return root.dump() + "\n";
}

void ProfileReport::save_chrome_trace(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  MINITVM_RUNTIME_CHECK(out) << "ProfileReport::save_chrome_trace: cannot write " << path;
  out << chrome_trace();
  MINITVM_RUNTIME_CHECK(out.good()) << "ProfileReport::save_chrome_trace: error writing " << path;
}

}  // namespace minitvm::runtime
