// build(): lower + target dispatch.
#include "minitvm/codegen/build.h"

#include "minitvm/codegen/codegen_llvm.h"
#include "minitvm/ir/functor.h"

namespace minitvm {

namespace {
/** The CPU backend has no thread axes: a schedule that binds one is meant for a GPU target. */
void check_no_thread_binding(const std::vector<ir::PrimFunc>& funcs, const std::string& target) {
  for (const auto& f : funcs) {
    std::string tag;
    ir::post_order_visit(f.body(), [&](const ir::Ref<ir::Object>& n) {
      if (!tag.empty()) return;
      if (auto* a = n.as<ir::AttrStmtNode>(); a && a->attr_kind == ir::AttrKind::ThreadExtent)
        if (auto* iv = a->node.as<ir::IterVarNode>()) tag = iv->thread_tag;
    });
    MINITVM_USER_CHECK(tag.empty())
        << "build: function " << f.name() << " binds an axis to '" << tag << "', which target '"
        << target << "' cannot run (thread axes need a GPU target: cuda or \"cuda -emulate\")";
  }
}
}  // namespace

runtime::Module build_cuda_target(const std::vector<ir::PrimFunc>& funcs, const Target& target);

runtime::Module build(const std::vector<ir::PrimFunc>& funcs, const std::string& target) {
  MINITVM_USER_CHECK(target.find_first_not_of(" \t\n") != std::string::npos)
      << "build: empty target string";
  return build(funcs, parse_target(target));
}

runtime::Module build(const std::vector<ir::PrimFunc>& funcs, const Target& target) {
  check_build_target(target);
  if (target.is_llvm()) {
    check_no_thread_binding(funcs, target.str());
    return codegen::build_llvm(funcs, target);
  }
  return build_cuda_target(funcs, target);
}

runtime::Module build(te::Schedule sch, const std::vector<te::Tensor>& args,
                      const std::string& target, const std::string& name,
                      const LowerOptions& options) {
  ir::PrimFunc f = lower(std::move(sch), args, name, options);
  return build(std::vector<ir::PrimFunc>{f}, target);
}

}  // namespace minitvm
