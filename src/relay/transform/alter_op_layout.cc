// alter_op_layout: TVM's AlterOpLayout for x86 (conv2d -> conv2d_NCHWc) with the layout
// propagation of its ConvertLayout/InferCorrectLayout rules, restricted to what CNNs need, and for
// cuda (winograd convs take a weight transformed at build time).
// Contract: transform.h.
#include <algorithm>
#include <map>
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
struct Val {
  Expr nchw;
  Expr blocked;
  int64_t block = 0;
};

bool is_4d_float(const Expr& e) {
  return !e->tuple_typed && e->types[0].shape.size() == 4 &&
         e->types[0].dtype == DataType::Float(32);
}

class Alter {
 public:
  explicit Alter(const AlterLayoutOptions& opt) : opt_(opt) {}

  Function run(const Function& f) {
    for (const Expr& e : post_order(f.body)) vals_[e.get()] = visit(e);
    Expr body = nchw(f.body);
    if (body == f.body) return f;
    return Function(f.params, body);
  }

 private:
  Val& val(const Expr& e) { return vals_.at(e.get()); }

  // The NCHW form of an original value (one layout_transform per blocked value, made on first use).
  Expr nchw(const Expr& e) {
    Val& v = val(e);
    if (!v.nchw) v.nchw = layout_transform(v.blocked, nchw_b(v.block), "NCHW");
    return v.nchw;
  }

  // The NCHW[b]c form of an original 4-D value (cached per block).
  Expr blocked(const Expr& e, int64_t b) {
    Val& v = val(e);
    if (v.blocked && v.block == b) return v.blocked;
    auto key = std::make_pair(e.get(), b);
    auto it = reblocked_.find(key);
    if (it != reblocked_.end()) return it->second;
    Expr r = v.blocked ? layout_transform(v.blocked, nchw_b(v.block), nchw_b(b))
                       : layout_transform(v.nchw, "NCHW", nchw_b(b));
    reblocked_[key] = r;
    return r;
  }

  bool is_blocked(const Expr& e) const { return vals_.at(e.get()).blocked != nullptr; }
  int64_t block_of(const Expr& e) const { return vals_.at(e.get()).block; }

  // An operand of a broadcast op whose output is NCHW (C channels) in NCHW[b]c: blocked values and
  // (N?, C, H?, W?) operands are transformed, operands constant along C reshaped to 5-D with a unit
  // block; nullptr when the operand does not broadcast along NCHW's axes that way.
  Expr broadcast_operand(const Expr& e, int64_t C, int64_t b) {
    if (e->tuple_typed) return nullptr;
    const Shape& s = e->types[0].shape;
    // A blocked operand with the output's channels is re-blocked; one with a single channel (a
    // spatial attention map) broadcasts as a unit block from its NCHW form below.
    if (is_blocked(e) && s.size() == 4 && s[1] == C) return blocked(e, b);
    if (s.size() > 4) return nullptr;
    Shape s4(4 - s.size(), 1);
    s4.insert(s4.end(), s.begin(), s.end());
    Expr x = nchw(e);
    if (s.size() != 4) x = reshape(x, s4);
    if (s4[1] == C && C > 1) return layout_transform(x, "NCHW", nchw_b(b));
    if (s4[1] != 1) return nullptr;
    return reshape(x, {s4[0], 1, s4[2], s4[3], 1});
  }

  Val keep(const Expr& e) {
    if (e->kind == ExprKind::Var || e->kind == ExprKind::Constant) return {e, nullptr, 0};
    std::vector<Expr> args;
    for (auto& a : e->args) args.push_back(nchw(a));
    return {detail::with_args(e, args), nullptr, 0};
  }

  Val visit(const Expr& e) {
    if (e->kind != ExprKind::Call) return keep(e);
    const std::string& op = e->name;
    if (op == "nn.conv2d") return conv(e);
    if (e->tuple_typed || !is_4d_float(e)) return keep(e);
    const int64_t C = e->types[0].shape[1];
    static const char* unary[] = {"nn.relu", "clip", "sigmoid", "sqrt", "negative"};
    if (std::find(std::begin(unary), std::end(unary), op) != std::end(unary)) {
      if (!is_blocked(e->args[0])) return keep(e);
      int64_t b = block_of(e->args[0]);
      return {nullptr, call(op, {val(e->args[0]).blocked}, e->attrs), b};
    }
    if (op == "add" || op == "subtract" || op == "multiply" || op == "divide" ||
        op == "nn.bias_add") {
      std::vector<Expr> in = e->args;
      int64_t b = 0;  // the block of an operand with the output's shape
      for (auto& a : in)
        if (!b && is_blocked(a) && a->types[0].shape == e->types[0].shape) b = block_of(a);
      if (!b || C % b) return keep(e);
      std::vector<Expr> args;
      if (op == "nn.bias_add") {
        if (e->attrs.at("axis").get<int64_t>() != 1 || in[1]->types[0].shape.size() != 1)
          return keep(e);
        Expr data = broadcast_operand(in[0], C, b);
        Expr bias = layout_transform(reshape(nchw(in[1]), {1, C, 1, 1}), "NCHW", nchw_b(b));
        if (!data) return keep(e);
        return {nullptr, add(data, bias), b};
      }
      for (auto& a : in) {
        Expr x = broadcast_operand(a, C, b);
        if (!x) return keep(e);
        args.push_back(x);
      }
      return {nullptr, call(op, args, e->attrs), b};
    }
    if (op == "nn.max_pool2d" || op == "nn.avg_pool2d" || op == "nn.global_avg_pool2d") {
      if (!is_blocked(e->args[0])) return keep(e);
      int64_t b = block_of(e->args[0]);
      Json at = e->attrs;
      at["layout"] = nchw_b(b);
      return {nullptr, call(op, {val(e->args[0]).blocked}, at), b};
    }
    if (op == "concatenate" && e->attrs.at("axis").get<int64_t>() == 1) {
      int64_t b = 0;
      for (auto& a : e->args)
        if (!b && is_blocked(a)) b = block_of(a);
      if (!b) return keep(e);
      std::vector<Expr> args;
      for (auto& a : e->args) {
        if (a->tuple_typed || !is_4d_float(a) || a->types[0].shape[1] % b) return keep(e);
        args.push_back(blocked(a, b));
      }
      return {nullptr, call(op, args, e->attrs), b};
    }
    return keep(e);
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
      std::optional<ConvBlocks> cb = opt_.conv_blocks(*e);
      if (!cb) return keep(e);
      MINITVM_USER_CHECK(cb->ic_bn >= 1 && C % cb->ic_bn == 0 && cb->oc_bn >= 1 &&
                         O % cb->oc_bn == 0)
          << "alter_op_layout: channel blocks " << cb->ic_bn << "/" << cb->oc_bn
          << " do not divide " << C << "/" << O;
      std::string kl = "OIHW" + std::to_string(cb->ic_bn) + "i" + std::to_string(cb->oc_bn) + "o";
      at["data_layout"] = nchw_b(cb->ic_bn);
      at["kernel_layout"] = kl;
      at["out_layout"] = nchw_b(cb->oc_bn);
      Expr kw = layout_transform(w, "OIHW", kl);
      return {nullptr, call("nn.contrib_conv2d_NCHWc", {blocked(x, cb->ic_bn), kw}, at), cb->oc_bn};
    }
    if (!detail::is_depthwise(*e) || opt_.depthwise_block <= 0) return keep(e);
    int64_t b = is_blocked(x) && C % block_of(x) == 0 ? block_of(x) : 0;
    if (!b) {
      for (b = std::min(opt_.depthwise_block, C); C % b; --b) {
      }
      // An NCHW input whose channels only take a block of at most half a vector (ShuffleNet's
      // 116 channels: 4 of 16 lanes) stays NCHW: the NCHW schedule vectorizes the width, and no
      // layout_transform goes in and out around the layer.
      if (2 * b <= opt_.depthwise_block && b < C) return keep(e);
    }
    std::string kl = "OIHW1i" + std::to_string(b) + "o";
    at["data_layout"] = nchw_b(b);
    at["kernel_layout"] = kl;
    at["out_layout"] = nchw_b(b);
    Expr kw = layout_transform(w, "OIHW", kl);
    return {nullptr, call("nn.contrib_depthwise_conv2d_NCHWc", {blocked(x, b), kw}, at), b};
  }

  const AlterLayoutOptions& opt_;
  std::unordered_map<const ExprNode*, Val> vals_;
  std::map<std::pair<const ExprNode*, int64_t>, Expr> reblocked_;
};

}  // namespace

Function alter_op_layout(const Function& f, const AlterLayoutOptions& opt) {
  return Alter(opt).run(f);
}

}  // namespace minitvm::relay::transform
