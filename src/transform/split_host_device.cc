// split_host_device: host code + one device kernel per outermost thread_extent region
// (see include/minitvm/transform/split_host_device.h).
#include "minitvm/transform/split_host_device.h"

#include <climits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "minitvm/ir/functor.h"
#include "minitvm/ir/ir_util.h"

namespace minitvm::transform {

using namespace ir;

namespace {

/** Slot of a thread tag: 0..2 grid (blockIdx.x/y/z), 3..5 block (threadIdx.x/y/z), -1 other. */
int thread_slot(const std::string& tag) {
  if (tag.size() != 10 && tag.size() != 11) return -1;
  char last = tag.back();
  if (tag.size() < 2 || tag[tag.size() - 2] != '.' || last < 'x' || last > 'z') return -1;
  std::string rank = tag.substr(0, tag.size() - 2);
  if (rank == "blockIdx") return last - 'x';
  if (rank == "threadIdx") return 3 + (last - 'x');
  return -1;
}

/** Undefined variables of a kernel region in order of first use, and its thread axes. */
class KernelScanner : public IRVisitor {
 public:
  KernelScanner(std::string kernel, std::string stage) : kernel_(std::move(kernel)) {
    stages_.push_back(std::move(stage));
  }
  std::vector<Var> uses;
  std::vector<IterVar> thread_axes;
  std::vector<int64_t> axis_extents;

 protected:
  void visit(const ProducerConsumerNode* op) override {
    if (!op->is_producer || !op->op.defined()) return IRVisitor::visit(op);
    stages_.push_back(op->op->name);
    IRVisitor::visit(op);
    stages_.pop_back();
  }
  void visit(const VarNode* op) override {
    if (defined_.count(op) || used_.count(op)) return;
    used_.insert(op);
    uses.push_back(Var(Ref<VarNode>(op)));
  }
  void visit(const AttrStmtNode* op) override {
    if (op->attr_kind == AttrKind::ThreadExtent) {
      auto* iv = op->node.as<IterVarNode>();
      MINITVM_ICHECK(iv) << "thread_extent attribute without an IterVar";
      visit_expr(op->value);
      const int64_t* c = as_const_int(op->value);
      MINITVM_USER_CHECK(c) << "the extent of thread axis '" << iv->thread_tag
                            << "' must be a constant for CUDA code generation, got " << op->value;
      // One kernel has one launch shape: every binding of a tag in it must agree (TVM rejects
      // this too), else the kernel is launched with one of the extents and the other stage's
      // threads beyond it never run (or run out of range).
      auto prev = binding_.find(iv->thread_tag);
      MINITVM_USER_CHECK(prev == binding_.end() || prev->second.first == *c)
          << "kernel " << kernel_ << ": thread tag " << iv->thread_tag << " is bound with extent "
          << prev->second.first << " in stage '" << prev->second.second << "' and with extent "
          << *c << " in stage '" << stages_.back()
          << "'; all stages of one kernel must bind a thread tag with the same extent";
      if (prev == binding_.end()) binding_[iv->thread_tag] = {*c, stages_.back()};
      if (!defined_.count(iv->var.get())) {
        defined_.insert(iv->var.get());
        thread_axes.push_back(IterVar(Ref<IterVarNode>(iv)));
        axis_extents.push_back(*c);
      }
      visit_stmt(op->body);
      return;
    }
    IRVisitor::visit(op);
  }
  void visit(const ForNode* op) override {
    visit_expr(op->min);
    visit_expr(op->extent);
    defined_.insert(op->loop_var.get());
    visit_stmt(op->body);
  }
  void visit(const LetStmtNode* op) override {
    visit_expr(op->value);
    defined_.insert(op->var.get());
    visit_stmt(op->body);
  }
  void visit(const LetNode* op) override {
    visit_expr(op->value);
    defined_.insert(op->var.get());
    visit_expr(op->body);
  }
  void visit(const AllocateNode* op) override {
    defined_.insert(op->buffer_var.get());
    for (auto& e : op->extents) visit_expr(e);
    if (op->condition.defined()) visit_expr(op->condition);
    visit_stmt(op->body);
  }

 private:
  std::unordered_set<const VarNode*> defined_, used_;
  std::string kernel_;
  std::vector<std::string> stages_;
  std::unordered_map<std::string, std::pair<int64_t, std::string>>
      binding_;  // tag -> extent, stage
};

class HostDeviceSplitter : public IRMutator {
 public:
  explicit HostDeviceSplitter(const PrimFunc& f) : func_(f) {
    for (size_t i = 0; i < f->params.size(); ++i) {
      const Var& p = f->params[i];
      param_index_[p.get()] = static_cast<int>(i);
      auto it = f->buffer_map.find(p.get());
      if (it != f->buffer_map.end()) {
        buffer_of_[p.get()] = it->second;
        const VarNode* data = it->second->data.get();
        if (data && !param_index_.count(data)) {
          param_index_[data] = static_cast<int>(i);
          buffer_of_[data] = it->second;
        }
      }
    }
  }

  std::vector<PrimFunc> kernels;
  std::vector<DeviceLaunch> launches;
  std::vector<HostTemporary> temporaries;

 protected:
  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
    if (op->attr_kind != AttrKind::ThreadExtent) return IRMutator::visit(op, self);
    return make_kernel(self);
  }

  Stmt visit(const ProducerConsumerNode* op, const Stmt& self) override {
    if (!op->is_producer || !op->op.defined()) return IRMutator::visit(op, self);
    stages_.push_back(op->op->name);
    Stmt r = IRMutator::visit(op, self);
    stages_.pop_back();
    return r;
  }

  // Statements outside every kernel never run: the CUDA build only launches kernels, so a store,
  // a loop or a condition left on the host would be dropped without a word (TVM: "Did you forget
  // to bind?").
  std::string stage_hint() const {
    return stages_.empty() ? std::string() : " (stage '" + stages_.back() + "')";
  }
  Stmt visit(const StoreNode* op, const Stmt& self) override {
    MINITVM_USER_ERROR << "function " << func_.name() << stage_hint() << ": the store to '"
                       << op->buffer_var.name()
                       << "' is outside every kernel: no enclosing axis is bound to "
                          "blockIdx/threadIdx, and a CUDA "
                       << "target runs only kernels. Did you forget to bind an axis of "
                       << (stages_.empty() ? "'" + op->buffer_var.name() + "'"
                                           : "stage '" + stages_.back() + "'")
                       << " to a thread (s[T].bind(axis, te::thread_axis(\"blockIdx.x\")))?";
    return self;
  }
  Stmt visit(const ForNode* op, const Stmt& self) override {
    MINITVM_USER_ERROR << "function " << func_.name() << stage_hint() << ": loop '"
                       << op->loop_var.name()
                       << "' is outside every kernel: no enclosing axis is bound to "
                          "blockIdx/threadIdx, and a CUDA "
                       << "target runs only kernels (host loops are not executed). Did you forget "
                          "to bind it (or an "
                       << "outer axis) to blockIdx/threadIdx?";
    return self;
  }
  Stmt visit(const IfThenElseNode* op, const Stmt& self) override {
    MINITVM_USER_ERROR
        << "function " << func_.name() << stage_hint() << ": the condition " << op->condition
        << " is outside every kernel, and a CUDA target runs only kernels (it would launch them "
        << "unconditionally). Bind the axes it depends on to blockIdx/threadIdx";
    return self;
  }

  // Only allocations outside every kernel get here (kernel regions are not traversed by the
  // mutator). Global ones become temporaries of the host function; the Allocate stays in the host
  // body, where it stands for the host's device allocation around the launches.
  Stmt visit(const AllocateNode* op, const Stmt& self) override {
    const VarNode* v = op->buffer_var.get();
    if (op->scope != StorageScope::Global) {
      misplaced_[v] = op->scope;
      return IRMutator::visit(op, self);
    }
    int64_t n = op->constant_size();
    if (n < 0) {
      std::ostringstream ext;
      for (size_t i = 0; i < op->extents.size(); ++i) ext << (i ? " * " : "") << op->extents[i];
      MINITVM_USER_CHECK(false) << "function " << func_.name() << ": global buffer '"
                                << op->buffer_var.name()
                                << "' allocated outside the kernels has the non-constant size "
                                << ext.str()
                                << "; buffers passed between kernels need constant sizes";
    }
    HostTemporary t;
    t.name = op->buffer_var.name();
    t.dtype = op->dtype;
    t.elements = n;
    param_index_[v] = static_cast<int>(func_->params.size() + temporaries.size());
    temporaries.push_back(t);
    auto* b = new BufferNode();
    b->data = op->buffer_var;
    b->dtype = op->dtype;
    b->shape = {make_const(n <= INT32_MAX ? DataType::Int(32) : DataType::Int(64), n)};
    b->name = t.name;
    buffer_of_[v] = Buffer(Ref<BufferNode>(b));
    return IRMutator::visit(op, self);
  }

 private:
  Stmt make_kernel(const Stmt& region) {
    // Kernel names must be C identifiers ("fused_nn.conv2d" -> "fused_nn_conv2d_kernel0").
    std::string name = func_.name() + "_kernel" + std::to_string(kernels.size());
    for (char& c : name)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
        c = '_';
    if (name[0] >= '0' && name[0] <= '9') name = "_" + name;
    KernelScanner scan(name, stages_.empty() ? func_.name() : stages_.back());
    scan.visit_stmt(region);

    std::vector<Var> params;
    for (const Var& v : scan.uses)
      if (v.dtype().is_handle()) params.push_back(v);
    for (const Var& v : scan.uses)
      if (!v.dtype().is_handle()) params.push_back(v);

    DeviceLaunch launch;
    launch.kernel = name;
    std::map<const VarNode*, Buffer> bmap;
    for (const Var& v : params) {
      auto it = param_index_.find(v.get());
      auto mis = misplaced_.find(v.get());
      MINITVM_USER_CHECK(mis == misplaced_.end())
          << "kernel " << name << " uses '" << v.name() << "', which is allocated in "
          << storage_scope_name(mis->second) << " memory outside any kernel of " << func_.name()
          << "; only global buffers can be shared between kernels";
      MINITVM_USER_CHECK(it != param_index_.end())
          << "kernel " << name << " uses '" << v.name() << "', which is not a parameter of "
          << func_.name() << "; values computed on the host cannot be passed to kernels";
      launch.args.push_back(it->second);
      auto b = buffer_of_.find(v.get());
      if (b != buffer_of_.end()) bmap[v.get()] = b->second;
    }
    std::array<bool, 6> seen{};
    for (size_t i = 0; i < scan.thread_axes.size(); ++i) {
      const std::string& tag = scan.thread_axes[i].thread_tag();
      int slot = thread_slot(tag);
      MINITVM_USER_CHECK(slot >= 0)
          << "kernel " << name << ": thread axis tag '" << tag
          << "' is not blockIdx.x/y/z or threadIdx.x/y/z (vthreads must be injected first)";
      int64_t ext = scan.axis_extents[i];
      MINITVM_USER_CHECK(ext > 0) << "kernel " << name << ": " << tag << " has extent " << ext;
      int64_t& dim = slot < 3 ? launch.grid[slot] : launch.block[slot - 3];
      MINITVM_USER_CHECK(!seen[slot] || dim == ext)
          << "kernel " << name << ": " << tag << " is bound with extents " << dim << " and " << ext;
      dim = ext;
      seen[slot] = true;
    }

    auto* n = new PrimFuncNode();
    n->name = name;
    n->params = params;
    n->buffer_map = std::move(bmap);
    n->body = region;
    n->thread_axes = scan.thread_axes;
    kernels.push_back(PrimFunc(Ref<PrimFuncNode>(n)));
    launches.push_back(launch);

    std::vector<Expr> call_args{StringImmNode::make(name)};
    for (const Var& v : params) call_args.push_back(v);
    for (int64_t e : scan.axis_extents) call_args.push_back(make_const(DataType::Int(32), e));
    return EvaluateNode::make(
        CallNode::make_extern(DataType::Int(32), "tvm_call_packed", call_args));
  }

  PrimFunc func_;
  std::unordered_map<const VarNode*, int> param_index_;
  std::unordered_map<const VarNode*, Buffer> buffer_of_;
  std::unordered_map<const VarNode*, StorageScope> misplaced_;
  std::vector<std::string> stages_;
};

}  // namespace

HostDeviceSplit split_host_device(const PrimFunc& f) {
  HostDeviceSplitter splitter(f);
  Stmt host_body = splitter.mutate(f->body);
  HostDeviceSplit out;
  out.host = f.with_body(host_body);
  out.kernels = std::move(splitter.kernels);
  out.launches = std::move(splitter.launches);
  out.temporaries = std::move(splitter.temporaries);
  return out;
}

}  // namespace minitvm::transform
