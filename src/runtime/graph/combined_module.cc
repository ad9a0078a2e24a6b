// combine_modules (graph_library.h): one Module over several, e.g. one module per fused kernel.
#include <map>
#include <sstream>

#include "minitvm/runtime/graph_library.h"
#include "minitvm/support/error.h"
#include "runtime/graph/graph_internal.h"
#include "runtime/prepared_call.h"

namespace minitvm::runtime {

namespace {

class CombinedModuleNode final : public CombinedModule, public PreparedCallProvider {
 public:
  explicit CombinedModuleNode(std::vector<Module> parts) : parts_(std::move(parts)) {
    for (size_t i = 0; i < parts_.size(); ++i) {
      MINITVM_USER_CHECK(parts_[i]) << "combine_modules: module " << i << " is empty";
      for (const std::string& name : parts_[i].function_names()) {
        auto [it, fresh] = owner_.emplace(name, i);
        MINITVM_USER_CHECK(fresh) << "combine_modules: function '" << name
                                  << "' is defined by module " << it->second << " and module " << i;
        names_.push_back(name);
      }
    }
  }

  std::string type_key() const override { return "multi"; }

  PackedFunc get_function(const std::string& name) override {
    auto it = owner_.find(name);
    if (it == owner_.end()) return {};
    return parts_[it->second].node()->get_function(name);
  }

  std::function<void()> prepare_call(const std::string& name,
                                     const std::vector<ArgValue>& args) override {
    auto it = owner_.find(name);
    if (it == owner_.end()) return {};
    return runtime::prepare_call(parts_[it->second], name, args);
  }

  std::string get_source(const std::string& format) const override {
    std::ostringstream os;
    for (size_t i = 0; i < parts_.size(); ++i)
      os << (i ? "\n" : "") << parts_[i].get_source(format);
    return os.str();
  }

  std::vector<std::string> function_names() const override { return names_; }

  const std::vector<Module>& parts() const override { return parts_; }

 private:
  std::vector<Module> parts_;
  std::map<std::string, size_t> owner_;
  std::vector<std::string> names_;
};

}  // namespace

Module combine_modules(const std::vector<Module>& modules) {
  return Module(std::make_shared<CombinedModuleNode>(modules));
}

}  // namespace minitvm::runtime
