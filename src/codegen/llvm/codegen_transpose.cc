// A serial loop that copies a small matrix transposed, emitted as dense loads, a shuffle network
// and dense stores instead of one gather per iteration.
//
// The layout transforms between NCHW and NCHW[b]c (unpacking a blocked activation for a kernel that
// wants NCHW, packing it back) are tiles of b channels x a few columns: their schedules vectorize
// the contiguous side and loop over the other, so every iteration reads its vector with a lane
// stride of b (or of H * W): a gather. On Zen 4 a 224-channel 56x56 unpack took 166 us per call
// that way (ResNeXt-50 spent 6 % of its time in such transforms, ShuffleNetV2 12 %). Read as rows
// and transposed in registers, the same tile costs a few shuffles per vector: 57 us.
#include <bit>

#include "codegen/llvm/codegen_llvm.h"
#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"

namespace minitvm::codegen {

using namespace ir;

namespace {
constexpr int kMaxSide = 16;  // rows and columns of the tiles taken (one 512-bit vector of floats)
}  // namespace

// The pattern (after vectorization):
//   for (i, 0, N) Y[dense(f(i), M lanes)] = X[g + i + S * lane]   2 <= N, M <= 16, S >= N, S > 4
// i.e. iteration i stores column i of the M x N matrix whose row m is X[g + S*m .. g + S*m + N-1]
// (contiguous, and every element of it is read by the loop). Emitted as M loads of N elements, a
// log2(P)-stage network of two-input shuffles that transposes the P x P tile (P the power of two
// that holds both sides; lanes past N and rows past M are poison and never reach a stored lane), and
// the N stores.
bool CodeGenLLVM::emit_transposed_copy(const ForNode* op) {
  const int64_t* ext = as_const_int(op->extent);
  if (!ext || !is_zero(op->min) || *ext < 2 || *ext > kMaxSide) return false;
  const int N = static_cast<int>(*ext);
  const auto* st = op->body.as<StoreNode>();
  if (!st || !(!st->predicate.defined() || is_one(st->predicate))) return false;
  const auto* ld = st->value.as<LoadNode>();
  if (!ld || !(!ld->predicate.defined() || is_one(ld->predicate))) return false;
  if (ld->buffer_var.get() == st->buffer_var.get() || load_mask_ || nontemporal_depth_ > 0)
    return false;
  const DataType t = ld->dtype;
  const int M = t.lanes();
  if (M < 2 || M > kMaxSide || t.bits() != 32 || t.is_bool()) return false;
  // Temporaries keep plain per-iteration accesses, which LLVM promotes to registers (as
  // padded_lanes leaves them).
  if (allocated_.count(ld->buffer_var.get()) || allocated_.count(st->buffer_var.get()))
    return false;
  auto lo = lane_offsets(ld->index);
  auto so = lane_offsets(st->index);
  if (!lo || !so) return false;
  // (Strides up to 4 are one dense load and a shuffle already: emit_span_load.)
  const int64_t S = lo->offsets[1] - lo->offsets[0];
  if (S < N || S <= 4) return false;
  for (int m = 0; m < M; ++m)
    if (lo->offsets[m] != lo->offsets[0] + m * S || so->offsets[m] != so->offsets[0] + m)
      return false;
  // The load's first lane advances by one element per iteration.
  const Var& i = op->loop_var;
  const Expr first = lo->base + make_const(lo->base.dtype(), lo->offsets[0]);
  const Expr step = simplify(substitute(first, {{i.get(), i + make_const(i.dtype(), 1)}}) - first);
  if (const int64_t* s = as_const_int(step); !s || *s != 1) return false;

  const DataType elem = t.element_of();
  llvm::Type* et = storage_type(elem);
  const llvm::Align align(elem.bytes());
  const int P = static_cast<int>(std::bit_ceil(static_cast<unsigned>(std::max(N, M))));
  auto* pt = llvm::FixedVectorType::get(et, static_cast<unsigned>(P));
  llvm::Value* poison = llvm::PoisonValue::get(pt);

  // Row m: X[g + S*m .. + N-1], widened to P lanes.
  const Expr g = simplify(substitute(first, {{i.get(), make_const(i.dtype(), 0)}}));
  llvm::Value* src = buffer_ptr(ld->buffer_var);
  std::vector<llvm::Value*> rows(P, poison);
  std::vector<int> widen(P);
  for (int k = 0; k < P; ++k) widen[k] = k < N ? k : -1;
  for (int m = 0; m < M; ++m) {
    llvm::Value* addr =
        element_address(src, elem, simplify(g + make_const(g.dtype(), int64_t{m} * S)));
    llvm::Value* row = builder_->CreateAlignedLoad(
        llvm::FixedVectorType::get(et, static_cast<unsigned>(N)), addr, align);
    rows[m] = N == P ? row : builder_->CreateShuffleVector(row, widen);
  }
  // Stage b swaps the off-diagonal b x b blocks of every 2b x 2b block: after the stages for
  // b = P/2 .. 1, vector k holds column k.
  for (int b = P / 2; b >= 1; b /= 2) {
    std::vector<int> low(P), high(P);
    for (int c = 0; c < P; ++c) {
      const int block = c / (2 * b) * (2 * b), pos = c % (2 * b);
      low[c] = pos < b ? block + pos : P + block + pos - b;
      high[c] = pos < b ? block + b + pos : P + block + pos;
    }
    for (int j = 0; j < P; ++j) {
      if (j % (2 * b) >= b) continue;
      llvm::Value* a = rows[j];
      llvm::Value* c = rows[j + b];
      rows[j] = builder_->CreateShuffleVector(a, c, low);
      rows[j + b] = builder_->CreateShuffleVector(a, c, high);
    }
  }
  // Column k to Y[f(k) ..], as emit_store writes a dense vector.
  llvm::Value* dst = buffer_ptr(st->buffer_var);
  std::vector<int> narrow(M);
  for (int m = 0; m < M; ++m) narrow[m] = m;
  const Expr f = so->base + make_const(so->base.dtype(), so->offsets[0]);
  for (int k = 0; k < N; ++k) {
    ScopedBind bind(this, i.get(), const_int(i.dtype(), k));
    llvm::Value* column = M == P ? rows[k] : builder_->CreateShuffleVector(rows[k], narrow);
    llvm::Value* addr = element_address(dst, elem, f);
    if (int p = padded_lanes(t, st->buffer_var); p > 0) {
      std::vector<int> pad(p);
      std::vector<llvm::Constant*> on(p);
      for (int q = 0; q < p; ++q) {
        pad[q] = q < M ? q : -1;
        on[q] = builder_->getInt1(q < M);
      }
      builder_->CreateMaskedStore(builder_->CreateShuffleVector(column, pad), addr, align,
                                  llvm::ConstantVector::get(on));
    } else {
      builder_->CreateAlignedStore(column, addr, align);
    }
  }
  return true;
}

}  // namespace minitvm::codegen
