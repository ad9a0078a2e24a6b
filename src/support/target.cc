// Target strings: one parser for build(), the code generators, AutoTVM and topi.
#include "minitvm/support/target.h"

#include <sstream>

#include "minitvm/support/error.h"

namespace minitvm {

namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, ','))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

/** "-arch=sm_80" -> {"arch", "sm_80", true}; "-emulate" -> {"emulate", "", false}. */
struct Opt {
  std::string key, value;
  bool has_value = false;
};
Opt split_option(const std::string& o) {
  Opt r;
  std::string body = o.rfind("-", 0) == 0 ? o.substr(o.rfind("--", 0) == 0 ? 2 : 1) : o;
  auto eq = body.find('=');
  r.key = body.substr(0, eq);
  if (eq != std::string::npos) {
    r.value = body.substr(eq + 1);
    r.has_value = true;
  }
  return r;
}

bool is_feature_name(const std::string& f) {
  if (f.empty()) return false;
  for (char c : f)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'))
      return false;
  return true;
}

}  // namespace

bool is_cuda_arch_syntax(const std::string& a) {
  if (a.size() < 5 || a.rfind("sm_", 0) != 0) return false;
  size_t i = 3, digits = 0;
  while (i < a.size() && a[i] >= '0' && a[i] <= '9') ++i, ++digits;
  if (digits < 2 || digits > 3) return false;
  if (i < a.size() && (a[i] == 'a' || a[i] == 'f')) ++i;
  return i == a.size();
}

Target parse_target(const std::string& s) {
  Target t;
  std::istringstream is(s);
  std::string tok;
  bool first = true;
  while (is >> tok) {
    if (first) {
      t.name = tok;
      first = false;
    } else {
      t.options.push_back(tok);
    }
  }
  MINITVM_USER_CHECK(!t.name.empty()) << "empty target string";
  MINITVM_USER_CHECK(t.options.size() <= 256) << "target string has too many options";
  for (const auto& o : t.options) {
    if (o.rfind("-libs=", 0) == 0) {
      for (auto& l : split_commas(o.substr(6))) t.libs.push_back(l);
    } else if (o.rfind("-device=", 0) == 0) {
      t.device_name = o.substr(8);
      t.keys.push_back(t.device_name);
    } else if (o.rfind("-keys=", 0) == 0) {
      for (auto& k : split_commas(o.substr(6))) t.keys.push_back(k);
    }
  }
  if (!t.device_name.empty()) t.keys.push_back(t.device_name);  // TVM v0.6 pushes it again
  const std::string& n = t.name;
  if (t.is_cuda()) {
    t.keys.push_back("cuda");
    t.keys.push_back("gpu");
    t.max_num_threads = 1024;
    t.thread_warp_size = 32;
  } else if (n == "rocm" || n == "opencl") {
    t.keys.push_back(n);
    t.keys.push_back("gpu");
    t.max_num_threads = 256;
    if (n == "rocm") t.thread_warp_size = 64;
  } else if (n == "metal" || n == "vulkan") {
    t.keys.push_back(n);
    t.keys.push_back("gpu");
    t.max_num_threads = 256;
  } else if (n == "llvm" || n == "c") {
    t.keys.push_back("cpu");
  }

  // The options the code generators interpret: their values are checked here, once.
  auto bad = [&](const std::string& opt, const std::string& why) {
    MINITVM_USER_ERROR << "target '" << s << "': " << opt << ": " << why;
  };
  for (const auto& o : t.options) {
    Opt p = split_option(o);
    if (t.is_cuda()) {
      if (p.key == "arch") {
        if (!p.has_value || !is_cuda_arch_syntax(p.value))
          bad(o, "invalid value '" + p.value +
                     "' for -arch (expected a CUDA architecture sm_XY, e.g. -arch=sm_80)");
        t.arch = p.value;
      } else if (p.key == "emulate" || p.key == "checked") {
        if (p.has_value) bad(o, "-" + p.key + " takes no value");
        (p.key == "emulate" ? t.emulate : t.checked) = true;
      }
    } else if (t.is_llvm()) {
      if (p.key == "mcpu") {
        if (!p.has_value || !is_feature_name(p.value))
          bad(o, "invalid value '" + p.value +
                     "' for -mcpu (expected a CPU name, e.g. -mcpu=skylake-avx512)");
        t.mcpu = p.value;
      } else if (p.key == "mattr") {
        if (!p.has_value || p.value.empty()) bad(o, "-mattr needs a value such as +avx2,-fma");
        for (const auto& f : split_commas(p.value)) {
          if (f.size() < 2 || (f[0] != '+' && f[0] != '-') || !is_feature_name(f.substr(1)))
            bad(o, "invalid feature '" + f +
                       "' in -mattr (expected +name or -name, e.g. -mattr=+avx2,-fma)");
          t.mattr.push_back(f);
        }
      } else if (p.key == "mtriple" || p.key == "target") {
        if (!p.has_value || p.value.empty()) bad(o, "-" + p.key + " needs a value");
        t.mtriple = p.value;
      }
    }
  }
  return t;
}

void check_build_target(const Target& t) {
  const std::string s = t.str();
  MINITVM_USER_CHECK(t.is_llvm() || t.is_cuda())
      << "build: unknown target '" << s << "' (expected llvm, cuda or \"cuda -emulate\")";
  for (const auto& o : t.options) {
    Opt p = split_option(o);
    // Dispatch-only options (tuning logs write them): no effect on code generation.
    if (p.key == "model" || p.key == "device" || p.key == "libs" || p.key == "keys") continue;
    if (t.is_cuda() && (p.key == "arch" || p.key == "emulate" || p.key == "checked")) continue;
    if (t.is_llvm() &&
        (p.key == "mcpu" || p.key == "mattr" || p.key == "mtriple" || p.key == "target"))
      continue;
    MINITVM_USER_ERROR << "build: target '" << s << "': unknown option '" << o << "' for " << t.name
                       << " (known: "
                       << (t.is_cuda() ? "-arch=sm_XY, -emulate, -checked"
                                       : "-mcpu=, -mattr=, -mtriple=")
                       << ", and -model=, -device=, -libs=, -keys=)";
  }
  MINITVM_USER_CHECK(!t.checked || t.emulate)
      << "build: target '" << s
      << "': -checked applies to the CPU emulator only (use \"cuda -emulate -checked\")";
}

std::string Target::option_value(const std::string& opt) const {
  std::string prefix = "-" + opt + "=";
  for (const auto& o : options)
    if (o.rfind(prefix, 0) == 0) return o.substr(prefix.size());
  return "";
}

std::string Target::model() const {
  for (const auto& o : options)
    if (o.rfind("-model=", 0) == 0) return o.substr(7);
  return "unknown";
}

std::string Target::str() const {
  std::string s = name;
  for (const auto& o : options) s += " " + o;
  return s;
}

}  // namespace minitvm
