// libFuzzer target: the pooling frontend's parameter planning. The input is read as integers that
// become PyTorch (max/avg/adaptive/lp/global) or ONNX pooling parameters for a fuzzed input shape;
// planning must either throw a CompileError (PoolParamError where PyTorch/ONNX reject) or return a
// plan whose geometry holds: per axis the output length matches PyTorch's formula (torch ops),
// every in-range tap of every window lies inside the input and the taps just outside it do not.
// When the sizes are small the reference executor runs the plan, and max/avg outputs of float64
// channels-first plans are compared with a naive computation from the plan's axes.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "minitvm/frontend/onnx_pool_attrs.h"
#include "minitvm/frontend/pool_executor.h"
#include "minitvm/frontend/pool_plan.h"

using namespace minitvm;
using namespace minitvm::frontend;
using topi::AxisWindow;
using topi::DivisorRule;
using topi::PoolAxis;
using topi::PoolLayout;
using topi::PoolMode;
using topi::PoolPlan;

namespace {

/** Mostly small values, sometimes anything (overflow and sign checks). */
int64_t value(fuzz::Bytes& b, int64_t lo, int64_t hi) {
  switch (b.u8() % 8) {
    case 0:
      return b.range(-(int64_t{1} << 40), int64_t{1} << 40);
    case 1:
      return b.range(-3, 0);
    default:
      return b.range(lo, hi);
  }
}

std::vector<int64_t> list(fuzz::Bytes& b, int rank, int64_t lo, int64_t hi) {
  int n = static_cast<int>(b.range(0, 7));
  n = n < 3 ? 1 : n < 6 ? rank : static_cast<int>(b.range(0, 4));
  std::vector<int64_t> v;
  for (int i = 0; i < n; ++i) v.push_back(value(b, lo, hi));
  return v;
}

/** PyTorch's output length, written out independently (pooling_output_shape_pad_lr). */
int64_t torch_out(int64_t in, int64_t k, int64_t s, int64_t pad, int64_t d, bool ceil) {
  int64_t num = in + 2 * pad - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
  int64_t q = num / s;
  if ((num % s != 0) && ((num < 0) != (s < 0))) --q;
  int64_t out = q + 1;
  if (ceil && (out - 1) * s >= in + pad) --out;
  return out;
}

bool small(int64_t v) {
  return v > -1000000 && v < 1000000;
}

void check_geometry(const PoolPlan& plan, bool torch_fixed, bool ceil) {
  for (int a = 0; a < plan.spatial_rank(); ++a) {
    const PoolAxis& ax = plan.axes[a];
    if (ax.out < 0) fuzz::finding("plan " + plan.str() + ": negative output length");
    if (!ax.adaptive && torch_fixed && small(ax.in) && small(ax.kernel) && small(ax.stride) &&
        small(ax.pad_begin) && small(ax.dilation) && ax.pad_begin == ax.pad_end) {
      int64_t want = torch_out(ax.in, ax.kernel, ax.stride, ax.pad_begin, ax.dilation, ceil);
      if (want != ax.out)
        fuzz::finding("plan " + plan.str() + ": axis " + std::to_string(a) + " has " +
                      std::to_string(ax.out) + " outputs, PyTorch's formula gives " +
                      std::to_string(want));
    }
    const int64_t n = std::min<int64_t>(ax.out, 512);
    for (int64_t o = 0; o < n; ++o) {
      AxisWindow w = plan.window(a, o);
      auto pos = [&](int64_t i) { return w.start + i * w.step; };
      if (w.tap_begin < w.tap_end) {
        if (pos(w.tap_begin) < 0 || pos(w.tap_end - 1) >= ax.in)
          fuzz::finding("plan " + plan.str() + ": axis " + std::to_string(a) + " output " +
                        std::to_string(o) + ": an in-range tap lies outside the input");
        if (!ax.adaptive && ((w.tap_begin > 0 && pos(w.tap_begin - 1) >= 0) ||
                             (w.tap_end < ax.kernel && pos(w.tap_end) < ax.in)))
          fuzz::finding("plan " + plan.str() + ": axis " + std::to_string(a) + " output " +
                        std::to_string(o) + ": a tap inside the input is treated as padding");
      }
      if (ax.adaptive) {
        int64_t s = (o * ax.in) / ax.out, e = ((o + 1) * ax.in + ax.out - 1) / ax.out;
        if (w.start != s || w.start + w.tap_end != e)
          fuzz::finding("plan " + plan.str() + ": adaptive window of output " + std::to_string(o) +
                        " is not [" + std::to_string(s) + ", " + std::to_string(e) + ")");
      }
    }
  }
}

/** Naive max/avg of a float64 channels-first plan from its axes (not from PoolPlan::window). */
void check_values(const PoolPlan& plan, const HostArray& x, const HostArray& y) {
  const int r = plan.spatial_rank();
  std::vector<int64_t> in(3, 1), out(3, 1);
  for (int a = 0; a < r; ++a) in[3 - r + a] = plan.axes[a].in, out[3 - r + a] = plan.axes[a].out;
  auto axis_of = [&](int d) -> const PoolAxis* {
    return d < 3 - r ? nullptr : &plan.axes[d - (3 - r)];
  };
  const int64_t planes = plan.batch * plan.channels;
  const int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t o0 = 0; o0 < out[0]; ++o0)
      for (int64_t o1 = 0; o1 < out[1]; ++o1)
        for (int64_t o2 = 0; o2 < out[2]; ++o2) {
          int64_t o[3] = {o0, o1, o2};
          // Tap positions per dimension: (position, counts for include-pad, in range).
          std::vector<int64_t> taps[3];
          int64_t counted[3] = {1, 1, 1};
          for (int d = 0; d < 3; ++d) {
            const PoolAxis* ax = axis_of(d);
            if (!ax) {
              taps[d] = {0};
              continue;
            }
            if (ax->adaptive) {
              for (int64_t i = (o[d] * ax->in) / ax->out;
                   i < ((o[d] + 1) * ax->in + ax->out - 1) / ax->out; ++i)
                taps[d].push_back(i);
              counted[d] = static_cast<int64_t>(taps[d].size());
              continue;
            }
            counted[d] = 0;
            for (int64_t i = 0; i < ax->kernel; ++i) {
              int64_t q = o[d] * ax->stride - ax->pad_begin + i * ax->dilation;
              if (q < ax->in + ax->pad_end) ++counted[d];
              if (q >= 0 && q < ax->in) taps[d].push_back(q);
            }
          }
          double mx = -std::numeric_limits<double>::infinity(), sum = 0;
          int64_t real = 0;
          for (int64_t a : taps[0])
            for (int64_t bq : taps[1])
              for (int64_t c : taps[2]) {
                double v = x.get(p * in_plane + (a * in[1] + bq) * in[2] + c);
                mx = std::max(mx, v);
                sum += v;
                ++real;
              }
          const int64_t at = p * out_plane + (o0 * out[1] + o1) * out[2] + o2;
          const double got = y.get(at);
          double want;
          if (plan.mode == PoolMode::Max) {
            want = mx;
          } else if (plan.mode == PoolMode::Avg) {
            double div = 0;
            switch (plan.divisor_rule) {
              case DivisorRule::CountIncludePad:
                div = static_cast<double>(counted[0] * counted[1] * counted[2]);
                break;
              case DivisorRule::CountExcludePad:
                div = static_cast<double>(real);
                break;
              case DivisorRule::Override:
                div = static_cast<double>(plan.divisor_override);
                break;
              case DivisorRule::AdaptiveEachAxis:
              case DivisorRule::Mean:
                div = static_cast<double>(real);
                break;
            }
            if (div == 0) continue;  // 0/0: PyTorch's NaN, not compared
            want = sum / div;
          } else {
            return;
          }
          if (!(std::abs(got - want) <= 1e-9 * std::max(1.0, std::abs(want))) &&
              !(std::isinf(got) && got == want))
            fuzz::finding("plan " + plan.str() + ": output " + std::to_string(at) + " is " +
                          std::to_string(got) + ", a naive computation gives " +
                          std::to_string(want));
        }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet();
  fuzz::Bytes b(data, size);
  const int op = static_cast<int>(b.range(0, 7));
  const int rank = static_cast<int>(b.u8() % 16 == 0 ? b.range(0, 4) : b.range(1, 3));
  PoolInput input;
  static const DataType dtypes[] = {DataType::Float(64), DataType::Float(32), DataType::Int(64),
                                    DataType::Int(8),    DataType::UInt(8),   DataType::Float(16)};
  input.dtype = dtypes[b.u8() % 16 < 10 ? 0 : b.range(1, 5)];
  input.layout = b.u8() % 4 == 0 ? PoolLayout::ChannelsLast : PoolLayout::ChannelsFirst;
  const bool batched = b.u8() % 4 != 0;
  const int ndim = std::max(0, rank) + (batched ? 2 : 1) + (b.u8() % 32 == 0 ? 1 : 0);
  for (int i = 0; i < ndim; ++i) input.shape.push_back(value(b, 1, i < ndim - rank ? 3 : 12));
  if (op == 7 && input.layout == PoolLayout::ChannelsLast) input.layout = PoolLayout::ChannelsFirst;

  PoolPlan plan;
  bool torch_fixed = false, ceil = false;
  bool ok = fuzz::accepts("plan", [&] {
    switch (op) {
      case 0: {
        MaxPoolParams p;
        p.kernel_size = list(b, rank, 1, 5);
        if (b.flag()) p.stride = list(b, rank, 1, 4);
        p.padding = list(b, rank, 0, 3);
        p.dilation = list(b, rank, 1, 3);
        p.ceil_mode = ceil = b.flag();
        p.return_indices = b.flag();
        torch_fixed = true;
        plan = plan_max_pool(rank, input, p);
        break;
      }
      case 1: {
        AvgPoolParams p;
        p.kernel_size = list(b, rank, 1, 5);
        if (b.flag()) p.stride = list(b, rank, 1, 4);
        p.padding = list(b, rank, 0, 3);
        p.ceil_mode = ceil = b.flag();
        p.count_include_pad = b.flag();
        if (b.u8() % 4 == 0) p.divisor_override = value(b, -2, 9);
        torch_fixed = true;
        plan = plan_avg_pool(rank, input, p);
        break;
      }
      case 2:
      case 3: {
        AdaptivePoolParams p;
        int n = b.u8() % 8 == 0 ? static_cast<int>(b.range(0, 4)) : rank;
        for (int i = 0; i < n; ++i) {
          if (b.u8() % 8 == 0)
            p.output_size.push_back(std::nullopt);
          else
            p.output_size.push_back(value(b, 0, 7));
        }
        p.return_indices = b.flag();
        plan = op == 2 ? plan_adaptive_avg_pool(rank, input, p)
                       : plan_adaptive_max_pool(rank, input, p);
        break;
      }
      case 4: {
        LpPoolParams p;
        p.norm_type = static_cast<double>(b.range(-1, 4)) / (b.flag() ? 1.0 : 2.0);
        p.kernel_size = list(b, rank, 1, 4);
        if (b.flag()) p.stride = list(b, rank, 1, 3);
        p.ceil_mode = ceil = b.flag();
        plan = plan_lp_pool(rank, input, p);
        break;
      }
      case 5:
        plan = plan_global_pool(b.flag() ? PoolMode::Max : PoolMode::Avg, rank, input);
        break;
      default: {
        static const char* ops[] = {"MaxPool",       "AveragePool",       "LpPool",
                                    "GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"};
        static const char* pads[] = {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER", "bogus"};
        OnnxPoolAttrs a;
        a.op_type = ops[b.range(0, 5)];
        a.node_name = "fuzz";
        a.auto_pad = pads[b.u8() % 8 < 4 ? 0 : b.range(1, 4)];
        if (b.u8() % 8) a.kernel_shape = list(b, rank, 1, 4);
        if (b.flag()) a.strides = list(b, rank, 1, 3);
        if (b.flag()) {
          a.pads = list(b, rank, 0, 3);
          if (b.flag()) a.pads.resize(static_cast<size_t>(2 * std::max(rank, 0)), 1);
        }
        if (b.flag()) a.dilations = list(b, rank, 1, 3);
        a.ceil_mode = b.u8() % 8 == 0 ? value(b, 0, 2) : b.flag();
        a.count_include_pad = b.flag();
        a.storage_order = b.u8() % 8 == 0 ? value(b, 0, 2) : b.flag();
        a.p = value(b, 1, 3);
        a.want_indices = b.flag();
        if (input.shape.size() < 2) input.shape.insert(input.shape.begin(), 1);
        plan = plan_onnx_pool(a, input.shape, input.dtype);
      }
    }
  });
  if (!ok) return 0;
  check_geometry(plan, torch_fixed, ceil);

  // Run the reference when the problem is small.
  std::vector<int64_t> in_shape = plan.input_shape(), out_shape = plan.output_shape();
  auto numel = [](const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t d : s) {
      if (d < 0 || d > 4096) return int64_t{-1};
      n *= d;
      if (n > 4096) return int64_t{-1};
    }
    return n;
  };
  const int64_t nin = numel(in_shape), nout = numel(out_shape);
  if (nin < 0 || nout < 0) return 0;
  int64_t window = 1;
  for (const auto& ax : plan.axes)
    window *= ax.adaptive ? std::min<int64_t>(ax.in, 64) : std::min<int64_t>(ax.kernel, 64);
  if (nout * window > 100000 || plan.dtype.bits() == 16) return 0;
  std::vector<double> vals(static_cast<size_t>(nin));
  // Values every dtype holds: unsigned inputs get 0..28, the others -14..14.
  const double shift = plan.dtype.is_uint() ? 0.0 : 14.0;
  for (int64_t i = 0; i < nin; ++i) vals[i] = static_cast<double>((i * 37 + 11) % 29) - shift;
  HostArray x = HostArray::from_doubles(plan.dtype, in_shape, vals);
  ReferencePoolExecutor ref;
  PoolForwardResult r;
  if (!fuzz::accepts("reference forward", [&] { r = ref.forward(plan, x); })) return 0;
  if (r.output.shape() != out_shape)
    fuzz::finding("plan " + plan.str() + ": the reference output has another shape");
  if (plan.dtype == DataType::Float(64) && plan.layout == PoolLayout::ChannelsFirst &&
      (plan.mode == PoolMode::Max || plan.mode == PoolMode::Avg))
    check_values(plan, x, r.output);
  if (plan.dtype.is_floating()) {
    HostArray g = HostArray::from_doubles(plan.dtype, out_shape,
                                          std::vector<double>(static_cast<size_t>(nout), 1.0));
    fuzz::accepts("reference backward", [&] {
      check_backward(plan);
      (void)ref.backward(plan, x, g, plan.return_indices ? &r.indices : nullptr);
    });
  }
  return 0;
}
