// Layout strings (layout.h).
#include "relay/layout.h"

#include <algorithm>
#include <cctype>

#include "minitvm/support/error.h"

namespace minitvm::relay::detail {

Layout Layout::parse(const std::string& s, const std::string& what) {
  Layout l;
  l.name = s;
  MINITVM_USER_CHECK(!s.empty()) << what << ": empty layout";
  size_t i = 0;
  while (i < s.size()) {
    char ch = s[i];
    if (std::isupper(static_cast<unsigned char>(ch))) {
      MINITVM_USER_CHECK(l.primal_index(ch) < 0)
          << what << ": layout '" << s << "' names axis " << ch << " twice";
      l.axes.push_back({ch, 0});
      ++i;
      continue;
    }
    MINITVM_USER_CHECK(std::isdigit(static_cast<unsigned char>(ch)))
        << what << ": layout '" << s << "': unexpected '" << ch << "' at position " << i
        << " (primal axes are upper-case letters, sub-axes a factor and a lower-case letter, as "
           "NCHW8c)";
    int64_t f = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      MINITVM_USER_CHECK(f < (int64_t{1} << 40))
          << what << ": layout '" << s << "': factor too large";
      f = f * 10 + (s[i++] - '0');
    }
    MINITVM_USER_CHECK(i < s.size() && std::islower(static_cast<unsigned char>(s[i])))
        << what << ": layout '" << s << "': the factor " << f
        << " must be followed by a lower-case axis letter";
    MINITVM_USER_CHECK(f >= 1) << what << ": layout '" << s << "': sub-axis factor must be >= 1";
    char p = static_cast<char>(std::toupper(static_cast<unsigned char>(s[i++])));
    MINITVM_USER_CHECK(l.sub_index(p) < 0)
        << what << ": layout '" << s << "' splits axis " << p << " twice";
    l.axes.push_back({p, f});
  }
  for (const auto& a : l.axes)
    MINITVM_USER_CHECK(a.factor == 0 || l.primal_index(a.primal) >= 0)
        << what << ": layout '" << s << "' has the sub-axis of " << a.primal << " but not "
        << a.primal << " itself";
  return l;
}

int64_t Layout::factor_of(char primal) const {
  int i = sub_index(primal);
  return i < 0 ? 0 : axes[i].factor;
}

int Layout::primal_index(char primal) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].primal == primal && axes[i].factor == 0) return static_cast<int>(i);
  return -1;
}

int Layout::sub_index(char primal) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].primal == primal && axes[i].factor != 0) return static_cast<int>(i);
  return -1;
}

std::map<char, int64_t> Layout::full_extents(const std::vector<int64_t>& shape) const {
  MINITVM_USER_CHECK(shape.size() == axes.size())
      << "layout '" << name << "' has " << axes.size() << " axes, the tensor " << shape.size();
  std::map<char, int64_t> full;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].factor != 0) {
      MINITVM_USER_CHECK(shape[i] == axes[i].factor)
          << "layout '" << name << "': axis " << i << " must have " << axes[i].factor
          << " elements, got " << shape[i];
      continue;
    }
    full[axes[i].primal] = shape[i] * std::max<int64_t>(factor_of(axes[i].primal), 1);
  }
  return full;
}

std::vector<int64_t> Layout::shape_of(const std::map<char, int64_t>& full,
                                      const std::string& what) const {
  std::vector<int64_t> r;
  for (const auto& a : axes) {
    auto it = full.find(a.primal);
    MINITVM_USER_CHECK(it != full.end()) << what << ": layout '" << name << "' has axis "
                                         << a.primal << " that the source layout does not";
    if (a.factor != 0) {
      r.push_back(a.factor);
      continue;
    }
    int64_t f = factor_of(a.primal);
    MINITVM_USER_CHECK(f == 0 || it->second % f == 0)
        << what << ": axis " << a.primal << " of " << it->second << " elements does not split by "
        << f << " (layout '" << name << "')";
    r.push_back(f == 0 ? it->second : it->second / f);
  }
  MINITVM_USER_CHECK(full.size() ==
                     static_cast<size_t>(std::count_if(
                         axes.begin(), axes.end(), [](const Axis& a) { return a.factor == 0; })))
      << what << ": layout '" << name << "' lacks a primal axis of the source layout";
  return r;
}

std::string Layout::blocked(const std::string& primal, char axis, int64_t factor) {
  if (factor == 0) return primal;
  return primal + std::to_string(factor) +
         static_cast<char>(std::tolower(static_cast<unsigned char>(axis)));
}

}  // namespace minitvm::relay::detail
