// Helpers of the C-like printer: identifier allocation, lane extraction of vector expressions,
// and the divisibility analysis used to decide whether a vector access is aligned.
#include <numeric>

#include "minitvm/codegen/codegen_c.h"

namespace minitvm::codegen {

using namespace ir;

// ---- names -------------------------------------------------------------------------------------
namespace {
const std::unordered_set<std::string>& reserved_words() {
  static const std::unordered_set<std::string> words = {
      // C/C++ keywords that can plausibly collide with tensor or axis names
      "auto", "bool", "break", "case", "char", "const", "continue", "default", "delete", "do",
      "double", "else", "enum", "extern", "false", "float", "for", "goto", "if", "inline", "int",
      "long", "new", "operator", "private", "public", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "template", "this", "true", "typedef",
      "union", "unsigned", "void", "volatile", "while", "class", "namespace", "using", "half",
      // CUDA built-ins and functions the printed code calls
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "min", "max", "exp", "log",
      "sqrt", "pow", "floor", "ceil", "isnan", "isinf", "abs", "fabs", "round", "trunc", "tanh",
      "erf", "main", "float2", "float4", "int2", "int4", "dim3"};
  return words;
}
}  // namespace

std::string c_identifier(const std::string& hint) {
  std::string s;
  s.reserve(hint.size() + 1);
  for (char c : hint) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    s.push_back(ok ? c : '_');
  }
  if (s.empty()) s = "v";
  if (s[0] >= '0' && s[0] <= '9') s = "_" + s;
  // Identifiers starting with "__" are reserved for the implementation (and the emulator).
  while (s.size() >= 2 && s[0] == '_' && s[1] == '_') s.erase(0, 1);
  return s;
}

std::string NameAllocator::fresh(const std::string& hint) {
  std::string base = c_identifier(hint);
  if (reserved_words().count(base)) base += "_";
  if (!taken_.count(base)) {
    taken_.insert(base);
    return base;
  }
  int& k = next_suffix_[base];
  for (;;) {
    ++k;
    std::string cand = base + std::to_string(k);
    if (!taken_.count(cand)) {
      taken_.insert(cand);
      return cand;
    }
  }
}

void NameAllocator::reserve(const std::string& name) {
  taken_.insert(name);
}

void NameAllocator::clear() {
  taken_.clear();
  next_suffix_.clear();
}

// ---- lanes -------------------------------------------------------------------------------------
namespace {
template <NodeKind K>
Expr lane_of_binary(const ExprNode* n, int lane) {
  auto* op = static_cast<const BinaryNode<K>*>(n);
  return BinaryNode<K>::make(extract_lane(op->a, lane), extract_lane(op->b, lane));
}
}  // namespace

Expr extract_lane(const Expr& e, int lane) {
  if (e.dtype().is_scalar()) return e;
  switch (e->kind()) {
    case NodeKind::Ramp: {
      auto* r = e.as<RampNode>();
      return r->base + r->stride * make_const(r->stride.dtype(), int64_t{lane});
    }
    case NodeKind::Broadcast:
      return e.as<BroadcastNode>()->value;
    case NodeKind::Cast: {
      auto* c = e.as<CastNode>();
      return CastNode::make(c->dtype.element_of(), extract_lane(c->value, lane));
    }
    case NodeKind::Not:
      return NotNode::make(extract_lane(e.as<NotNode>()->a, lane));
    case NodeKind::Select: {
      auto* s = e.as<SelectNode>();
      return SelectNode::make(extract_lane(s->condition, lane), extract_lane(s->true_value, lane),
                              extract_lane(s->false_value, lane));
    }
    case NodeKind::Load: {
      auto* l = e.as<LoadNode>();
      return LoadNode::make(l->dtype.element_of(), l->buffer_var, extract_lane(l->index, lane),
                            extract_lane(l->predicate, lane));
    }
    case NodeKind::Call: {
      auto* c = e.as<CallNode>();
      std::vector<Expr> args;
      for (auto& a : c->args) args.push_back(extract_lane(a, lane));
      return make_object<CallNode>(c->dtype.element_of(), c->op, c->name, std::move(args));
    }
    case NodeKind::Let: {
      auto* l = e.as<LetNode>();
      MINITVM_ICHECK(l->value.dtype().is_scalar()) << "vector-typed let variable in device code";
      return LetNode::make(l->var, l->value, extract_lane(l->body, lane));
    }
#define MINITVM_LANE_BINARY(N) \
  case NodeKind::N:            \
    return lane_of_binary<NodeKind::N>(e.get(), lane);
      MINITVM_FOR_EACH_BINARY(MINITVM_LANE_BINARY)
#undef MINITVM_LANE_BINARY
    default:
      break;
  }
  MINITVM_INTERNAL_ERROR << "cannot split vector expression of type " << e.dtype() << " into lanes";
  return e;
}

// ---- divisibility ------------------------------------------------------------------------------
namespace {
/** e ≡ rem (mod coeff) for every value of its variables; coeff == 0 means e == rem exactly. */
struct Congruence {
  int64_t coeff;
  int64_t rem;
};

int64_t gcd64(int64_t a, int64_t b) {
  return std::gcd(a < 0 ? -a : a, b < 0 ? -b : b);
}

Congruence normalize(Congruence c) {
  if (c.coeff != 0) {
    c.rem %= c.coeff;
    if (c.rem < 0) c.rem += c.coeff;
  }
  return c;
}

Congruence congruence(const Expr& e) {
  if (auto* i = e.as<IntImmNode>()) return {0, i->value};
  if (auto* a = e.as<AddNode>()) {
    Congruence x = congruence(a->a), y = congruence(a->b);
    return normalize({gcd64(x.coeff, y.coeff), x.rem + y.rem});
  }
  if (auto* s = e.as<SubNode>()) {
    Congruence x = congruence(s->a), y = congruence(s->b);
    return normalize({gcd64(x.coeff, y.coeff), x.rem - y.rem});
  }
  if (auto* m = e.as<MulNode>()) {
    Congruence x = congruence(m->a), y = congruence(m->b);
    // (cx*p + rx)(cy*q + ry) = cx*cy*pq + cx*ry*p + cy*rx*q + rx*ry
    int64_t c = gcd64(gcd64(x.coeff * y.coeff, x.coeff * y.rem), y.coeff * x.rem);
    return normalize({c, x.rem * y.rem});
  }
  if (auto* c = e.as<CastNode>()) {
    if (c->dtype.is_integral() && c->value.dtype().is_integral() &&
        c->dtype.bits() >= c->value.dtype().bits())
      return congruence(c->value);
  }
  return {1, 0};
}
}  // namespace

bool is_multiple_of(const Expr& base, int64_t lanes) {
  if (!base.dtype().is_integral()) return false;
  Congruence c = congruence(base);
  if (c.coeff == 0) return c.rem % lanes == 0;
  return c.coeff % lanes == 0 && c.rem % lanes == 0;
}

}  // namespace minitvm::codegen
