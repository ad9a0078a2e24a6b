// build(): lower + target dispatch.
#include "minitvm/codegen/build.h"

#include <sstream>

#include "minitvm/codegen/codegen_llvm.h"
#include "minitvm/ir/functor.h"

namespace minitvm {

namespace {
struct TargetSpec {
  std::string kind;
  std::vector<std::string> options;
  bool has(const std::string& o) const {
    for (auto& x : options)
      if (x == o) return true;
    return false;
  }
};
TargetSpec parse(const std::string& target) {
  std::istringstream is(target);
  TargetSpec t;
  is >> t.kind;
  std::string o;
  while (is >> o) t.options.push_back(o);
  MINITVM_USER_CHECK(!t.kind.empty()) << "build: empty target string";
  return t;
}
/** The CPU backend has no thread axes: a schedule that binds one is meant for a GPU target. */
void check_no_thread_binding(const std::vector<ir::PrimFunc>& funcs, const std::string& target) {
  for (const auto& f : funcs) {
    std::string tag;
    ir::post_order_visit(f.body(), [&](const ir::Ref<ir::Object>& n) {
      if (!tag.empty()) return;
      if (auto* a = n.as<ir::AttrStmtNode>(); a && a->attr_kind == ir::AttrKind::ThreadExtent)
        if (auto* iv = a->node.as<ir::IterVarNode>()) tag = iv->thread_tag;
    });
    MINITVM_USER_CHECK(tag.empty()) << "build: function " << f.name() << " binds an axis to '" << tag
                                    << "', which target '" << target
                                    << "' cannot run (thread axes need a GPU target: cuda or \"cuda -emulate\")";
  }
}
}  // namespace

runtime::Module build_cuda_target(const std::vector<ir::PrimFunc>& funcs, bool emulate);

runtime::Module build(const std::vector<ir::PrimFunc>& funcs, const std::string& target) {
  TargetSpec t = parse(target);
  if (t.kind == "llvm" || t.kind == "cpu" || t.kind == "c") {
    check_no_thread_binding(funcs, target);
    return codegen::build_llvm(funcs);
  }
  if (t.kind == "cuda" || t.kind == "nvptx") return build_cuda_target(funcs, t.has("-emulate"));
  MINITVM_USER_ERROR << "build: unknown target '" << target << "' (expected llvm, cuda or \"cuda -emulate\")";
  return {};
}

runtime::Module build(te::Schedule sch, const std::vector<te::Tensor>& args, const std::string& target,
                      const std::string& name, const LowerOptions& options) {
  ir::PrimFunc f = lower(std::move(sch), args, name, options);
  return build(std::vector<ir::PrimFunc>{f}, target);
}

}  // namespace minitvm
