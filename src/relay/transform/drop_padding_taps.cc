// drop_padding_taps: kernel rows and columns of an nn.conv2d that read only zero padding, for
// every output position, are cut from the weight. Contract: transform.h.
#include <algorithm>

#include "minitvm/relay/transform.h"
#include "relay/attr_util.h"
#include "relay/transform/rewrite.h"

namespace minitvm::relay::transform {

namespace {

// The taps [first, last] of one spatial axis that read the input for at least one output
// position; first > last when none does.
struct LiveTaps {
  int64_t first = 0, last = -1;
};

LiveTaps live_taps(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad_before,
                   int64_t dilation) {
  LiveTaps t{k, -1};
  for (int64_t tap = 0; tap < k; ++tap)
    for (int64_t o = 0; o < out; ++o) {
      int64_t pos = o * stride - pad_before + tap * dilation;
      if (pos >= 0 && pos < in) {
        t.first = std::min(t.first, tap);
        t.last = std::max(t.last, tap);
        break;
      }
    }
  return t;
}

Expr drop_taps(const Expr& e) {
  if (!e->is_call("nn.conv2d") || e->args[1]->kind != ExprKind::Constant || e->tuple_typed)
    return e;
  const Json& at = e->attrs;
  if (at.value("data_layout", std::string("NCHW")) != "NCHW" ||
      at.value("kernel_layout", std::string("OIHW")) != "OIHW")
    return e;
  const auto& d = e->args[0]->types.at(0).shape;
  const auto& w = e->args[1]->types.at(0).shape;
  const auto& o = e->types.at(0).shape;
  std::vector<int64_t> pad = detail::attr_ints(at.value("padding", Json())),
                       s = detail::attr_ints(at.value("strides", Json())),
                       dil = detail::attr_ints(at.value("dilation", Json()));
  // The type rule has normalised the attributes: 4 paddings (top, left, bottom, right), 2
  // strides and 2 dilations.
  if (d.size() != 4 || w.size() != 4 || o.size() != 4 || pad.size() != 4 || s.size() != 2 ||
      dil.size() != 2)
    return e;
  LiveTaps th = live_taps(d[2], o[2], w[2], s[0], pad[0], dil[0]);
  LiveTaps tw = live_taps(d[3], o[3], w[3], s[1], pad[1], dil[1]);
  // No live tap at all (an output of padding only) or nothing to cut: leave the conv as it is.
  if (th.first > th.last || tw.first > tw.last) return e;
  if (th.first == 0 && th.last == w[2] - 1 && tw.first == 0 && tw.last == w[3] - 1) return e;
  // Cutting taps [0, first) and (last, k) moves the window's ends by as many dilation steps.
  std::vector<int64_t> np{pad[0] - th.first * dil[0], pad[1] - tw.first * dil[1],
                          pad[2] - (w[2] - 1 - th.last) * dil[0],
                          pad[3] - (w[3] - 1 - tw.last) * dil[1]};
  if (std::any_of(np.begin(), np.end(), [](int64_t p) { return p < 0; })) return e;
  int64_t kh = th.last - th.first + 1, kw = tw.last - tw.first + 1;
  Expr weight = strided_slice(e->args[1], {0, 0, th.first, tw.first},
                              {w[0], w[1], th.last + 1, tw.last + 1}, {1, 1, 1, 1});
  Json nat = at;
  nat["padding"] = np;
  nat["kernel_size"] = std::vector<int64_t>{kh, kw};
  // A single tap along an axis has no dilation (the 1x1 and 1xk kernels keep their fast paths).
  nat["dilation"] = std::vector<int64_t>{kh == 1 ? 1 : dil[0], kw == 1 ? 1 : dil[1]};
  Expr cut = call("nn.conv2d", {e->args[0], weight}, nat);
  return cut->types == e->types ? cut : e;
}

}  // namespace

Function drop_padding_taps(const Function& f) {
  return detail::rewrite(f, [](const Expr&, const Expr& e) { return drop_taps(e); });
}

}  // namespace minitvm::relay::transform
