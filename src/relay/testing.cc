// The seed network zoo (torchvision definitions) with seeded random weights.
#include "minitvm/relay/testing.h"

#include <cmath>
#include <random>
#include <string>

#include "minitvm/relay/op.h"
#include "minitvm/support/error.h"

namespace minitvm::relay::testing {

runtime::NDArray random_uniform(const std::vector<int64_t>& shape, float lo, float hi,
                                uint64_t seed) {
  std::mt19937_64 gen(seed);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v)
    x = lo + (hi - lo) * static_cast<float>(static_cast<double>(gen() >> 11) * 0x1.0p-53);
  return runtime::NDArray::from_vector(v, shape);
}

namespace {

// Builds a network: parameters become Vars (with their values in `params`).
struct Builder {
  Network net;
  std::vector<Expr> inputs;
  uint64_t seed;
  uint64_t counter = 0;

  explicit Builder(uint64_t s) : seed(s) {}

  Expr param(const std::string& name, const std::vector<int64_t>& shape, float lo, float hi) {
    auto v = var(name, TensorType{shape, DataType::Float(32)});
    net.params[name] = random_uniform(shape, lo, hi, seed * 1000003 + counter++);
    inputs.push_back(v);
    return v;
  }
  // He-uniform weights keep activations in range through deep nets.
  Expr weight(const std::string& name, const std::vector<int64_t>& shape) {
    int64_t fan_in = 1;
    for (size_t i = 1; i < shape.size(); ++i) fan_in *= shape[i];
    float b = static_cast<float>(std::sqrt(6.0 / static_cast<double>(fan_in)));
    return param(name, shape, -b, b);
  }
  Expr conv(const Expr& x, const std::string& name, int64_t out, int64_t k, int64_t stride,
            int64_t pad, int64_t groups = 1, bool bias = false) {
    int64_t in = x->type().shape[1];
    Conv2DAttrs a;
    a.strides = {stride, stride};
    a.padding = {pad, pad, pad, pad};
    a.groups = groups;
    a.channels = out;
    a.kernel_size = {k, k};
    Expr y = nn::conv2d(x, weight(name + ".weight", {out, in / groups, k, k}), a);
    if (bias) y = nn::bias_add(y, param(name + ".bias", {out}, -0.1f, 0.1f));
    return y;
  }
  Expr bn(const Expr& x, const std::string& name) {
    int64_t c = x->type().shape[1];
    Expr g = param(name + ".weight", {c}, 0.5f, 1.5f);
    Expr b = param(name + ".bias", {c}, -0.1f, 0.1f);
    Expr m = param(name + ".running_mean", {c}, -0.1f, 0.1f);
    Expr v = param(name + ".running_var", {c}, 0.5f, 1.5f);
    return tuple_get_item(nn::batch_norm(x, g, b, m, v, 1, 1e-5), 0);
  }
  Expr linear(const Expr& x, const std::string& name, int64_t out) {
    int64_t in = x->type().shape[1];
    float b = static_cast<float>(1.0 / std::sqrt(static_cast<double>(in)));
    Expr y = nn::dense(x, param(name + ".weight", {out, in}, -b, b), out);
    return nn::bias_add(y, param(name + ".bias", {out}, -b, b));
  }
  Network finish(const Expr& data, const Expr& body) {
    std::vector<Expr> ps{data};
    ps.insert(ps.end(), inputs.begin(), inputs.end());
    net.mod = Function(ps, body);
    return std::move(net);
  }
};

Expr data_var(int64_t batch, const std::vector<int64_t>& image_shape) {
  MINITVM_USER_CHECK(image_shape.size() == 3) << "relay::testing: image_shape must be (C, H, W)";
  MINITVM_USER_CHECK(batch >= 1) << "relay::testing: batch " << batch << " must be >= 1";
  return var("data", TensorType{{batch, image_shape[0], image_shape[1], image_shape[2]},
                                DataType::Float(32)});
}

}  // namespace

Network resnet(int num_layers, int64_t batch, const std::vector<int64_t>& image_shape,
               int64_t num_classes, uint64_t seed) {
  std::vector<int> units;
  bool bottleneck = num_layers >= 50;
  switch (num_layers) {
    case 18:
      units = {2, 2, 2, 2};
      break;
    case 34:
      units = {3, 4, 6, 3};
      break;
    case 50:
      units = {3, 4, 6, 3};
      break;
    case 101:
      units = {3, 4, 23, 3};
      break;
    case 152:
      units = {3, 8, 36, 3};
      break;
    default:
      MINITVM_USER_ERROR << "relay::testing::resnet: num_layers " << num_layers
                         << " not in 18/34/50/101/152";
  }
  Builder B(seed);
  Expr data = data_var(batch, image_shape);
  Expr x = nn::relu(B.bn(B.conv(data, "conv1", 64, 7, 2, 3), "bn1"));
  x = nn::max_pool2d(x, {.pool_size = {3, 3}, .strides = {2, 2}, .padding = {1, 1, 1, 1}});
  int64_t expansion = bottleneck ? 4 : 1, inplanes = 64;
  for (int stage = 0; stage < 4; ++stage) {
    int64_t planes = 64 << stage;
    for (int u = 0; u < units[stage]; ++u) {
      int64_t stride = (stage > 0 && u == 0) ? 2 : 1;
      std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(u) + ".";
      Expr identity = x, y;
      if (bottleneck) {  // torchvision v1.5: the stride is on the 3x3 conv2
        y = nn::relu(B.bn(B.conv(x, p + "conv1", planes, 1, 1, 0), p + "bn1"));
        y = nn::relu(B.bn(B.conv(y, p + "conv2", planes, 3, stride, 1), p + "bn2"));
        y = B.bn(B.conv(y, p + "conv3", planes * 4, 1, 1, 0), p + "bn3");
      } else {
        y = nn::relu(B.bn(B.conv(x, p + "conv1", planes, 3, stride, 1), p + "bn1"));
        y = B.bn(B.conv(y, p + "conv2", planes, 3, 1, 1), p + "bn2");
      }
      if (stride != 1 || inplanes != planes * expansion)
        identity = B.bn(B.conv(x, p + "downsample.0", planes * expansion, 1, stride, 0),
                        p + "downsample.1");
      x = nn::relu(add(y, identity));
      inplanes = planes * expansion;
    }
  }
  x = nn::batch_flatten(nn::global_avg_pool2d(x));
  return B.finish(data, B.linear(x, "fc", num_classes));
}

Network vgg(int num_layers, int64_t batch, const std::vector<int64_t>& image_shape,
            int64_t num_classes, bool batch_norm, uint64_t seed) {
  std::vector<int> per_stage;
  switch (num_layers) {
    case 11:
      per_stage = {1, 1, 2, 2, 2};
      break;
    case 13:
      per_stage = {2, 2, 2, 2, 2};
      break;
    case 16:
      per_stage = {2, 2, 3, 3, 3};
      break;
    case 19:
      per_stage = {2, 2, 4, 4, 4};
      break;
    default:
      MINITVM_USER_ERROR << "relay::testing::vgg: num_layers " << num_layers
                         << " not in 11/13/16/19";
  }
  const int64_t filters[] = {64, 128, 256, 512, 512};
  Builder B(seed);
  Expr data = data_var(batch, image_shape);
  Expr x = data;
  int idx = 0;
  for (int s = 0; s < 5; ++s) {
    for (int i = 0; i < per_stage[s]; ++i) {
      std::string n = "features." + std::to_string(idx);
      x = B.conv(x, n, filters[s], 3, 1, 1, 1, true);
      idx++;
      if (batch_norm) x = B.bn(x, "features." + std::to_string(idx++));
      x = nn::relu(x);
      idx++;
    }
    x = nn::max_pool2d(x, {.pool_size = {2, 2}, .strides = {2, 2}, .padding = {0, 0, 0, 0}});
    idx++;
  }
  x = nn::batch_flatten(x);
  x = nn::dropout(nn::relu(B.linear(x, "classifier.0", 4096)), 0.5);
  x = nn::dropout(nn::relu(B.linear(x, "classifier.3", 4096)), 0.5);
  return B.finish(data, B.linear(x, "classifier.6", num_classes));
}

Network mobilenet_v2(int64_t batch, const std::vector<int64_t>& image_shape, int64_t num_classes,
                     uint64_t seed) {
  Builder B(seed);
  Expr data = data_var(batch, image_shape);
  auto relu6 = [](const Expr& e) { return clip(e, 0.0, 6.0); };
  Expr x = relu6(B.bn(B.conv(data, "features.0.0", 32, 3, 2, 1), "features.0.1"));
  const int settings[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                              {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int64_t inp = 32;
  int f = 1;
  for (auto& st : settings) {
    for (int i = 0; i < st[2]; ++i) {
      int64_t t = st[0], oup = st[1], stride = i == 0 ? st[3] : 1, hidden = inp * t;
      std::string p = "features." + std::to_string(f++) + ".conv.";
      Expr y = x;
      int k = 0;
      if (t != 1) {
        y = relu6(B.bn(B.conv(y, p + std::to_string(k) + ".0", hidden, 1, 1, 0),
                       p + std::to_string(k) + ".1"));
        k++;
      }
      y = relu6(B.bn(B.conv(y, p + std::to_string(k) + ".0", hidden, 3, stride, 1, hidden),
                     p + std::to_string(k) + ".1"));
      k++;
      y = B.bn(B.conv(y, p + std::to_string(k), oup, 1, 1, 0), p + std::to_string(k + 1));
      x = (stride == 1 && inp == oup) ? add(x, y) : y;
      inp = oup;
    }
  }
  std::string last = "features." + std::to_string(f);
  x = relu6(B.bn(B.conv(x, last + ".0", 1280, 1, 1, 0), last + ".1"));
  x = nn::dropout(nn::batch_flatten(nn::global_avg_pool2d(x)), 0.2);
  return B.finish(data, B.linear(x, "classifier.1", num_classes));
}

}  // namespace minitvm::relay::testing
