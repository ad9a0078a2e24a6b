// alter_op_layout: TVM's AlterOpLayout for x86 (conv2d -> conv2d_NCHWc) with the layout
// propagation of its ConvertLayout/InferCorrectLayout rules, restricted to what CNNs need, and for
// cuda (winograd convs take a weight transformed at build time).
// Contract: transform.h.
#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "minitvm/relay/transform.h"
#include "relay/layout.h"
#include "relay/lower_ops.h"
#include "relay/transform/rewrite.h"

namespace minitvm::relay::transform {

namespace {

using Shape = std::vector<int64_t>;

std::string nchw_b(int64_t b) {
  return detail::Layout::blocked("NCHW", 'C', b);
}

// One value of the original graph in the new one: its NCHW form and/or its NCHW[block]c form.
// The blocked form may carry more channels than the value (`channels`, a multiple of the block):
// ORT's NCHWc padding of layers whose channel count has no vector-sized block (ShuffleNet's 58 and
// 116, SqueezeNet's 1000 classes): those channels are zero after the convolution that makes them
// (zero weights and bias), stay finite through the element-wise ops and pools that carry them,
// meet zero weights in the next convolution, and are cut off where the value leaves the blocked
// layout.
struct Val {
  Expr nchw;
  Expr blocked;
  int64_t block = 0;
  int64_t channels = 0;  // of `blocked`
};

int64_t channels_of(const Expr& e) {
  return e->types[0].shape[1];
}

// x (N, C, ...) with zeros appended along axis 1 up to c channels.
Expr pad_channels(const Expr& x, int64_t c) {
  const int64_t have = x->types[0].shape[1];
  if (c == have) return x;
  std::vector<std::pair<int64_t, int64_t>> pw(x->types[0].shape.size(), {0, 0});
  pw[1] = {0, c - have};
  return nn::pad(x, pw, 0.0);
}

// A weight (O, I, kh, kw) with zero output channels appended up to o.
Expr pad_channels_dim0(const Expr& w, int64_t o) {
  return nn::pad(w, {{0, o - w->types[0].shape[0]}, {0, 0}, {0, 0}, {0, 0}}, 0.0);
}

bool is_4d_float(const Expr& e) {
  return !e->tuple_typed && e->types[0].shape.size() == 4 &&
         e->types[0].dtype == DataType::Float(32);
}

class Alter {
 public:
  explicit Alter(const AlterLayoutOptions& opt) : opt_(opt) {}

  Function run(const Function& f) {
    find_grouped_inputs(f.body);
    for (const Expr& e : post_order(f.body)) vals_[e.get()] = visit(e);
    Expr body = nchw(f.body);
    if (body == f.body) return f;
    return Function(f.params, body);
  }

 private:
  Val& val(const Expr& e) { return vals_.at(e.get()); }

  // The NCHW form of an original value (one layout_transform per blocked value, made on first
  // use; the padding channels cut off).
  Expr nchw(const Expr& e) {
    Val& v = val(e);
    if (!v.nchw) {
      v.nchw = layout_transform(v.blocked, nchw_b(v.block), "NCHW");
      if (v.channels != channels_of(e))
        v.nchw = tuple_get_item(split_at(v.nchw, {channels_of(e)}, 1), 0);
    }
    return v.nchw;
  }

  // The NCHW[b]c form of an original 4-D value with c channels (its own, or more: zero-padded);
  // cached per (block, channels).
  Expr blocked(const Expr& e, int64_t b, int64_t c = 0) {
    if (c == 0) c = channels_of(e);
    Val& v = val(e);
    if (v.blocked && v.block == b && v.channels == c) return v.blocked;
    auto key = std::make_tuple(e.get(), b, c);
    auto it = reblocked_.find(key);
    if (it != reblocked_.end()) return it->second;
    Expr r = v.blocked && v.channels == c
                 ? layout_transform(v.blocked, nchw_b(v.block), nchw_b(b))
                 : layout_transform(pad_channels(nchw(e), c), "NCHW", nchw_b(b));
    reblocked_[key] = r;
    return r;
  }

  bool is_blocked(const Expr& e) const { return vals_.at(e.get()).blocked != nullptr; }
  int64_t block_of(const Expr& e) const { return vals_.at(e.get()).block; }
  // The channels of e's blocked form (its own channel count when it is not padded).
  int64_t blocked_channels(const Expr& e) const { return vals_.at(e.get()).channels; }

  // An operand of a broadcast op whose output is NCHW (C channels) in NCHW[b]c: blocked values and
  // (N?, C, H?, W?) operands are transformed, operands constant along C reshaped to 5-D with a unit
  // block; nullptr when the operand does not broadcast along NCHW's axes that way.
  // With cp > C the blocked operand carries cp channels, the padding ones zero.
  Expr broadcast_operand(const Expr& e, int64_t C, int64_t b, int64_t cp) {
    if (e->tuple_typed) return nullptr;
    const Shape& s = e->types[0].shape;
    // A blocked operand with the output's channels is re-blocked; one with a single channel (a
    // spatial attention map) broadcasts as a unit block from its NCHW form below.
    if (is_blocked(e) && s.size() == 4 && s[1] == C) return blocked(e, b, cp);
    if (s.size() > 4) return nullptr;
    Shape s4(4 - s.size(), 1);
    s4.insert(s4.end(), s.begin(), s.end());
    Expr x = nchw(e);
    if (s.size() != 4) x = reshape(x, s4);
    if (s4[1] == C && C > 1) return layout_transform(pad_channels(x, cp), "NCHW", nchw_b(b));
    if (s4[1] != 1) return nullptr;
    return reshape(x, {s4[0], 1, s4[2], s4[3], 1});
  }

  // nn.dense(x, W) with many rows -> nn.contrib_dense_pack(x, transpose(reshape(W, (N/b, b, K)),
  // (0, 2, 1))).
  Val dense(const Expr& e) {
    const Shape& xs = e->args[0]->types[0].shape;
    const Shape& ws = e->args[1]->types[0].shape;
    if (e->types[0].dtype != DataType::Float(32) || xs.size() != 2 || ws.size() != 2 ||
        xs[0] <= opt_.dense_pack_min_rows)
      return keep(e);
    int64_t b = opt_.dense_pack_block;
    for (int halve = 0; halve < 2 && b > 1 && ws[0] % b != 0; ++halve) b /= 2;
    if (b < 1 || ws[0] % b != 0) return keep(e);
    Expr w = transpose(reshape(nchw(e->args[1]), {ws[0] / b, b, ws[1]}), {0, 2, 1});
    return {call("nn.contrib_dense_pack", {nchw(e->args[0]), w}, Json::object()), nullptr, 0, 0};
  }

  // mean(x, axis=[2, 3]) of a blocked value (torch.onnx's ReduceMean for adaptive_avg_pool2d(1) and
  // x.mean([2, 3]); squeeze-and-excitation blocks have one per block) -> a blocked
  // global_avg_pool2d, so the value is not taken back to NCHW to be averaged (EfficientNet-B3's 27
  // means and their layout transforms were 15 % of its time). Without keepdims the (N, C) result
  // comes from the pooled blocked value's NCHW form.
  Val spatial_mean(const Expr& e) {
    const Expr& x = e->args[0];
    if (e->tuple_typed || x->tuple_typed || !is_4d_float(x) || !is_blocked(x)) return keep(e);
    const Json& ax = e->attrs.at("axis");
    if (ax.is_null() || e->attrs.value("exclude", false)) return keep(e);
    std::vector<int64_t> axes;
    for (auto& a : ax)
      axes.push_back(a.get<int64_t>() < 0 ? a.get<int64_t>() + 4 : a.get<int64_t>());
    std::sort(axes.begin(), axes.end());
    if (axes != std::vector<int64_t>{2, 3}) return keep(e);
    const Val& a = val(x);
    Expr pooled = call("nn.global_avg_pool2d", {a.blocked}, {{"layout", nchw_b(a.block)}});
    if (e->attrs.value("keepdims", false)) return made(pooled, a.block, a.channels);
    const int64_t N = x->types[0].shape[0], C = channels_of(x);
    Expr flat = layout_transform(pooled, nchw_b(a.block), "NCHW");
    if (a.channels != C) flat = tuple_get_item(split_at(flat, {C}, 1), 0);
    return {reshape(flat, {N, C}), nullptr, 0, 0};
  }

  Val keep(const Expr& e) {
    if (e->kind == ExprKind::Var || e->kind == ExprKind::Constant) return {e, nullptr, 0, 0};
    std::vector<Expr> args;
    for (auto& a : e->args) args.push_back(nchw(a));
    return {detail::with_args(e, args), nullptr, 0, 0};
  }
  static Val made(Expr blocked, int64_t b, int64_t c) {
    return {nullptr, std::move(blocked), b, c};
  }

  Val visit(const Expr& e) {
    if (e->kind != ExprKind::Call) return keep(e);
    const std::string& op = e->name;
    if (op == "nn.conv2d") return conv(e);
    if (op == "nn.dense" && opt_.dense_pack_block > 0) return dense(e);
    if (op == "mean") return spatial_mean(e);
    if (e->tuple_typed || !is_4d_float(e)) return keep(e);
    const int64_t C = e->types[0].shape[1];
    static const char* unary[] = {"nn.relu", "clip", "sigmoid",      "sqrt", "negative",
                                  "tanh",    "exp",  "log",          "erf",  "abs",
                                  "floor",   "ceil", "nn.leaky_relu"};
    // Each keeps finite padding channels finite (sigmoid(0) = 0.5, exp(0) = 1) but sqrt and log,
    // which could make a NaN or -inf of a negative or zero one (padding that went through sigmoid
    // and negative) that zero weights do not cancel: those take the value's own channels.
    if (std::find(std::begin(unary), std::end(unary), op) != std::end(unary)) {
      if (!is_blocked(e->args[0])) return keep(e);
      const Val& a = val(e->args[0]);
      if ((op == "sqrt" || op == "log") && a.channels != channels_of(e->args[0])) return keep(e);
      return made(call(op, {a.blocked}, e->attrs), a.block, a.channels);
    }
    if (op == "add" || op == "subtract" || op == "multiply" || op == "divide" || op == "maximum" ||
        op == "minimum" || op == "nn.bias_add") {
      std::vector<Expr> in = e->args;
      int64_t b = 0, cp = C;  // the block and channels of an operand with the output's shape
      for (auto& a : in)
        if (!b && is_blocked(a) && a->types[0].shape == e->types[0].shape) {
          b = block_of(a);
          cp = blocked_channels(a);
        }
      // A divisor's padding channels would be zero: a division by a value along the channels
      // keeps the value's own channels (one by a scalar or per-pixel value keeps the padding).
      if (op == "divide") {
        const Shape& ds = in[1]->tuple_typed ? Shape{} : in[1]->types[0].shape;
        if (ds.size() >= 3 && ds[ds.size() - 3] != 1) cp = C;
      }
      if (!b || cp % b) return keep(e);
      std::vector<Expr> args;
      if (op == "nn.bias_add") {
        if (e->attrs.at("axis").get<int64_t>() != 1 || in[1]->types[0].shape.size() != 1)
          return keep(e);
        Expr data = broadcast_operand(in[0], C, b, cp);
        Expr bias = layout_transform(pad_channels(reshape(nchw(in[1]), {1, C, 1, 1}), cp), "NCHW",
                                     nchw_b(b));
        if (!data) return keep(e);
        return made(add(data, bias), b, cp);
      }
      for (auto& a : in) {
        Expr x = broadcast_operand(a, C, b, cp);
        if (!x) return keep(e);
        args.push_back(x);
      }
      return made(call(op, args, e->attrs), b, cp);
    }
    if (op == "nn.max_pool2d" || op == "nn.avg_pool2d" || op == "nn.global_avg_pool2d") {
      if (!is_blocked(e->args[0])) return keep(e);
      const Val& a = val(e->args[0]);
      Json at = e->attrs;
      at["layout"] = nchw_b(a.block);
      return made(call(op, {a.blocked}, at), a.block, a.channels);
    }
    if (op == "concatenate" && e->attrs.at("axis").get<int64_t>() == 1) {
      // The first blocked input's block, else the largest vector multiple of it that divides
      // every input's channels: DenseNet-161's concats join a 32-blocked 384-channel transition
      // output with 16-blocked 48-channel layers, and join on 16-blocks (the wider input
      // re-blocked once) instead of in NCHW.
      int64_t b = 0;
      for (auto& a : e->args)
        if (!b && is_blocked(a)) b = block_of(a);
      if (!b) return keep(e);
      const int64_t first = b;
      for (auto& a : e->args) {
        if (a->tuple_typed || !is_4d_float(a)) return keep(e);
        b = std::gcd(b, a->types[0].shape[1]);
      }
      if (b != first && b % std::max<int64_t>(opt_.depthwise_block, 1) != 0) return keep(e);
      std::vector<Expr> args;
      for (auto& a : e->args) args.push_back(blocked(a, b));
      return made(call(op, args, e->attrs), b, C);
    }
    return keep(e);
  }

  // Fallback blocks of a direct conv changed so that no layout_transform goes between it and its
  // neighbours (ONNX Runtime keeps one block, a vector, through the whole network) where the conv
  // does little work per output (a reduction of at most 256 products), so that re-blocking its
  // input or output would cost a tenth of it or more: the input's block when that is a multiple
  // of a vector and divides the channels read, and the block a grouped conv reading the output
  // wants. On the 2-core Xeon RegNetX-400MF's 16-channel groups between 1x1 convs of 32 to 160
  // channels, whose fallback blocks are 32, spent 312 us of 4.2 ms in re-blockings (4.27 ->
  // 4.08 ms without them); ResNeXt-50's 512- and 1024-channel 1x1 convs ran 10-40 % slower on
  // 16-blocks than their re-blockings cost.
  void fit_blocks_to_neighbours(const Expr& e, const Expr& x, int64_t ic, int64_t oc,
                                ConvBlocks& cb) {
    const Shape& ws = e->args[1]->types[0].shape;
    if (ic * ws[2] * ws[3] > 256) return;
    const int64_t vec = std::max<int64_t>(opt_.depthwise_block, 1);
    if (is_blocked(x) && blocked_channels(x) == ic) {
      const int64_t bx = block_of(x);
      if (bx != cb.ic_bn && bx % vec == 0 && ic % bx == 0) cb.ic_bn = bx;
    }
    // A grouped conv takes its input's block when that divides its groups' widths (see grouped).
    auto it = group_width_.find(e.get());
    if (it != group_width_.end() && it->second % cb.oc_bn != 0) {
      const int64_t b = std::gcd(it->second, opt_.group_block);
      if (cb.oc_bn % b == 0 && oc % b == 0) cb.oc_bn = b;
    }
  }

  // The group width of each grouped conv that alter_op_layout blocks, recorded at the direct conv
  // that makes its input (through element-wise ops with constants: bias, BN, relu).
  void find_grouped_inputs(const Expr& body) {
    const int64_t B = opt_.group_block;
    if (B <= 0) return;
    static const char* through[] = {"nn.relu", "clip",     "sigmoid",  "nn.leaky_relu",
                                    "add",     "multiply", "subtract", "nn.bias_add"};
    for (const Expr& e : post_order(body)) {
      if (!e->is_call("nn.conv2d") || detail::is_depthwise(*e) ||
          e->attrs.at("groups").get<int64_t>() == 1 || e->args[1]->tuple_typed)
        continue;
      const Shape& ws = e->args[1]->types[0].shape;
      const int64_t G = e->attrs.at("groups").get<int64_t>();
      const int64_t width = std::gcd(ws[1], ws[0] / G);
      // Else it stays NCHW (see grouped).
      if (width % B != 0 && !half_block_winograd(e, std::gcd(width, B))) continue;
      Expr p = e->args[0];
      while (p->kind == ExprKind::Call &&
             std::find(std::begin(through), std::end(through), p->name) != std::end(through)) {
        Expr next;
        int values = 0;  // operands that are not constants: two make a join, where it stops
        for (auto& a : p->args)
          if (a->kind != ExprKind::Constant) {
            next = a;
            ++values;
          }
        if (values != 1) break;
        p = next;
      }
      if (p->is_call("nn.conv2d") && p->attrs.at("groups").get<int64_t>() == 1)
        group_width_[p.get()] = width;
    }
  }

  Val conv(const Expr& e) {
    const Expr& x = e->args[0];
    const Expr& w = e->args[1];
    if (!is_4d_float(e) || !is_4d_float(x) || w->kind != ExprKind::Constant) return keep(e);
    const Shape& ws = w->types[0].shape;
    const int64_t C = x->types[0].shape[1], O = ws[0];
    Json at = e->attrs;
    for (const char* k : {"data_layout", "kernel_layout", "out_dtype"}) at.erase(k);
    if (int64_t m = opt_.winograd_tile ? opt_.winograd_tile(*e) : 0; m > 0) {
      Expr wt = call("nn.contrib_conv2d_winograd_weight_transform", {w}, {{"tile_size", m}});
      at["tile_size"] = m;
      return {call("nn.contrib_conv2d_winograd_without_weight_transform",
                   {nchw(x), transpose(wt, {0, 1, 3, 2})}, at),
              nullptr, 0};
    }
    if (e->attrs.at("groups").get<int64_t>() == 1) {
      if (!opt_.conv_blocks) return keep(e);
      // The input channels the convolution reads: its input's padded blocked form where it has
      // one (the weights get zero input channels to match); the output channels: when they are
      // not a multiple of a vector, padded up to a multiple of one of pad_channels that adds at
      // most a sixteenth, else an eighth, else a half (ShuffleNet's 58 -> 64, 232 -> 240,
      // SqueezeNet's 1000 -> 1024, MNASNet's 24 -> 32 and 40 -> 48, whose own blocks are 2, 8,
      // 10, 12 and 10 lanes), unless a log has a config for the layer as it is. The convs reading
      // a padded value leave its padding out of their reduction (data_channels). On the 2-core
      // Xeon MNASNet's 80 -> 24 and 128 -> 40 layers with the residual add 76 -> 58 and
      // 58 -> 32 us, the network 2-3 % (the half's step; 2026-12-07).
      const int64_t cin = is_blocked(x) ? blocked_channels(x) : C;
      std::optional<ConvBlocks> cb = opt_.conv_blocks(*e);
      const bool tuned = cb && cb->from_log;
      int64_t op_ = O, ic = C;
      // A conv whose output a blocked grouped conv reads keeps its channels: padding would shift
      // the groups (RegNet's 408 channels in 24-channel groups, on 8-lane blocks).
      const auto gw = group_width_.find(e.get());
      const bool feeds_group =
          gw != group_width_.end() && O % std::gcd(gw->second, opt_.group_block) == 0;
      if (const auto& pc = opt_.pad_channels;
          !tuned && !feeds_group && !pc.empty() && O % pc.back() != 0) {
        // The first multiple that adds at most a sixteenth, else at most an eighth, else at most
        // a half.
        for (const int64_t frac : {16, 8, 2}) {
          for (const int64_t v : pc) {
            const int64_t up = (O + v - 1) / v * v;
            if (op_ == O && frac * (up - O) <= O) op_ = up;
          }
        }
      }
      if (!tuned && (cin != C || op_ != O)) {
        // The padded layer's blocks (and config: what the build and task extraction see).
        Json fa = e->attrs;
        fa["channels"] = 0;
        Shape xs = x->types[0].shape, pws = ws;
        xs[1] = pws[1] = cin;
        pws[0] = op_;
        Expr fake = call("nn.conv2d",
                         {var("data", TensorType{xs, DataType::Float(32)}),
                          var("weight", TensorType{pws, DataType::Float(32)})},
                         fa);
        std::optional<ConvBlocks> pb = opt_.conv_blocks(*fake);
        if (pb && cin % pb->ic_bn == 0 && op_ % pb->oc_bn == 0) {
          cb = pb;
          ic = cin;
        } else {
          op_ = O;
        }
      }
      if (!cb || (cb->nchw_on_nchw_input && !is_blocked(x))) return keep(e);
      MINITVM_USER_CHECK(cb->ic_bn >= 1 && ic % cb->ic_bn == 0 && cb->oc_bn >= 1 &&
                         op_ % cb->oc_bn == 0)
          << "alter_op_layout: channel blocks " << cb->ic_bn << "/" << cb->oc_bn
          << " do not divide " << ic << "/" << op_;
      Expr wp = w;
      if (ic != C || op_ != O) {
        wp = nn::pad(w, {{0, op_ - O}, {0, ic - C}, {0, 0}, {0, 0}}, 0.0);
      }
      if (int64_t m = opt_.cpu_winograd_tile ? opt_.cpu_winograd_tile(*e, *cb) : 0; m > 0) {
        Expr u = call("nn.contrib_conv2d_winograd_NCHWc_weight_transform", {wp},
                      {{"tile_size", m}, {"ic_block", cb->ic_bn}, {"oc_block", cb->oc_bn}});
        at["tile_size"] = m;
        return made(call("nn.contrib_conv2d_winograd_NCHWc", {blocked(x, cb->ic_bn, ic), u}, at),
                    cb->oc_bn, op_);
      }
      if (!tuned) fit_blocks_to_neighbours(e, x, ic, op_, *cb);
      std::string kl = "OIHW" + std::to_string(cb->ic_bn) + "i" + std::to_string(cb->oc_bn) + "o";
      at["data_layout"] = nchw_b(cb->ic_bn);
      at["kernel_layout"] = kl;
      at["out_layout"] = nchw_b(cb->oc_bn);
      // The input's channels without its zero padding (their weights are zero): the blocked conv
      // may leave the padding out of its reduction (conv2d_nchwc_blocked).
      if (ic != C) at["data_channels"] = C;
      Expr kw = layout_transform(wp, "OIHW", kl);
      return made(call("nn.contrib_conv2d_NCHWc", {blocked(x, cb->ic_bn, ic), kw}, at), cb->oc_bn,
                  op_);
    }
    if (!detail::is_depthwise(*e) && opt_.group_block > 0) return grouped(e, at);
    if (!detail::is_depthwise(*e) || opt_.depthwise_block <= 0) return keep(e);
    // On a padded blocked input the padding channels get zero weights and stay zero.
    const int64_t cp = is_blocked(x) ? blocked_channels(x) : C;
    int64_t b = is_blocked(x) && cp % block_of(x) == 0 ? block_of(x) : 0;
    if (!b) {
      for (b = std::min(opt_.depthwise_block, C); C % b; --b) {
      }
      // An NCHW input whose channels only take a block of at most half a vector (ShuffleNet's
      // 116 channels: 4 of 16 lanes) stays NCHW: the NCHW schedule vectorizes the width, and no
      // layout_transform goes in and out around the layer.
      if (2 * b <= opt_.depthwise_block && b < C) return keep(e);
    }
    const int64_t c = is_blocked(x) && block_of(x) == b ? cp : C;
    std::string kl = "OIHW1i" + std::to_string(b) + "o";
    at["data_layout"] = nchw_b(b);
    at["kernel_layout"] = kl;
    at["out_layout"] = nchw_b(b);
    Expr kw = layout_transform(c == C ? w : pad_channels_dim0(w, c), "OIHW", kl);
    return made(call("nn.contrib_depthwise_conv2d_NCHWc", {blocked(x, b, c), kw}, at), b, c);
  }

  // Groups on blocks of half a vector or more (RegNet's 24-, 56- and 120-channel groups on 8 or
  // 12 lanes), of at least one and a half vectors, run blocked where they run as Winograd: its
  // products on part-vector blocks still do fewer multiplies than the NCHW direct kernel at full
  // width. Narrower groups (ResNeXt's 8 channels) measured level and stay NCHW.
  bool half_block_winograd(const Expr& e, int64_t b) const {
    const int64_t cg = e->args[1]->types[0].shape[1];
    return 2 * b >= opt_.group_block && 2 * cg >= 3 * opt_.group_block && opt_.cpu_winograd_tile &&
           opt_.cpu_winograd_tile(*e, ConvBlocks{b, b}) > 0;
  }

  // A grouped conv (not depthwise) as nn.contrib_conv2d_NCHWc with groups (AlterLayoutOptions::
  // group_block says when): one block for its input and output channels, the input's when it is
  // wider than group_block and divides both per-group counts, else group_block. Narrower groups
  // stay NCHW: on the 2-core Xeon ResNeXt-50's 8-channel groups on 8-blocks (reblocked from the 1x1
  // convs' 32) ran 247-691 us against the NCHW kernel's 202-432, and its 4-channel groups merged
  // into block-diagonal 16-channel groups 461 against 313; half_block_winograd says where narrower
  // groups run blocked as Winograd. A stride-1 3x3 one takes Winograd where cpu_winograd_tile says.
  Val grouped(const Expr& e, Json at) {
    const Expr& x = e->args[0];
    const Expr& w = e->args[1];
    const int64_t G = e->attrs.at("groups").get<int64_t>(), B = opt_.group_block;
    const int64_t C = x->types[0].shape[1], Cg = w->types[0].shape[1],
                  Og = w->types[0].shape[0] / G;
    // An input carrying padded channels would shift the groups.
    if (is_blocked(x) && blocked_channels(x) != C) return keep(e);
    int64_t b = std::gcd(std::gcd(Cg, Og), B);
    if (is_blocked(x) && block_of(x) > b && Cg % block_of(x) == 0 && Og % block_of(x) == 0)
      b = block_of(x);  // a wider block that divides them: no reblocking
    if (b < B && !half_block_winograd(e, b)) return keep(e);
    if (int64_t m = opt_.cpu_winograd_tile ? opt_.cpu_winograd_tile(*e, ConvBlocks{b, b}) : 0;
        m > 0) {
      Expr u = call("nn.contrib_conv2d_winograd_NCHWc_weight_transform", {w},
                    {{"tile_size", m}, {"ic_block", b}, {"oc_block", b}});
      at["tile_size"] = m;
      return made(call("nn.contrib_conv2d_winograd_NCHWc", {blocked(x, b, C), u}, at), b, Og * G);
    }
    const std::string kl = "OIHW" + std::to_string(b) + "i" + std::to_string(b) + "o";
    at["data_layout"] = nchw_b(b);
    at["kernel_layout"] = kl;
    at["out_layout"] = nchw_b(b);
    return made(
        call("nn.contrib_conv2d_NCHWc", {blocked(x, b, C), layout_transform(w, "OIHW", kl)}, at), b,
        Og * G);
  }

  const AlterLayoutOptions& opt_;
  std::unordered_map<const ExprNode*, Val> vals_;
  // Direct convs whose output a blocked grouped conv reads: the gcd of its groups' input and
  // output channel counts.
  std::unordered_map<const ExprNode*, int64_t> group_width_;
  std::map<std::tuple<const ExprNode*, int64_t, int64_t>, Expr> reblocked_;
};

}  // namespace

Function alter_op_layout(const Function& f, const AlterLayoutOptions& opt) {
  return Alter(opt).run(f);
}

}  // namespace minitvm::relay::transform
