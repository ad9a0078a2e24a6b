// Hoist allocations inside a GPU kernel to the top of its outermost thread_extent attribute, where
// CUDA needs __shared__ and local arrays declared (TVM's StorageRewrite placement, without reuse).
#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/passes.h"

namespace minitvm::transform {

using namespace ir;

namespace {
class AllocCollector : public IRMutator {
 public:
  std::vector<const AllocateNode*> allocs;
  std::vector<Stmt> keep;  // holds the nodes alive
  using IRMutator::mutate;

 protected:
  Stmt visit(const AllocateNode* op, const Stmt& self) override {
    keep.push_back(self);
    allocs.push_back(op);
    return mutate(op->body);
  }
};

class KernelHoister : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
    if (op->attr_kind != AttrKind::ThreadExtent && op->attr_kind != AttrKind::VirtualThread)
      return IRMutator::visit(op, self);
    // Outermost thread attribute of a kernel: hoist everything below it.
    AllocCollector c;
    Stmt body = c.mutate(op->body);
    if (c.allocs.empty()) return self;
    for (auto it = c.allocs.rbegin(); it != c.allocs.rend(); ++it) {
      auto* a = *it;
      body = AllocateNode::make(a->buffer_var, a->dtype, a->extents, a->scope, a->condition, body);
    }
    return AttrStmtNode::make(op->node, op->attr_kind, op->value, body, op->pragma_key);
  }
};
}  // namespace

Stmt storage_rewrite(const Stmt& s) {
  return KernelHoister().mutate(s);
}

}  // namespace minitvm::transform
