// Target-string parsing with TVM v0.6 key/model semantics.
#include "minitvm/autotune/target.h"

#include <sstream>

#include "minitvm/support/error.h"

namespace minitvm::autotune {

static std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, ','))
    if (!cur.empty()) out.push_back(cur);
  return out;
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
  if (n == "cuda" || n == "nvptx") {
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
  return t;
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

}  // namespace minitvm::autotune
