#include "minitvm/te/tensor.h"

namespace minitvm::te {

using namespace ir;

static const std::vector<IterVar> kNoAxes;

const std::vector<IterVar>& Operation::axis() const {
  if (auto* c = as<ComputeOpNode>()) return c->axis;
  return kNoAxes;
}
const std::vector<IterVar>& Operation::reduce_axis() const {
  if (auto* c = as<ComputeOpNode>()) return c->reduce_axis;
  return kNoAxes;
}
Tensor Operation::output(int i) const {
  MINITVM_USER_CHECK(i >= 0 && i < num_outputs())
      << "operation " << name() << " has no output " << i;
  return Tensor::make(get()->output_shape(i), get()->output_dtype(i), *this, i);
}
std::vector<Tensor> Operation::input_tensors() const {
  return base()->input_tensors();
}

Tensor Tensor::make(std::vector<Expr> shape, DataType dtype, Operation op, int value_index) {
  auto n = make_object<TensorNode>();
  auto* m = const_cast<TensorNode*>(n.get());
  m->shape = std::move(shape);
  m->dtype = dtype;
  m->op = std::move(op);
  m->value_index = value_index;
  return Tensor(n);
}

Expr Tensor::read(const std::vector<Expr>& indices) const {
  MINITVM_USER_CHECK(indices.size() == shape().size())
      << "tensor " << name() << " has " << shape().size() << " dimensions but is indexed with "
      << indices.size() << " indices";
  std::vector<Expr> idx;
  for (auto& e : indices) {
    MINITVM_USER_CHECK(e.defined() && e.dtype().is_integral() && e.dtype().is_scalar())
        << "tensor " << name() << " indexed with a non-integer expression";
    idx.push_back(e);
  }
  return ProducerLoadNode::make(dtype(), op(), value_index(), idx);
}

std::vector<Expr> ComputeOpNode::output_shape(int) const {
  std::vector<Expr> s;
  for (auto& iv : axis) s.push_back(iv->dom.extent());
  return s;
}

std::vector<Tensor> ComputeOpNode::input_tensors() const {
  std::vector<Tensor> out;
  auto add = [&](const Ref<Object>& n) {
    if (auto* p = n.as<ProducerLoadNode>()) {
      Operation op(p->op);
      for (auto& t : out)
        if (t.op().same_as(op) && t.value_index() == p->value_index) return;
      out.push_back(op.output(p->value_index));
    }
  };
  for (auto& b : body) post_order_visit(b, add);
  return out;
}

Operation make_compute_op(std::string name, std::string tag, std::vector<IterVar> axis,
                          std::vector<Expr> body) {
  auto* n = new ComputeOpNode();
  n->name = std::move(name);
  n->tag = std::move(tag);
  n->axis = std::move(axis);
  n->body = std::move(body);
  // Reduction axes come from the (first) Reduce body.
  if (!n->body.empty()) {
    if (auto* r = n->body[0].as<ReduceNode>()) n->reduce_axis = r->axis;
  }
  for (size_t i = 1; i < n->body.size(); ++i) {
    bool is_red = n->body[i].as<ReduceNode>() != nullptr;
    MINITVM_USER_CHECK(is_red == (n->reduce_axis.size() > 0) || (!is_red && n->reduce_axis.empty()))
        << "compute " << n->name << ": either all outputs are reductions or none is";
  }
  for (auto& b : n->body) {
    // A reduction may only appear at the top of a compute body.
    bool nested = false;
    if (auto* r = b.as<ReduceNode>()) {
      for (auto& s : r->source)
        post_order_visit(s, [&](const Ref<Object>& x) { nested |= x->kind() == NodeKind::Reduce; });
    } else {
      post_order_visit(b, [&](const Ref<Object>& x) { nested |= x->kind() == NodeKind::Reduce; });
    }
    MINITVM_USER_CHECK(!nested)
        << "compute " << n->name
        << ": a reduction (te::sum/max/min/prod) must be the whole body of a compute, "
           "not part of a larger expression";
  }
  return Operation(Ref<OperationNode>(n));
}

void Dim::set(int64_t v) {
  if (v >= INT32_MIN && v <= INT32_MAX)
    expr_ = Expr(static_cast<int>(v));
  else
    expr_ = Expr(v);
}

std::vector<Expr> Shape::checked(const char* what, const std::string& name) const {
  std::vector<Expr> out;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const Dim& d = dims_[i];
    MINITVM_USER_CHECK(d.overflow().empty()) << what << " " << name << ": dimension " << i << " is "
                                             << d.overflow() << ", which does not fit int64";
    const Expr& e = d.expr();
    MINITVM_USER_CHECK(e.defined() && e.dtype().is_integral() && e.dtype().is_scalar())
        << what << " " << name << ": dimension " << i << " is not an integer"
        << (e.defined() ? " (" + e.dtype().str() + ")" : std::string());
    if (const int64_t* c = as_const_int(e))
      MINITVM_USER_CHECK(*c >= 0) << what << " " << name << ": dimension " << i << " is " << *c;
    out.push_back(e);
  }
  return out;
}

Tensor placeholder(Shape shape, DataType dtype, std::string name) {
  std::vector<Expr> dims = shape.checked("placeholder", name);
  auto* n = new PlaceholderOpNode();
  n->name = std::move(name);
  n->shape = std::move(dims);
  n->dtype = dtype;
  Operation op{Ref<OperationNode>(n)};
  return op.output(0);
}

/** The data-parallel axes of a compute: named `names[i]`, or as TVM names the variables of
 *  `lambda *i:` (i0, i1, ...) when no names are given. */
static std::vector<IterVar> make_axes(const Shape& shape, const std::string& name,
                                      const std::vector<std::string>* names = nullptr) {
  std::vector<Expr> dims = shape.checked("compute", name);
  if (names) {
    MINITVM_USER_CHECK(names->size() == dims.size())
        << "compute " << name << ": " << names->size() << " axis names for a " << dims.size()
        << "-D shape";
    for (size_t i = 0; i < names->size(); ++i) {
      MINITVM_USER_CHECK(!(*names)[i].empty())
          << "compute " << name << ": axis name " << i << " is empty";
      for (size_t j = 0; j < i; ++j)
        MINITVM_USER_CHECK((*names)[i] != (*names)[j])
            << "compute " << name << ": axes " << j << " and " << i << " are both named '"
            << (*names)[i] << "'";
    }
  }
  std::vector<IterVar> axes;
  for (size_t i = 0; i < dims.size(); ++i) {
    std::string vn = "i" + std::to_string(i);
    if (names) vn = (*names)[i];
    axes.push_back(IterVar(Range(make_const(dims[i].dtype(), int64_t{0}), dims[i]),
                           Var(vn, dims[i].dtype()), IterVarType::DataPar));
  }
  return axes;
}

static std::vector<Tensor> compute_impl(
    const Shape& shape, const std::function<std::vector<Expr>(const std::vector<Var>&)>& f,
    std::string name, std::string tag, const std::vector<std::string>* names) {
  auto axes = make_axes(shape, name, names);
  std::vector<Var> vars;
  for (auto& a : axes) vars.push_back(a->var);
  std::vector<Expr> body = f(vars);
  MINITVM_USER_CHECK(!body.empty()) << "compute " << name << " returned no value";
  for (auto& b : body)
    MINITVM_USER_CHECK(b.defined()) << "compute " << name << " returned an undefined expression";
  Operation op = make_compute_op(name, tag, axes, body);
  std::vector<Tensor> out;
  for (int i = 0; i < op.num_outputs(); ++i) out.push_back(op.output(i));
  return out;
}

std::vector<Tensor> compute_multi(Shape shape,
                                  std::function<std::vector<Expr>(const std::vector<Var>&)> f,
                                  std::string name, std::string tag) {
  return compute_impl(shape, f, std::move(name), std::move(tag), nullptr);
}

Tensor compute(Shape shape, FCompute f, std::string name, std::string tag) {
  return compute_multi(
      std::move(shape), [&](const std::vector<Var>& v) { return std::vector<Expr>{f(v)}; },
      std::move(name), std::move(tag))[0];
}

static void check_arity(const Shape& shape, size_t n, const std::string& name) {
  MINITVM_USER_CHECK(shape.size() == n)
      << "compute " << name << ": the lambda takes " << n << " index variables but the shape has "
      << shape.size() << " dimensions";
}

namespace detail {
Tensor compute_named(Shape shape, FCompute f, int arity, std::string name,
                     std::vector<std::string> axis_names, std::string tag) {
  if (arity >= 0) check_arity(shape, static_cast<size_t>(arity), name);
  return compute_impl(
      shape, [&](const std::vector<Var>& v) { return std::vector<Expr>{f(v)}; }, std::move(name),
      std::move(tag), &axis_names)[0];
}
}  // namespace detail

Tensor compute(Shape shape, std::function<Expr(Var)> f, std::string name, std::string tag) {
  check_arity(shape, 1, name);
  return compute(std::move(shape), FCompute([&](const std::vector<Var>& v) { return f(v[0]); }),
                 name, tag);
}
Tensor compute(Shape shape, std::function<Expr(Var, Var)> f, std::string name, std::string tag) {
  check_arity(shape, 2, name);
  return compute(std::move(shape),
                 FCompute([&](const std::vector<Var>& v) { return f(v[0], v[1]); }), name, tag);
}
Tensor compute(Shape shape, std::function<Expr(Var, Var, Var)> f, std::string name,
               std::string tag) {
  check_arity(shape, 3, name);
  return compute(std::move(shape),
                 FCompute([&](const std::vector<Var>& v) { return f(v[0], v[1], v[2]); }), name,
                 tag);
}
Tensor compute(Shape shape, std::function<Expr(Var, Var, Var, Var)> f, std::string name,
               std::string tag) {
  check_arity(shape, 4, name);
  return compute(std::move(shape),
                 FCompute([&](const std::vector<Var>& v) { return f(v[0], v[1], v[2], v[3]); }),
                 name, tag);
}
Tensor compute(Shape shape, std::function<Expr(Var, Var, Var, Var, Var)> f, std::string name,
               std::string tag) {
  check_arity(shape, 5, name);
  return compute(std::move(shape), FCompute([&](const std::vector<Var>& v) {
                   return f(v[0], v[1], v[2], v[3], v[4]);
                 }),
                 name, tag);
}
Tensor compute(Shape shape, std::function<Expr(Var, Var, Var, Var, Var, Var)> f, std::string name,
               std::string tag) {
  check_arity(shape, 6, name);
  return compute(std::move(shape), FCompute([&](const std::vector<Var>& v) {
                   return f(v[0], v[1], v[2], v[3], v[4], v[5]);
                 }),
                 name, tag);
}

IterVar reduce_axis(Range dom, std::string name) {
  MINITVM_USER_CHECK(dom.defined()) << "reduce_axis " << name << " needs a range";
  return IterVar(dom, Var(name, dom.extent().dtype()), IterVarType::CommReduce);
}
IterVar thread_axis(std::string tag, Range dom) {
  MINITVM_USER_CHECK(!tag.empty())
      << "thread_axis needs a tag such as blockIdx.x, threadIdx.x or vthread";
  static const char* valid[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z", "threadIdx.x",
                                "threadIdx.y", "threadIdx.z", "vthread",    "cthread"};
  bool ok = false;
  for (auto* v : valid) ok |= tag == v;
  MINITVM_USER_CHECK(ok) << "unknown thread tag '" << tag
                         << "' (expected blockIdx.x/y/z, threadIdx.x/y/z, vthread or cthread)";
  return IterVar(dom, Var(tag), IterVarType::ThreadIndex, tag);
}
IterVar thread_axis(Range dom, std::string tag) {
  return thread_axis(std::move(tag), std::move(dom));
}

Expr reduce(CommReducer combiner, Expr source, std::vector<IterVar> axis, Expr where) {
  return reduce_multi(std::move(combiner), {std::move(source)}, std::move(axis),
                      std::move(where))[0];
}
std::vector<Expr> reduce_multi(CommReducer combiner, std::vector<Expr> sources,
                               std::vector<IterVar> axis, Expr where) {
  MINITVM_USER_CHECK(!axis.empty()) << "a reduction needs at least one reduce_axis";
  for (auto& a : axis)
    MINITVM_USER_CHECK(a->iter_type == IterVarType::CommReduce)
        << "axis " << a->var->name_hint << " is not a reduce_axis (create it with te::reduce_axis)";
  MINITVM_USER_CHECK(sources.size() == combiner->lhs.size())
      << "reducer " << combiner->name << " takes " << combiner->lhs.size() << " values, got "
      << sources.size();
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].dtype() != combiner->lhs[i].dtype())
      sources[i] = cast(combiner->lhs[i].dtype(), sources[i]);
  }
  std::vector<Expr> out;
  for (size_t i = 0; i < sources.size(); ++i)
    out.push_back(ReduceNode::make(combiner, sources, axis, where, static_cast<int>(i)));
  return out;
}
Expr sum(Expr source, std::vector<IterVar> axis, Expr where) {
  return reduce(sum_reducer(source.dtype()), source, std::move(axis), std::move(where));
}
Expr max(Expr source, std::vector<IterVar> axis, Expr where) {
  return reduce(max_reducer(source.dtype()), source, std::move(axis), std::move(where));
}
Expr min(Expr source, std::vector<IterVar> axis, Expr where) {
  return reduce(min_reducer(source.dtype()), source, std::move(axis), std::move(where));
}
Expr prod(Expr source, std::vector<IterVar> axis, Expr where) {
  return reduce(prod_reducer(source.dtype()), source, std::move(axis), std::move(where));
}

CommReducer comm_reducer(
    std::function<std::vector<Expr>(const std::vector<Var>&, const std::vector<Var>&)> f,
    std::vector<Expr> identity, std::string name) {
  auto n = make_object<CommReducerNode>();
  auto* m = const_cast<CommReducerNode*>(n.get());
  for (size_t i = 0; i < identity.size(); ++i) {
    m->lhs.push_back(Var("x" + std::to_string(i), identity[i].dtype()));
    m->rhs.push_back(Var("y" + std::to_string(i), identity[i].dtype()));
  }
  m->result = f(m->lhs, m->rhs);
  MINITVM_USER_CHECK(m->result.size() == identity.size())
      << "comm_reducer " << name << ": combiner returns " << m->result.size() << " values for "
      << identity.size() << " identities";
  m->identity = std::move(identity);
  m->name = std::move(name);
  return n;
}

}  // namespace minitvm::te
