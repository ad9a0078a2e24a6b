// TVM v0.6-style text for expressions, statements and functions (see docs/ARCHITECTURE.md).
#include <iomanip>
#include <sstream>

#include "minitvm/ir/ir_util.h"

namespace minitvm::ir {
namespace {

class Printer : public IRVisitor {
 public:
  explicit Printer(std::ostream& os) : os_(os) {}

  void print(const Expr& e) {
    if (!e.defined()) {
      os_ << "(nullptr)";
      return;
    }
    visit_expr(e);
  }
  void print(const Stmt& s) {
    if (!s.defined()) return;
    visit_stmt(s);
  }
  void print_node_ref(const Ref<Object>& n) {
    if (!n.defined()) {
      os_ << "(nullptr)";
      return;
    }
    if (auto* iv = n.as<IterVarNode>()) {
      print_iter_var(iv);
    } else if (n->kind() == NodeKind::Var) {
      os_ << static_cast<const VarNode*>(n.get())->name_hint;
    } else if (auto* op = n.as<OperationNode>()) {
      os_ << op->name;
    } else if (auto* c = n.as<CommReducerNode>()) {
      print_reducer(c);
    } else {
      os_ << "<object>";
    }
  }
  void print_iter_var(const IterVarNode* iv) {
    os_ << "iter_var(" << iv->var->name_hint << ", ";
    if (iv->dom.defined()) {
      os_ << "range(min=";
      print(iv->dom.min());
      os_ << ", ext=";
      print(iv->dom.extent());
      os_ << ")";
    }
    if (!iv->thread_tag.empty()) os_ << ", " << iv->thread_tag;
    os_ << ")";
  }

  // ---- expressions ----
  void visit(const IntImmNode* op) override {
    if (op->dtype == DataType::Int(32)) {
      os_ << op->value;
    } else {
      os_ << "(" << op->dtype << ")" << op->value;
    }
  }
  void visit(const FloatImmNode* op) override {
    std::ostringstream tmp;
    tmp << op->value;
    os_ << tmp.str();
    if (op->dtype.bits() == 32)
      os_ << "f";
    else if (op->dtype.bits() == 16)
      os_ << "h";
  }
  void visit(const StringImmNode* op) override { os_ << '"' << op->value << '"'; }
  void visit(const VarNode* op) override { os_ << op->name_hint; }
  void visit(const CastNode* op) override {
    os_ << op->dtype << "(";
    print(op->value);
    os_ << ")";
  }
  void bin(const Expr& a, const char* sym, const Expr& b) {
    os_ << "(";
    print(a);
    os_ << sym;
    print(b);
    os_ << ")";
  }
  void fn2(const char* name, const Expr& a, const Expr& b) {
    os_ << name << "(";
    print(a);
    os_ << ", ";
    print(b);
    os_ << ")";
  }
  void visit(const AddNode* op) override { bin(op->a, " + ", op->b); }
  void visit(const SubNode* op) override { bin(op->a, " - ", op->b); }
  void visit(const MulNode* op) override { bin(op->a, "*", op->b); }
  void visit(const DivNode* op) override { bin(op->a, "/", op->b); }
  void visit(const ModNode* op) override { bin(op->a, " % ", op->b); }
  void visit(const FloorDivNode* op) override { fn2("floordiv", op->a, op->b); }
  void visit(const FloorModNode* op) override { fn2("floormod", op->a, op->b); }
  void visit(const MinNode* op) override { fn2("min", op->a, op->b); }
  void visit(const MaxNode* op) override { fn2("max", op->a, op->b); }
  void visit(const EQNode* op) override { bin(op->a, " == ", op->b); }
  void visit(const NENode* op) override { bin(op->a, " != ", op->b); }
  void visit(const LTNode* op) override { bin(op->a, " < ", op->b); }
  void visit(const LENode* op) override { bin(op->a, " <= ", op->b); }
  void visit(const GTNode* op) override { bin(op->a, " > ", op->b); }
  void visit(const GENode* op) override { bin(op->a, " >= ", op->b); }
  void visit(const AndNode* op) override { bin(op->a, " && ", op->b); }
  void visit(const OrNode* op) override { bin(op->a, " || ", op->b); }
  void visit(const NotNode* op) override {
    os_ << "!";
    print(op->a);
  }
  void visit(const SelectNode* op) override {
    os_ << "select(";
    print(op->condition);
    os_ << ", ";
    print(op->true_value);
    os_ << ", ";
    print(op->false_value);
    os_ << ")";
  }
  void visit(const LoadNode* op) override {
    os_ << op->buffer_var->name_hint << "[";
    print(op->index);
    os_ << "]";
    if (!is_one(op->predicate)) {
      os_ << " if ";
      print(op->predicate);
    }
  }
  void visit(const RampNode* op) override {
    os_ << "ramp(";
    print(op->base);
    os_ << ", ";
    print(op->stride);
    os_ << ", " << op->lanes << ")";
  }
  void visit(const BroadcastNode* op) override {
    os_ << "x" << op->lanes << "(";
    print(op->value);
    os_ << ")";
  }
  void visit(const LetNode* op) override {
    os_ << "(let " << op->var->name_hint << " = ";
    print(op->value);
    os_ << " in ";
    print(op->body);
    os_ << ")";
  }
  void visit(const CallNode* op) override {
    os_ << op->name << "(";
    for (size_t i = 0; i < op->args.size(); ++i) {
      if (i) os_ << ", ";
      print(op->args[i]);
    }
    os_ << ")";
  }
  template <typename T>
  void list(const std::vector<T>& v) {
    os_ << "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) os_ << ", ";
      print(v[i]);
    }
    os_ << "]";
  }
  void print_reducer(const CommReducerNode* c) {
    os_ << "comm_reducer(result=";
    list(c->result);
    os_ << ", lhs=";
    list(std::vector<Expr>(c->lhs.begin(), c->lhs.end()));
    os_ << ", rhs=";
    list(std::vector<Expr>(c->rhs.begin(), c->rhs.end()));
    os_ << ", identity_element=";
    list(c->identity);
    os_ << ")";
  }
  void visit(const ReduceNode* op) override {
    os_ << "reduce(combiner=";
    print_reducer(op->combiner.get());
    os_ << ", source=";
    list(op->source);
    os_ << ", axis=[";
    for (size_t i = 0; i < op->axis.size(); ++i) {
      if (i) os_ << ", ";
      print_iter_var(op->axis[i].get());
    }
    os_ << "], where=";
    print(op->condition);
    os_ << ", value_index=" << op->value_index << ")";
  }
  void visit(const ProducerLoadNode* op) override {
    os_ << op->op->name;
    if (op->op->num_outputs() > 1) os_ << ".v" << op->value_index;
    os_ << "(";
    for (size_t i = 0; i < op->indices.size(); ++i) {
      if (i) os_ << ", ";
      print(op->indices[i]);
    }
    os_ << ")";
  }

  // ---- statements ----
  void indent() { os_ << std::string(indent_ * 2, ' '); }
  void body_block(const Stmt& s) {
    ++indent_;
    print(s);
    --indent_;
  }
  void visit(const LetStmtNode* op) override {
    indent();
    os_ << "let " << op->var->name_hint << " = ";
    print(op->value);
    os_ << "\n";
    print(op->body);
  }
  void visit(const AttrStmtNode* op) override {
    indent();
    os_ << "// attr [";
    print_node_ref(op->node);
    os_ << "] " << attr_key_name(op->attr_kind, op->pragma_key) << " = ";
    print(op->value);
    os_ << "\n";
    print(op->body);
  }
  void visit(const AssertStmtNode* op) override {
    indent();
    os_ << "assert(";
    print(op->condition);
    os_ << ", \"" << op->message << "\")\n";
    print(op->body);
  }
  void visit(const StoreNode* op) override {
    indent();
    os_ << op->buffer_var->name_hint << "[";
    print(op->index);
    os_ << "] = ";
    print(op->value);
    if (!is_one(op->predicate)) {
      os_ << " if ";
      print(op->predicate);
    }
    os_ << "\n";
  }
  void visit(const ProvideNode* op) override {
    indent();
    os_ << op->op->name;
    if (op->op->num_outputs() > 1) os_ << ".v" << op->value_index;
    os_ << "(";
    for (size_t i = 0; i < op->args.size(); ++i) {
      if (i) os_ << ", ";
      print(op->args[i]);
    }
    os_ << ") = ";
    print(op->value);
    os_ << "\n";
  }
  void visit(const AllocateNode* op) override {
    indent();
    os_ << "// attr [" << op->buffer_var->name_hint << "] storage_scope = \""
        << storage_scope_name(op->scope) << "\"\n";
    indent();
    os_ << "allocate " << op->buffer_var->name_hint << "[" << op->dtype;
    for (auto& e : op->extents) {
      os_ << " * ";
      print(e);
    }
    os_ << "]";
    if (!is_one(op->condition)) {
      os_ << " if ";
      print(op->condition);
    }
    os_ << "\n";
    print(op->body);
  }
  void visit(const RealizeNode* op) override {
    indent();
    os_ << "realize " << op->op->name;
    if (op->op->num_outputs() > 1) os_ << ".v" << op->value_index;
    os_ << "(";
    for (size_t i = 0; i < op->bounds.size(); ++i) {
      if (i) os_ << ", ";
      os_ << "[";
      print(op->bounds[i].min());
      os_ << ", ";
      print(op->bounds[i].extent());
      os_ << "]";
    }
    os_ << ")";
    if (op->scope != StorageScope::Global) os_ << " in " << storage_scope_name(op->scope);
    os_ << " {\n";
    body_block(op->body);
    indent();
    os_ << "}\n";
  }
  void visit(const ProducerConsumerNode* op) override {
    if (!op->is_producer) {
      print(op->body);
      return;
    }
    indent();
    os_ << "produce " << op->op->name << " {\n";
    body_block(op->body);
    indent();
    os_ << "}\n";
  }
  void visit(const BlockNode* op) override {
    for (auto& s : op->stmts) print(s);
  }
  void visit(const IfThenElseNode* op) override {
    indent();
    os_ << "if (";
    print(op->condition);
    os_ << ") {\n";
    body_block(op->then_case);
    indent();
    os_ << "}";
    Stmt e = op->else_case;
    while (e.defined()) {
      if (auto* nested = e.as<IfThenElseNode>()) {
        os_ << " else if (";
        print(nested->condition);
        os_ << ") {\n";
        body_block(nested->then_case);
        indent();
        os_ << "}";
        e = nested->else_case;
      } else {
        os_ << " else {\n";
        body_block(e);
        indent();
        os_ << "}";
        break;
      }
    }
    os_ << "\n";
  }
  void visit(const EvaluateNode* op) override {
    indent();
    print(op->value);
    os_ << "\n";
  }
  void visit(const ForNode* op) override {
    indent();
    os_ << for_kind_name(op->for_kind) << " (" << op->loop_var->name_hint << ", ";
    print(op->min);
    os_ << ", ";
    print(op->extent);
    os_ << ") {\n";
    body_block(op->body);
    indent();
    os_ << "}\n";
  }

 private:
  std::ostream& os_;
  int indent_ = 0;
};
}  // namespace

std::ostream& operator<<(std::ostream& os, const Expr& e) {
  Printer(os).print(e);
  return os;
}
std::ostream& operator<<(std::ostream& os, const Stmt& s) {
  Printer(os).print(s);
  return os;
}
std::ostream& operator<<(std::ostream& os, const Range& r) {
  Printer p(os);
  os << "range(min=";
  p.print(r.min());
  os << ", ext=";
  p.print(r.extent());
  return os << ")";
}
std::ostream& operator<<(std::ostream& os, const IterVar& iv) {
  Printer(os).print_iter_var(iv.get());
  return os;
}
std::ostream& operator<<(std::ostream& os, const PrimFunc& f) {
  os << "// " << f->name << "(";
  for (size_t i = 0; i < f->params.size(); ++i) {
    if (i) os << ", ";
    auto& v = f->params[i];
    os << v->name_hint;
    auto it = f->buffer_map.find(v.get());
    if (it != f->buffer_map.end()) {
      os << ": " << it->second->dtype << "[";
      for (size_t j = 0; j < it->second->shape.size(); ++j) {
        if (j) os << ", ";
        os << it->second->shape[j];
      }
      os << "]";
    } else {
      os << ": " << v->dtype;
    }
  }
  os << ")\n";
  Printer(os).print(f->body);
  return os;
}
std::string to_string(const Expr& e) {
  std::ostringstream os;
  os << e;
  return os.str();
}
std::string to_string(const Stmt& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}
std::string to_string(const PrimFunc& f) {
  std::ostringstream os;
  os << f;
  return os.str();
}

}  // namespace minitvm::ir
