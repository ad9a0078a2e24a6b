// Naive C++ references for the topi tests (independent of the compiler).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <vector>

#include <minitvm/minitvm.h>

namespace topi_test {

inline std::vector<float> rnd(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

inline void expect_close(const std::vector<float>& got, const std::vector<float>& ref,
                         float tol = 1e-4f) {
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], ref[i], tol * std::max(1.0f, std::fabs(ref[i]))) << "at index " << i;
}

struct ConvShape {
  int n, ci, h, w, co, kh, kw;
  int sh = 1, sw = 1;
  std::array<int, 4> pad{0, 0, 0, 0};  // top, left, bottom, right
  int dh = 1, dw = 1;
  int oh() const { return (h + pad[0] + pad[2] - ((kh - 1) * dh + 1)) / sh + 1; }
  int ow() const { return (w + pad[1] + pad[3] - ((kw - 1) * dw + 1)) / sw + 1; }
};

/** conv2d NCHW; depthwise when `mult` > 0 (kernel (C, mult, KH, KW), co = ci*mult). */
inline std::vector<float> conv_ref(const ConvShape& s, const std::vector<float>& x,
                                   const std::vector<float>& k, int mult = 0) {
  int co = mult > 0 ? s.ci * mult : s.co, OH = s.oh(), OW = s.ow();
  std::vector<float> out(size_t(s.n) * co * OH * OW, 0.f);
  for (int b = 0; b < s.n; ++b)
    for (int f = 0; f < co; ++f)
      for (int y = 0; y < OH; ++y)
        for (int xx = 0; xx < OW; ++xx) {
          double acc = 0;
          int c0 = mult > 0 ? f / mult : 0, c1 = mult > 0 ? c0 + 1 : s.ci;
          for (int c = c0; c < c1; ++c)
            for (int ry = 0; ry < s.kh; ++ry)
              for (int rx = 0; rx < s.kw; ++rx) {
                int iy = y * s.sh + ry * s.dh - s.pad[0], ix = xx * s.sw + rx * s.dw - s.pad[1];
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                float kv = mult > 0 ? k[((size_t(c) * mult + f % mult) * s.kh + ry) * s.kw + rx]
                                    : k[((size_t(f) * s.ci + c) * s.kh + ry) * s.kw + rx];
                acc += double(x[((size_t(b) * s.ci + c) * s.h + iy) * s.w + ix]) * kv;
              }
          out[((size_t(b) * co + f) * OH + y) * OW + xx] = float(acc);
        }
  return out;
}

/** grouped conv2d NCHW: kernel (co, ci / groups, KH, KW); output channel f reads the input
 *  channels (f / (co / groups)) * (ci / groups) + c. */
inline std::vector<float> group_conv_ref(const ConvShape& s, int groups,
                                         const std::vector<float>& x, const std::vector<float>& k) {
  int OH = s.oh(), OW = s.ow(), cig = s.ci / groups, cog = s.co / groups;
  std::vector<float> out(size_t(s.n) * s.co * OH * OW, 0.f);
  for (int b = 0; b < s.n; ++b)
    for (int f = 0; f < s.co; ++f)
      for (int y = 0; y < OH; ++y)
        for (int xx = 0; xx < OW; ++xx) {
          double acc = 0;
          int g = f / cog;
          for (int c = 0; c < cig; ++c)
            for (int ry = 0; ry < s.kh; ++ry)
              for (int rx = 0; rx < s.kw; ++rx) {
                int iy = y * s.sh + ry * s.dh - s.pad[0], ix = xx * s.sw + rx * s.dw - s.pad[1];
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                acc += double(x[((size_t(b) * s.ci + g * cig + c) * s.h + iy) * s.w + ix]) *
                       k[((size_t(f) * cig + c) * s.kh + ry) * s.kw + rx];
              }
          out[((size_t(b) * s.co + f) * OH + y) * OW + xx] = float(acc);
        }
  return out;
}

inline std::vector<float> dense_ref(int B, int K, int N, const std::vector<float>& x,
                                    const std::vector<float>& w,
                                    const std::vector<float>* bias = nullptr) {
  std::vector<float> out(size_t(B) * N);
  for (int i = 0; i < B; ++i)
    for (int j = 0; j < N; ++j) {
      double acc = 0;
      for (int k = 0; k < K; ++k) acc += double(x[size_t(i) * K + k]) * w[size_t(j) * K + k];
      out[size_t(i) * N + j] = float(acc) + (bias ? (*bias)[j] : 0.f);
    }
  return out;
}

inline std::vector<int64_t> shape64(std::initializer_list<int> s) {
  return std::vector<int64_t>(s.begin(), s.end());
}

}  // namespace topi_test
