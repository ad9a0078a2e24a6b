// Virtual threads become serial loops. Each iteration runs the whole body of the attribute, so
// buffers allocated inside stay private to one virtual thread; TVM instead interleaves the copies
// at the innermost statement (faster, same results). See docs/ARCHITECTURE.md.
#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/passes.h"

namespace minitvm::transform {

using namespace ir;

namespace {
class VThreadInjector : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    auto* a = r.as<AttrStmtNode>();
    if (a->attr_kind != AttrKind::VirtualThread) return r;
    auto* iv = a->node.as<IterVarNode>();
    Var v(iv->var->name_hint + ".s", iv->var.dtype());
    Stmt body = substitute(a->body, VarMap{{iv->var.get(), v}});
    return ForNode::make(v, make_zero(v.dtype()), a->value, ForKind::Serial, body);
  }
};
}  // namespace

Stmt inject_virtual_thread(const Stmt& s) { return VThreadInjector().mutate(s); }

}  // namespace minitvm::transform
