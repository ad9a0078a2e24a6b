// Division and modulo by positive constants over linear forms, and the recombination of split
// indices (floordiv(A, c)*c + floormod(A, c) -> A) inside sums.
//
// Identities used (c, d, m > 0; floor semantics unless stated):
//   floordiv(c*x + y, c) = x + floordiv(y, c)          floormod(c*x + y, c) = floormod(y, c)
//   floordiv(d*u + r, d*m) = floordiv(u, m)             floormod(d*u + r, d*m) = d*floormod(u, m) +
//   r
//       when 0 <= r < d
//   floordiv(floordiv(x, a), b) = floordiv(x, a*b)      floormod(floormod(x, a), b) = floormod(x,
//   b)
//       when a % b == 0
// The truncating forms agree with the floor forms on non-negative operands; they are rewritten only
// when every numerator involved is provably non-negative.
#include <algorithm>
#include <numeric>

#include "ir/arith/arith_internal.h"

namespace minitvm::ir::arith {

namespace {
Expr make_div(const Expr& n, int64_t c, bool is_mod, bool trunc) {
  Expr d = make_const(n.dtype(), c);
  if (is_mod) return trunc ? ModNode::make(n, d) : FloorModNode::make(n, d);
  return trunc ? DivNode::make(n, d) : FloorDivNode::make(n, d);
}

// The (numerator, constant divisor) of a floordiv/truncdiv atom.
bool match_div(const Expr& e, bool trunc, const Expr** num, int64_t* c) {
  const Expr* a = nullptr;
  const Expr* b = nullptr;
  if (trunc) {
    if (auto* d = e.as<DivNode>()) a = &d->a, b = &d->b;
  } else if (auto* d = e.as<FloorDivNode>()) {
    a = &d->a, b = &d->b;
  }
  if (!a) return false;
  auto* cv = as_const_int(*b);
  if (!cv || *cv <= 0) return false;
  *num = a;
  *c = *cv;
  return true;
}

bool match_mod(const Expr& e, bool trunc, const Expr** num, int64_t* c) {
  const Expr* a = nullptr;
  const Expr* b = nullptr;
  if (trunc) {
    if (auto* d = e.as<ModNode>()) a = &d->a, b = &d->b;
  } else if (auto* d = e.as<FloorModNode>()) {
    a = &d->a, b = &d->b;
  }
  if (!a) return false;
  auto* cv = as_const_int(*b);
  if (!cv || *cv <= 0) return false;
  *num = a;
  *c = *cv;
  return true;
}
}  // namespace

Expr Simplifier::div_by_const(const Expr& num, int64_t c, bool is_mod, bool trunc) {
  DataType t = num.dtype();
  if (c == 1) return is_mod ? make_zero(t) : num;
  if (auto* v = as_const_int(num)) {
    if (is_mod) return make_const(t, trunc ? *v % c : floormod_c(*v, c));
    return make_const(t, trunc ? *v / c : floordiv_c(*v, c));
  }
  if (!is_linear_type(t)) return make_div(num, c, is_mod, trunc);
  auto r = div_linear(to_linear(num), c, is_mod, trunc, 0);
  return r ? *r : make_div(num, c, is_mod, trunc);
}

std::optional<Expr> Simplifier::div_linear(const LinearForm& f, int64_t c, bool is_mod, bool trunc,
                                           int depth) {
  if (depth > 6) return std::nullopt;
  DataType t = f.dtype;
  ConstBound nb = bound(from_linear(f));
  if (trunc && nb.lo < 0) return std::nullopt;

  // 1. The numerator stays within one period.
  if (nb.lo != kNegInf && nb.hi != kPosInf) {
    int64_t q0 = floordiv_c(nb.lo, c), q1 = floordiv_c(nb.hi, c);
    if (q0 == q1) {
      if (!is_mod) return make_const(t, q0);
      LinearForm g = f;
      g.base -= q0 * c;
      return normalize(std::move(g));
    }
  }

  // 2. Pull out the terms whose coefficients are multiples of c.
  LinearForm out, rest;
  out.dtype = rest.dtype = t;
  for (auto& tm : f.terms) {
    if (tm.coeff % c == 0)
      out.add(tm.atom, tm.coeff / c);
    else
      rest.add(tm.atom, tm.coeff);
  }
  rest.base = is_mod ? floormod_c(f.base, c) : f.base;
  if (!out.terms.empty() || rest.base != f.base) {
    if (trunc && bound(from_linear(rest)).lo < 0) return std::nullopt;
    auto r = div_linear(rest, c, is_mod, trunc, depth + 1);
    Expr sub = r ? *r : make_div(from_linear(rest), c, is_mod, trunc);
    if (is_mod) return sub;
    out.add(to_linear(sub), 1);
    return normalize(std::move(out));
  }

  // 3. A common factor d of c and some coefficients, the other terms staying within [0, d).
  std::vector<int64_t> cands;
  for (auto& tm : f.terms) {
    int64_t g = std::gcd(tm.coeff < 0 ? -tm.coeff : tm.coeff, c);
    if (g > 1 && g < c && std::find(cands.begin(), cands.end(), g) == cands.end())
      cands.push_back(g);
  }
  std::sort(cands.rbegin(), cands.rend());
  for (int64_t g : cands) {
    LinearForm u, r;
    u.dtype = r.dtype = t;
    for (auto& tm : f.terms) {
      if (tm.coeff % g == 0)
        u.add(tm.atom, tm.coeff / g);
      else
        r.add(tm.atom, tm.coeff);
    }
    u.base = floordiv_c(f.base, g);
    r.base = floormod_c(f.base, g);
    ConstBound rb = bound(from_linear(r));
    if (rb.lo < 0 || rb.hi >= g) continue;
    auto sub = div_linear(u, c / g, is_mod, trunc, depth + 1);
    Expr s = sub ? *sub : make_div(from_linear(u), c / g, is_mod, trunc);
    if (!is_mod) return s;
    LinearForm res;
    res.dtype = t;
    res.add(to_linear(s), g);
    res.add(r, 1);
    return normalize(std::move(res));
  }

  // 4. Nested divisions of a single atom.
  if (f.terms.size() == 1 && f.base == 0 && f.terms[0].coeff == 1) {
    const Expr& a = f.terms[0].atom;
    const Expr* inner;
    int64_t ac;
    if (!is_mod && match_div(a, trunc, &inner, &ac)) {
      int64_t prod;
      if (!__builtin_mul_overflow(ac, c, &prod)) return div_by_const(*inner, prod, false, trunc);
    }
    if (is_mod && match_mod(a, trunc, &inner, &ac) && ac % c == 0)
      return div_by_const(*inner, c, true, trunc);
  }
  return std::nullopt;
}

bool Simplifier::recombine_once(LinearForm& f) {
  for (size_t i = 0; i < f.terms.size(); ++i) {
    Expr atom = f.terms[i].atom;
    int64_t coeff = f.terms[i].coeff;
    for (bool trunc : {false, true}) {
      const Expr* a;
      int64_t c, m = 0;
      bool wrapped = false;  // floormod(floordiv(A, c), m)
      if (!match_div(atom, trunc, &a, &c)) {
        const Expr* inner;
        if (!match_mod(atom, trunc, &inner, &m) || !match_div(*inner, trunc, &a, &c)) continue;
        wrapped = true;
      }
      if (c <= 1 || coeff % c != 0) continue;
      int64_t k = coeff / c;
      Expr rem = div_by_const(*a, c, true, trunc);
      for (size_t j = 0; j < f.terms.size(); ++j) {
        if (j == i || f.terms[j].coeff != k || !structural_equal(f.terms[j].atom, rem)) continue;
        Expr whole = wrapped ? div_by_const(*a, c * m, true, trunc) : *a;
        f.terms.erase(f.terms.begin() + static_cast<std::ptrdiff_t>(std::max(i, j)));
        f.terms.erase(f.terms.begin() + static_cast<std::ptrdiff_t>(std::min(i, j)));
        f.add(to_linear(whole), k);
        return true;
      }
    }
  }
  return false;
}

}  // namespace minitvm::ir::arith
