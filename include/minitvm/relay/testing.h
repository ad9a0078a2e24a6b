/** \file
 * relay::testing: the seed network zoo, as graph functions with random weights from a seed.
 *
 * The definitions are torchvision's, whose layer shapes are exactly those the seed
 * logs in tophub/seed were tuned on: ResNet v1.5 (bottleneck stride on the 3x3
 * conv; 18/34 basic blocks, 50/101/152 bottlenecks), VGG 11/13/16/19 (conv + bias, optional BN),
 * MobileNetV2 (no expansion conv when t == 1, ReLU6 as clip(0, 6)). BatchNorm layers are present
 * (eval mode; relay::build simplifies them). Heads: global average pool (VGG: none, so any input
 * size works; at 224x224 torchvision's 7x7 adaptive pool is the identity) -> batch_flatten ->
 * dense + bias_add; VGG/MobileNetV2 keep their dropouts. No softmax (torchvision's outputs are
 * logits). The input is `data` (batch, 3, H, W); parameters are named like torchvision's
 * state_dict ("layer1.0.conv1.weight", "bn1.running_var", ...).
 *
 *   auto [mod, params] = relay::testing::resnet(50, 1);
 */
#pragma once

#include <cstdint>
#include <vector>

#include "minitvm/relay/expr.h"

namespace minitvm::relay::testing {

struct Network {
  Function mod;
  Params params;
};

Network resnet(int num_layers, int64_t batch = 1,
               const std::vector<int64_t>& image_shape = {3, 224, 224}, int64_t num_classes = 1000,
               uint64_t seed = 0);
Network vgg(int num_layers, int64_t batch = 1,
            const std::vector<int64_t>& image_shape = {3, 224, 224}, int64_t num_classes = 1000,
            bool batch_norm = false, uint64_t seed = 0);
Network mobilenet_v2(int64_t batch = 1, const std::vector<int64_t>& image_shape = {3, 224, 224},
                     int64_t num_classes = 1000, uint64_t seed = 0);

/** Deterministic uniform [lo, hi) float32 array (same values on every platform). */
runtime::NDArray random_uniform(const std::vector<int64_t>& shape, float lo, float hi,
                                uint64_t seed);

}  // namespace minitvm::relay::testing
