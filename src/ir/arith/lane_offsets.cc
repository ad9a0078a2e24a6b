// lane_offsets: vector indices whose lanes are one scalar base plus constant offsets.
#include <algorithm>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"

namespace minitvm::ir {

int64_t LaneOffsets::min_offset() const {
  return *std::min_element(offsets.begin(), offsets.end());
}
int64_t LaneOffsets::span() const {
  return *std::max_element(offsets.begin(), offsets.end()) - min_offset() + 1;
}

namespace {

const int64_t* broadcast_const(const Expr& e) {
  auto* b = e.as<BroadcastNode>();
  return b ? as_const_int(b->value) : nullptr;
}

std::optional<LaneOffsets> combine(const std::optional<LaneOffsets>& a,
                                   const std::optional<LaneOffsets>& b, int sign) {
  if (!a || !b || a->offsets.size() != b->offsets.size()) return std::nullopt;
  LaneOffsets r{sign > 0 ? a->base + b->base : a->base - b->base, a->offsets};
  for (size_t i = 0; i < r.offsets.size(); ++i) r.offsets[i] += sign * b->offsets[i];
  return r;
}

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

}  // namespace

std::optional<LaneOffsets> lane_offsets(const Expr& e) {
  DataType t = e.dtype();
  if (!t.is_vector() || !t.is_int()) return std::nullopt;
  int lanes = t.lanes();
  if (auto* r = e.as<RampNode>()) {
    const int64_t* s = as_const_int(r->stride);
    if (!s) return std::nullopt;
    LaneOffsets o{r->base, std::vector<int64_t>(lanes)};
    for (int i = 0; i < lanes; ++i) o.offsets[i] = i * *s;
    return o;
  }
  if (auto* b = e.as<BroadcastNode>()) return LaneOffsets{b->value, std::vector<int64_t>(lanes, 0)};
  if (auto* a = e.as<AddNode>()) return combine(lane_offsets(a->a), lane_offsets(a->b), 1);
  if (auto* s = e.as<SubNode>()) return combine(lane_offsets(s->a), lane_offsets(s->b), -1);
  if (auto* m = e.as<MulNode>()) {
    const int64_t* k = broadcast_const(m->b);
    Expr other = m->a;
    if (!k) {
      k = broadcast_const(m->a);
      other = m->b;
    }
    if (!k) return std::nullopt;
    auto o = lane_offsets(other);
    if (!o) return std::nullopt;
    o->base = o->base * make_const(o->base.dtype(), *k);
    for (auto& x : o->offsets) x *= *k;
    return o;
  }
  if (auto* c = e.as<CastNode>()) {
    // Index casts (int32 -> int64) of in-range indices: the offsets carry over.
    if (!c->value.dtype().is_int() || c->value.dtype().bits() > t.bits()) return std::nullopt;
    auto o = lane_offsets(c->value);
    if (!o) return std::nullopt;
    o->base = cast(t.element_of(), o->base);
    return o;
  }
  auto* fd = e.as<FloorDivNode>();
  auto* fm = e.as<FloorModNode>();
  if (fd || fm) {
    const Expr& num = fd ? fd->a : fm->a;
    const int64_t* k = broadcast_const(fd ? fd->b : fm->b);
    if (!k || *k <= 0) return std::nullopt;
    auto o = lane_offsets(num);
    if (!o) return std::nullopt;
    bool flat = std::all_of(o->offsets.begin(), o->offsets.end(), [](int64_t x) { return x == 0; });
    Expr kk = make_const(o->base.dtype(), *k);
    if (flat) return LaneOffsets{fd ? floordiv(o->base, kk) : floormod(o->base, kk), o->offsets};
    // floordiv(b + o, k) = b/k + floordiv(o, k) when b is a multiple of k.
    if (!can_prove(floormod(o->base, kk) == make_zero(o->base.dtype()))) return std::nullopt;
    for (auto& x : o->offsets) x = fd ? floor_div(x, *k) : x - floor_div(x, *k) * *k;
    return LaneOffsets{fd ? simplify(floordiv(o->base, kk)) : make_zero(o->base.dtype()),
                       o->offsets};
  }
  return std::nullopt;
}

}  // namespace minitvm::ir
