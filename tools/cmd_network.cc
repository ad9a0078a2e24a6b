// `minitvm compile`, `minitvm run` and `minitvm profile`: whole networks, in tvmc's shape.
//
//   minitvm compile MODEL --target T [--batch N] [--log FILE]... [--tophub] -o OUT [--json REPORT]
//   minitvm run MODEL|OUT [--target T] [--input [NAME=]FILE]... [--output-dir DIR] [--repeat N]
//   [--json FILE] minitvm profile MODEL|OUT [--target T] ... [--csv FILE] [--chrome-trace FILE]
//
// MODEL is an .onnx file or a zoo name (relay::testing); OUT a file written by `compile`
// (runtime::export_library). Every failure — a missing or corrupt model, a bad input file, an input
// of the wrong name, shape or dtype, an unsupported op — is reported by main() as one error line
// and exit code 1.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>

#include "cli.h"
#include "commands.h"
#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/tophub.h"
#include "minitvm/frontend/onnx_loader.h"
#include "minitvm/relay/build.h"
#include "minitvm/relay/frontend.h"
#include "minitvm/relay/testing.h"
#include "minitvm/runtime/graph_executor.h"
#include "minitvm/runtime/graph_library.h"
#include "minitvm/runtime/npy.h"
#include "minitvm/runtime/thread_pool.h"
#include "minitvm/support/error.h"

namespace fs = std::filesystem;
using namespace minitvm;

namespace {

// ---- options shared by the three commands
// --------------------------------------------------------

struct ModelOptions {
  std::string model;
  std::string target;  // "" = not given
  int64_t batch = 0;   // 0 = the model's own
  std::vector<std::string> logs;
  bool tophub = false;
  bool no_winograd = false;
  std::vector<std::string> input_shapes;
  relay::frontend::ShapeDict
      input_file_shapes;  // run/profile: shapes of the --input files (ONNX models)
};

void add_model_options(CLI::App& app, ModelOptions& o, bool target_required) {
  app.add_option("model", o.model,
                 "an .onnx file, a zoo name (resnet18/34/50/101/152, vgg11/13/16/19[_bn], "
                 "mobilenet_v2) or a file written by `minitvm compile`")
      ->required();
  auto* t = app.add_option("--target", o.target,
                           "llvm, cuda or \"cuda -emulate\"" +
                               std::string(target_required
                                               ? ""
                                               : " (default llvm; a compiled file keeps its own)"))
                ->check(cli::BuildTarget());
  if (target_required) t->required();
  app.add_option("--batch", o.batch,
                 "batch size of the input (zoo networks; ONNX inputs with a symbolic batch dim)")
      ->check(cli::Integer(1));
  app.add_option("--log", o.logs,
                 "a tuning log (AutoTVM records) to take configs from; repeatable");
  app.add_flag("--tophub", o.tophub,
               "use the TopHub package for the target (with this project's seed logs)");
  app.add_flag("--disable-winograd", o.no_winograd,
               "llvm: run 3x3 stride-1 convolutions directly instead of by Winograd");
  app.add_option(
      "--input-shapes", o.input_shapes,
      "ONNX input shapes, tvmc's form NAME:[1,3,224,224] (or NAME=1,3,224,224); repeatable");
}

// "data:[1,3,224,224]", "data=1,3,224,224", "data:1x3x224x224".
std::pair<std::string, std::vector<int64_t>> parse_shape_arg(const std::string& s) {
  size_t sep = s.find_last_of(":=");
  MINITVM_USER_CHECK(sep != std::string::npos && sep > 0)
      << "--input-shapes '" << s << "': expected NAME:[d0,d1,...]";
  std::string name = s.substr(0, sep), dims = s.substr(sep + 1);
  std::vector<int64_t> shape;
  std::string cur;
  auto flush = [&] {
    if (cur.empty()) return;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(cur.data(), cur.data() + cur.size(), v);
    MINITVM_USER_CHECK(ec == std::errc() && end == cur.data() + cur.size() && v >= 1)
        << "--input-shapes '" << s << "': '" << cur << "' is not a positive dimension";
    shape.push_back(v);
    cur.clear();
  };
  for (char c : dims) {
    if (c == '[' || c == ']' || c == ' ') continue;
    if (c == ',' || c == 'x')
      flush();
    else
      cur += c;
  }
  flush();
  MINITVM_USER_CHECK(!shape.empty()) << "--input-shapes '" << s << "': no dimensions";
  return {name, shape};
}

bool is_compiled_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char magic[8] = {};
  return f.read(magic, 8) && std::memcmp(magic, "MTVMGLIB", 8) == 0;
}

const std::vector<std::string>& zoo_names() {
  static const std::vector<std::string> n = {
      "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "vgg11",    "vgg13",
      "vgg16",    "vgg19",    "vgg11_bn", "vgg13_bn",  "vgg16_bn",  "vgg19_bn", "mobilenet_v2"};
  return n;
}

relay::testing::Network zoo_network(const std::string& name, int64_t batch) {
  std::smatch m;
  if (std::regex_match(name, m, std::regex("resnet(18|34|50|101|152)")))
    return relay::testing::resnet(std::stoi(m[1]), batch);
  if (std::regex_match(name, m, std::regex("vgg(11|13|16|19)(_bn)?")))
    return relay::testing::vgg(std::stoi(m[1]), batch, {3, 224, 224}, 1000, m[2].matched);
  if (name == "mobilenet_v2" || name == "mobilenetv2") return relay::testing::mobilenet_v2(batch);
  std::string names;
  for (auto& n : zoo_names()) names += (names.empty() ? "" : ", ") + n;
  throw CompileError("model '" + name + "' is neither a file nor a zoo network (" + names + ")");
}

// The graph of MODEL (an ONNX file or a zoo name).
relay::frontend::Imported import_model(const ModelOptions& o) {
  if (!fs::exists(o.model)) {
    MINITVM_USER_CHECK(o.model.find('/') == std::string::npos &&
                       o.model.find(".onnx") == std::string::npos)
        << "model file " << o.model << " not found";
    MINITVM_USER_CHECK(o.input_shapes.empty())
        << "--input-shapes applies to ONNX models, not to zoo network " << o.model;
    auto net = zoo_network(o.model, o.batch > 0 ? o.batch : 1);
    return {net.mod, net.params};
  }
  MINITVM_USER_CHECK(fs::is_regular_file(o.model)) << "model " << o.model << " is not a file";
  relay::frontend::ShapeDict shapes;
  for (auto& s : o.input_shapes) shapes.insert(parse_shape_arg(s));
  for (auto& [name, s] : o.input_file_shapes) shapes.insert({name, s});  // --input-shapes wins
  if (o.batch > 0) {
    for (const auto& in : relay::frontend::onnx_graph_inputs(o.model)) {
      if (shapes.count(in.name)) continue;
      MINITVM_USER_CHECK(in.has_shape && !in.shape.empty())
          << o.model << ": input '" << in.name
          << "' has no shape in the model; give it with --input-shapes";
      std::vector<int64_t> s = in.shape;
      MINITVM_USER_CHECK(s[0] < 0 || s[0] == o.batch)
          << o.model << ": --batch " << o.batch << " but input '" << in.name
          << "' has a static batch of " << s[0] << " (export the model with a dynamic batch axis)";
      s[0] = o.batch;
      for (size_t k = 1; k < s.size(); ++k)
        MINITVM_USER_CHECK(s[k] >= 1) << o.model << ": input '" << in.name << "' dim " << k
                                      << " is symbolic; give the shape with --input-shapes";
      shapes[in.name] = s;
    }
  }
  return relay::frontend::from_onnx(o.model, shapes);
}

// Build MODEL for the target under the tuning context the options name.
relay::Built compile_model(const ModelOptions& o) {
  std::string target = o.target.empty() ? "llvm" : o.target;
  auto imported = import_model(o);
  std::unique_ptr<autotune::ApplyHistoryBest> ctx;
  if (o.tophub) {
    autotune::tophub::Options opt;
    opt.include_seed_logs = true;
    ctx = autotune::tophub::context(target, o.logs, opt);
  } else if (!o.logs.empty()) {
    ctx = std::make_unique<autotune::ApplyHistoryBest>();
    for (auto& f : o.logs) {
      MINITVM_USER_CHECK(fs::is_regular_file(f)) << "--log " << f << ": no such file";
      ctx->load(f);
    }
  }
  std::optional<autotune::DispatchScope> scope;
  if (ctx) scope.emplace(*ctx);
  relay::BuildOptions bo;
  bo.winograd = !o.no_winograd;
  return relay::build(imported.mod, target, imported.params, bo);
}

// What run/profile execute: a compiled file as it is, anything else compiled now.
struct Loaded {
  runtime::CompiledGraph graph;
  autotune::Json report;  // the build report (null if the file has none)
};

Loaded load_or_compile(const ModelOptions& o) {
  Loaded l;
  if (fs::is_regular_file(o.model) && is_compiled_file(o.model)) {
    MINITVM_USER_CHECK(o.logs.empty() && !o.tophub && o.batch == 0 && o.input_shapes.empty())
        << o.model
        << " is already compiled: --log, --tophub, --batch and --input-shapes apply to models";
    l.graph = runtime::load_compiled_graph(o.model);
    MINITVM_USER_CHECK(o.target.empty() || autotune::parse_target(o.target).str() ==
                                               autotune::parse_target(l.graph.target).str())
        << o.model << " was compiled for '" << l.graph.target << "', not for --target '" << o.target
        << "'";
  } else {
    relay::Built b = compile_model(o);
    l.graph = b;
  }
  if (!l.graph.metadata.empty()) {
    try {
      l.report = autotune::Json::parse(l.graph.metadata);
    } catch (const std::exception&) {
      l.report = nullptr;
    }
  }
  return l;
}

Device device_for(const std::string& target) {
  return autotune::parse_target(target).name == "cuda" &&
                 target.find("-emulate") == std::string::npos
             ? Device::cuda(0)
             : Device::cpu();
}

// ---- inputs and outputs
// --------------------------------------------------------------------------

runtime::NDArray read_tensor_file(const std::string& path) {
  MINITVM_USER_CHECK(fs::is_regular_file(path)) << "input file " << path << " not found";
  std::string ext = fs::path(path).extension().string();
  if (ext == ".pb") {
    frontend::HostArray h = frontend::onnx::load_tensor(path);
    runtime::NDArray a = runtime::NDArray::empty(h.shape(), h.dtype());
    if (h.nbytes()) std::memcpy(a.data(), h.raw(), h.nbytes());
    return a;
  }
  MINITVM_USER_CHECK(ext == ".npy")
      << "input file " << path << ": expected a .npy or an ONNX TensorProto .pb file";
  return runtime::load_npy(path);
}

// For an ONNX model run directly: the shapes of the --input files, so that a symbolic dim takes the
// data's size (as ONNX Runtime does). The unnamed form names the model's only graph input.
void shapes_from_input_files(ModelOptions& o, const std::vector<std::string>& specs) {
  if (specs.empty() || !fs::is_regular_file(o.model) || is_compiled_file(o.model)) return;
  std::vector<relay::frontend::OnnxInput> ins = relay::frontend::onnx_graph_inputs(o.model);
  for (const auto& spec : specs) {
    size_t eq = spec.find('=');
    std::string name = eq == std::string::npos ? "" : spec.substr(0, eq);
    std::string file = eq == std::string::npos ? spec : spec.substr(eq + 1);
    if (name.empty()) {
      if (ins.size() != 1) continue;  // set_inputs reports it
      name = ins[0].name;
    }
    const relay::frontend::OnnxInput* in = nullptr;
    for (auto& i : ins)
      if (i.name == name) in = &i;
    if (!in || !fs::is_regular_file(file)) continue;  // set_inputs reports it
    bool is_static = in->has_shape && std::all_of(in->shape.begin(), in->shape.end(),
                                                  [](int64_t d) { return d >= 0; });
    if (is_static) continue;  // the data must match the model's shape (set_inputs checks)
    o.input_file_shapes[name] = read_tensor_file(file).shape();
  }
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// Set the graph inputs from `--input [NAME=]FILE` (one unnamed input allowed when the graph has one
// input that is not a parameter), the rest from a seeded random uniform [-1, 1).
void set_inputs(runtime::GraphExecutor& ex, const std::vector<std::string>& specs, uint64_t seed,
                std::ostream& log) {
  std::vector<int> free_inputs;
  for (int i = 0; i < ex.get_num_inputs(); ++i)
    if (!ex.is_param(i)) free_inputs.push_back(i);
  std::set<int> given;
  for (const auto& spec : specs) {
    size_t eq = spec.find('=');
    std::string name, file = spec;
    if (eq != std::string::npos) name = spec.substr(0, eq), file = spec.substr(eq + 1);
    int idx;
    if (name.empty()) {
      MINITVM_USER_CHECK(free_inputs.size() == 1)
          << "--input " << spec << ": the graph has " << free_inputs.size()
          << " inputs; name it (--input NAME=FILE)";
      idx = free_inputs[0];
    } else {
      idx = ex.get_input_index(name);
      std::string names;
      for (int i : free_inputs) names += (names.empty() ? "" : ", ") + ex.input_names()[i];
      MINITVM_USER_CHECK(idx >= 0 && !ex.is_param(idx))
          << "--input " << spec << ": the graph has no input '" << name << "' (inputs: " << names
          << ")";
    }
    MINITVM_USER_CHECK(!given.count(idx))
        << "--input " << spec << ": input '" << ex.input_names()[idx] << "' given twice";
    runtime::NDArray a = read_tensor_file(file);
    const std::string& in = ex.input_names()[idx];
    MINITVM_USER_CHECK(a.dtype() == ex.input_dtype(idx))
        << "--input " << spec << ": input '" << in << "' takes " << ex.input_dtype(idx).str()
        << " data, the file holds " << a.dtype().str();
    MINITVM_USER_CHECK(a.shape() == ex.input_shape(idx))
        << "--input " << spec << ": input '" << in << "' has shape "
        << shape_str(ex.input_shape(idx)) << ", the file holds " << shape_str(a.shape());
    ex.set_input(idx, a);
    given.insert(idx);
  }
  for (int i : free_inputs) {
    if (given.count(i)) continue;
    MINITVM_USER_CHECK(ex.input_dtype(i) == DataType::Float(32))
        << "input '" << ex.input_names()[i] << "' (" << ex.input_dtype(i).str()
        << ") needs --input";
    ex.set_input(
        i, relay::testing::random_uniform(ex.input_shape(i), -1.0f, 1.0f, seed + uint64_t(i)));
    log << "input '" << ex.input_names()[i] << "': random uniform [-1, 1) "
        << shape_str(ex.input_shape(i)) << " (seed " << seed + uint64_t(i) << ")\n";
  }
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  MINITVM_USER_CHECK(f.good()) << "cannot write " << path;
}

autotune::Json workloads_of(const autotune::Json& report) {
  return report.is_object() && report.contains("workloads") ? report["workloads"]
                                                            : autotune::Json(nullptr);
}

// ---- the commands
// --------------------------------------------------------------------------------

int run_compile(const std::vector<std::string>& args) {
  ModelOptions o;
  std::string out, json;
  auto app = cli::make_app("minitvm compile",
                           "Import a network (ONNX file or zoo name), build it for the target with "
                           "the configs of the tuning logs "
                           "(--log, --tophub; fallback configs otherwise) and write one file with "
                           "the graph, the parameters and the "
                           "compiled code (runtime::export_library), which `minitvm run`/`profile` "
                           "and programs linked against "
                           "minitvm_runtime_lite load. Prints the build report (kernels, workloads "
                           "from log / fallback, memory).",
                           "usage: minitvm compile MODEL --target T [--batch N] [--log FILE]... "
                           "[--tophub] -o OUT [--json REPORT]");
  add_model_options(*app, o, true);
  app->add_option("-o,--output", out, "the compiled file to write")->required();
  app->add_option("--json", json, "write the build report as JSON");
  if (auto rc = cli::parse(*app, args)) return *rc;
  relay::Built b = compile_model(o);
  std::cout << b.report();
  runtime::export_library(b, out);
  std::cout << "wrote " << out << " (" << fs::file_size(out) << " bytes)\n";
  if (!json.empty()) {
    autotune::Json r = b.report_json();
    r["model"] = o.model;
    r["output"] = out;
    write_text(json, r.dump(2) + "\n");
  }
  return 0;
}

struct RunOptions {
  ModelOptions model;
  std::vector<std::string> inputs;
  std::string output_dir, json;
  int repeat = 1, warmup = 1;
  uint64_t seed = 0;
};

void add_run_options(CLI::App& app, RunOptions& r) {
  add_model_options(app, r.model, false);
  app.add_option("--input", r.inputs,
                 "[NAME=]FILE: an input from a .npy or ONNX TensorProto .pb file; repeatable");
  app.add_option("--seed", r.seed, "seed of the random inputs not given with --input (default 0)");
}

int run_run(const std::vector<std::string>& args) {
  RunOptions r;
  auto app =
      cli::make_app("minitvm run",
                    "Run a network (a file written by `minitvm compile`, or a model compiled now) "
                    "on its inputs (--input; "
                    "random uniform [-1, 1) from --seed otherwise), write output k to "
                    "DIR/output_<k>.npy and time --repeat runs "
                    "after --warmup untimed ones.",
                    "usage: minitvm run MODEL|OUT [--target T] [--input [NAME=]FILE]... "
                    "[--output-dir DIR] [--repeat N] [--warmup N]\n"
                    "                   [--json FILE] [--log FILE]... [--tophub] [--batch N]");
  add_run_options(*app, r);
  app->add_option("--output-dir", r.output_dir, "write each graph output k to DIR/output_<k>.npy");
  app->add_option("--repeat", r.repeat, "timed runs (default 1)")->check(cli::Integer(1));
  app->add_option("--warmup", r.warmup, "untimed runs first (default 1)")->check(cli::Integer(0));
  app->add_option("--json", r.json, "write outputs, latency and workloads as JSON");
  if (auto rc = cli::parse(*app, args)) return *rc;
  shapes_from_input_files(r.model, r.inputs);
  Loaded l = load_or_compile(r.model);
  Device dev = device_for(l.graph.target);
  runtime::GraphExecutor ex(l.graph, dev);
  set_inputs(ex, r.inputs, r.seed, std::cerr);
  auto sync = [&] {
    if (!dev.is_cpu() && ex.get_num_outputs() > 0) (void)ex.get_output(0).copy_to(Device::cpu());
  };
  for (int i = 0; i < r.warmup; ++i) {
    ex.run();
    sync();
  }
  std::vector<double> ms;
  for (int i = 0; i < r.repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    ex.run();
    sync();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  double median = sorted.size() % 2
                      ? sorted[sorted.size() / 2]
                      : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  autotune::Json outputs = autotune::Json::array();
  if (!r.output_dir.empty()) fs::create_directories(r.output_dir);
  auto names = ex.output_names();
  for (int k = 0; k < ex.get_num_outputs(); ++k) {
    runtime::NDArray y = ex.get_output(k).copy_to(Device::cpu());
    autotune::Json o = {
        {"name", names[size_t(k)]}, {"shape", y.shape()}, {"dtype", y.dtype().str()}};
    std::cout << "output " << k << " '" << names[size_t(k)] << "': " << y.dtype().str()
              << shape_str(y.shape());
    if (y.dtype() == DataType::Float(32) && y.size() > 0) {
      auto v = y.to_vector<float>();
      size_t am = size_t(std::max_element(v.begin(), v.end()) - v.begin());
      double sum = 0;
      for (float f : v) sum += f;
      std::cout << "  sum " << sum << ", max " << v[am] << " at flat index " << am;
    }
    if (!r.output_dir.empty()) {
      std::string path =
          (fs::path(r.output_dir) / ("output_" + std::to_string(k) + ".npy")).string();
      runtime::save_npy(path, y);
      o["path"] = path;
      std::cout << "  -> " << path;
    } else {
      o["path"] = nullptr;
    }
    std::cout << "\n";
    outputs.push_back(std::move(o));
  }
  std::cout << "latency over " << r.repeat << " run(s): median " << median << " ms, min "
            << sorted.front() << " ms, max " << sorted.back() << " ms\n";
  if (!r.json.empty()) {
    autotune::Json j = {{"model", r.model.model},
                        {"target", l.graph.target},
                        {"threads", runtime::configured_thread_count()},
                        {"outputs", outputs},
                        {"latency_ms",
                         {{"median", median},
                          {"min", sorted.front()},
                          {"max", sorted.back()},
                          {"repeat", r.repeat},
                          {"warmup", r.warmup}}},
                        {"workloads", workloads_of(l.report)}};
    write_text(r.json, j.dump(2) + "\n");
  }
  return 0;
}

int run_profile(const std::vector<std::string>& args) {
  RunOptions r;
  std::string csv, trace, json;
  int runs = 10, warmup = 1;
  bool graph_order = false;
  auto app = cli::make_app(
      "minitvm profile",
      "Run a network with every kernel timed (GraphExecutor::profile): a table per kernel (calls, "
      "total/mean/min/"
      "max us, percent, argument shapes; sorted by time or graph order) and a table per op type in "
      "the columns of "
      "PyTorch's profiler, optionally CSV and a Chrome trace (chrome://tracing, Perfetto).",
      "usage: minitvm profile MODEL|OUT [--target T] [--input [NAME=]FILE]... [--runs N] [--warmup "
      "N]\n"
      "                       [--graph-order] [--csv FILE] [--json FILE] [--chrome-trace FILE]\n"
      "                       [--log FILE]... [--tophub] [--batch N]");
  add_run_options(*app, r);
  app->add_option("--runs,--repeat", runs, "timed runs (default 10)")->check(cli::Integer(1));
  app->add_option("--warmup", warmup, "untimed runs first (default 1)")->check(cli::Integer(0));
  app->add_flag("--graph-order", graph_order, "list kernels in graph order instead of by time");
  app->add_option("--csv", csv, "write one row per call as CSV (TVM's AsCSV)");
  app->add_option("--json", json, "write one row per call as JSON (TVM's AsJSON)");
  app->add_option("--chrome-trace", trace, "write a Chrome trace event file");
  if (auto rc = cli::parse(*app, args)) return *rc;
  shapes_from_input_files(r.model, r.inputs);
  Loaded l = load_or_compile(r.model);
  runtime::GraphExecutor ex(l.graph, device_for(l.graph.target));
  set_inputs(ex, r.inputs, r.seed, std::cerr);
  runtime::ProfileReport p = ex.profile(runs, warmup);
  std::cout << p.table(!graph_order) << "\n" << p.op_table();
  double per_run = p.wall_us / std::max(1, p.runs);
  std::cout << "wall time per run " << per_run / 1000.0 << " ms (kernels "
            << p.total_us() / std::max(1, p.runs) / 1000.0
            << " ms; the rest is the timing itself and the gaps between calls)\n";
  if (!csv.empty()) write_text(csv, p.csv());
  if (!json.empty()) write_text(json, p.json());
  if (!trace.empty()) p.save_chrome_trace(trace);
  return 0;
}

}  // namespace

MINITVM_COMMAND("compile", "build a network (ONNX or zoo) for a target into one file", run_compile);
MINITVM_COMMAND("run", "run a compiled network or a model on given or random inputs", run_run);
MINITVM_COMMAND("profile", "time every kernel of a network: per-kernel and per-op tables",
                run_profile);

namespace minitvm::tools {

bool is_network_model(const std::string& model) {
  if (model.size() > 5 && model.compare(model.size() - 5, 5, ".onnx") == 0)
    return true;  // maybe missing: say so
  if (fs::is_regular_file(model)) return !is_compiled_file(model);
  return std::find(zoo_names().begin(), zoo_names().end(), model) != zoo_names().end() ||
         model == "mobilenetv2";
}

relay::frontend::Imported import_network(const std::string& model, int64_t batch,
                                         const std::vector<std::string>& input_shapes) {
  ModelOptions o;
  o.model = model;
  o.batch = batch;
  o.input_shapes = input_shapes;
  return import_model(o);
}

}  // namespace minitvm::tools
