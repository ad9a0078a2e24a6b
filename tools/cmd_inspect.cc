// `minitvm inspect OP SHAPES... --target T [--tophub FILES] --print config,ir,source,ptxas`: one
// layer built under the dispatch context, with the config chosen, lowered IR, source and ptxas
// usage.
//
//   minitvm inspect conv2d 1x64x56x56 64x64x3x3 --stride 1 --pad 1 --target cuda
//   minitvm inspect winograd 1x64x56x56 64x64x3x3 --pad 1 --target cuda --print config,ir
//   minitvm inspect depthwise_conv2d 1x32x112x112 32x1x3x3 --pad 1 --target cuda
//   minitvm inspect dense 1x2048 1000x2048 --bias --target llvm --print ir
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cli.h"
#include "commands.h"
#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/tophub.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/runtime/ptxas.h"
#include "minitvm/topi/layer.h"

namespace {

using namespace minitvm;

std::vector<int64_t> parse_dims(const std::string& s, const std::string& what) {
  std::vector<int64_t> r;
  std::string cur;
  for (char c : s + "x") {
    if (c == 'x' || c == ',') {
      if (cur.empty()) throw std::invalid_argument("bad " + what + " '" + s + "'");
      r.push_back(std::stoll(cur));
      cur.clear();
    } else if (c >= '0' && c <= '9') {
      cur += c;
    } else {
      throw std::invalid_argument("bad " + what + " '" + s + "' (expected e.g. 1x64x56x56)");
    }
  }
  return r;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) r.push_back(item);
  return r;
}

// Comma-separated integers >= lo, 1..max_count of them (--stride, --pad, --dilation).
CLI::Validator int_list_check(size_t min_count, size_t max_count, long long lo) {
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        auto items = split_list(s);
        if (items.size() < min_count || items.size() > max_count || s.back() == ',')
          return "'" + s + "' needs " + std::to_string(min_count) + " to " +
                 std::to_string(max_count) + " comma-separated integers";
        for (auto& v : items) {
          std::string one = v;
          std::string err = cli::Integer(lo).operator()(one);
          if (!err.empty()) return err;
        }
        return "";
      },
      "INT[,INT...]");
}

const char* kUsage =
    "usage: minitvm inspect conv2d|winograd|depthwise_conv2d DATA KERNEL [--stride S] [--pad P] "
    "[--dilation D]\n"
    "       minitvm inspect dense DATA WEIGHT [--bias]\n"
    "         [--target cuda|\"cuda -emulate\"|llvm] [--tophub FILE[,FILE...]] [--print "
    "config,ir,source,ptxas]\n"
    "  DATA/KERNEL: NxCxHxW and COxCIxKHxKW (depthwise: CxMxKHxKW); dense BATCHxIN and OUTxIN.\n"
    "  S, D: one value or H,W; P: 1, 2 (H,W) or 4 (top,left,bottom,right) values, comma "
    "separated.\n"
    "  Default target cuda; CUDA targets use TVM's TopHub package for cuda (tophub/) unless "
    "--tophub,\n"
    "  llvm conv2d (template conv2d_NCHWc.x86) the package for llvm.\n";

int run_inspect(const std::vector<std::string>& args) {
  std::string op, target = "cuda";
  std::vector<std::string> pos, tophub_files;
  std::vector<std::string> print{"config", "ir", "source", "ptxas"};
  topi::nn::Conv2dAttrs attrs;
  attrs.padding = {0, 0};
  bool bias = false;
  auto app = cli::make_app(
      "minitvm inspect",
      "One layer built under the dispatch context: the config chosen, lowered IR, source and "
      "ptxas usage.",
      kUsage);
  std::string stride, pad, dilation, tophub_list, print_list;
  app->add_option("op", op, "conv2d, winograd, depthwise_conv2d or dense")
      ->required()
      ->check(CLI::IsMember({"conv2d", "winograd", "depthwise_conv2d", "dense"}));
  app->add_option("shapes", pos, "DATA and KERNEL (or WEIGHT) shapes, e.g. 1x64x56x56 64x64x3x3")
      ->required()
      ->expected(2)
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            try {
              parse_dims(v, "shape");
            } catch (const std::exception& e) {
              return std::string(e.what()) == "stoll" ? "'" + v + "': a dimension is out of range"
                                                      : e.what();
            }
            return "";
          },
          "NxCxHxW"));
  app->add_option("--target", target, "cuda (default), \"cuda -emulate\" or llvm")
      ->check(cli::BuildTarget());
  app->add_option("--tophub", tophub_list, "tuning logs to use instead of TopHub, comma separated");
  app->add_option("--print", print_list, "what to print: config,ir,source,ptxas (default all)");
  app->add_option("--stride", stride, "S or H,W")->check(int_list_check(1, 2, 1));
  app->add_option("--pad", pad, "P, H,W or top,left,bottom,right")->check(int_list_check(1, 4, 0));
  app->add_option("--dilation", dilation, "D or H,W")->check(int_list_check(1, 2, 1));
  app->add_flag("--bias", bias, "dense with a bias");
  if (auto rc = cli::parse(*app, args)) return *rc;
  if (!tophub_list.empty()) tophub_files = split_list(tophub_list);
  if (!print_list.empty()) print = split_list(print_list);
  auto ints = [](const std::string& s) {
    std::vector<int64_t> r;
    for (auto& v : split_list(s)) r.push_back(std::stoll(v));  // checked by int_list_check
    return r;
  };
  if (!stride.empty()) attrs.stride = ints(stride);
  if (!pad.empty()) attrs.padding = ints(pad);
  if (!dilation.empty()) attrs.dilation = ints(dilation);
  auto want = [&](const std::string& w) {
    return std::find(print.begin(), print.end(), w) != print.end();
  };
  try {
    auto ds = parse_dims(pos[0], "data shape"), ks = parse_dims(pos[1], "kernel shape");
    bool cuda = target.rfind("cuda", 0) == 0;
    std::unique_ptr<autotune::ApplyHistoryBest> ctx;
    // CUDA templates and the llvm conv2d template (conv2d_NCHWc.x86) read tuning logs.
    if (cuda || op == "conv2d") {
      if (tophub_files.empty()) {
        ctx = autotune::tophub::context(cuda ? "cuda" : "llvm");
      } else {
        ctx = std::make_unique<autotune::ApplyHistoryBest>();
        for (auto& f : tophub_files) ctx->load(f);
      }
    }
    autotune::root_fallback_context().silent = true;
    std::optional<autotune::DispatchScope> scope;
    if (ctx) scope.emplace(*ctx);
    topi::LayerOptions lo;
    topi::LayerBuild L;
    if (op == "conv2d" || op == "winograd") {
      if (op == "winograd") lo.force_template = "winograd";
      if (ds.size() != 4 || ks.size() != 4)
        throw std::invalid_argument("conv2d needs NxCxHxW and COxCIxKHxKW");
      // Winograd does not build for CUDA yet (multi-kernel); still show config and IR.
      if (op == "winograd" && cuda && !want("source") && !want("ptxas")) lo.lower_only = true;
      L = topi::build_conv2d(ds, ks, attrs, target, lo);
    } else if (op == "depthwise_conv2d") {
      if (ds.size() != 4 || ks.size() != 4)
        throw std::invalid_argument("depthwise_conv2d needs NxCxHxW and CxMxKHxKW");
      L = topi::build_depthwise_conv2d(ds, ks, attrs, target, lo);
    } else if (op == "dense") {
      if (ds.size() != 2 || ks.size() != 2 || ds[1] != ks[1])
        throw std::invalid_argument("dense needs BATCHxIN and OUTxIN");
      L = topi::build_dense(ds[0], ds[1], ks[0], bias, target, lo);
    } else {
      std::cerr << "minitvm inspect: unknown operator '" << op << "'\n" << kUsage;
      return 2;
    }
    if (want("config")) {
      if (!cuda && L.template_key.empty()) {
        std::cout << "== config: none (llvm uses the fixed CPU schedules of topi/cpu_schedule.h)\n";
      } else {
        std::cout << "== config (" << (L.is_fallback ? "fallback" : "from tuning log")
                  << ", template " << L.template_key << ")\n"
                  << L.config.str() << "\n"
                  << "workload " << autotune::workload_key(L.workload) << "\n";
      }
    }
    if (want("ir")) std::cout << "== lowered IR\n" << L.ir << "\n";
    if (want("source"))
      std::cout << "== source (" << (cuda ? "CUDA C" : "LLVM IR") << ")\n" << L.source << "\n";
    if (want("ptxas") && cuda) {
      auto ptx = runtime::nvrtc_compile(L.source).ptx;
      auto rep = runtime::ptxas_check(ptx, "sm_90");
      std::cout << "== ptxas sm_90\n";
      for (auto& k : rep.kernels)
        std::cout << k.name << ": " << k.registers << " registers, " << k.shared_bytes
                  << " bytes smem, " << k.stack_bytes << " bytes stack, spills " << k.spill_stores
                  << "/" << k.spill_loads << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "minitvm inspect: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

MINITVM_COMMAND("inspect",
                "show config, lowered IR, source and ptxas usage of one conv2d/dense layer",
                run_inspect);
