// Shared helpers of the fuzz harnesses: what counts as a finding, and a byte reader that turns
// the fuzzer's input into bounded integers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <typeinfo>

#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

namespace minitvm::fuzz {

/** A finding: print what happened and abort, so that libFuzzer (or the replay main) stops and
 * saves the input. */
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

/** Run `f`; a CompileError (a user mistake: InvalidConfig, PoolParamError, ...) is the accepted
 * answer to bad input and returns false, and so is a RuntimeError when `runtime_ok`. Any other
 * exception (InternalError, a raw std:: exception) is a finding. */
template <typename F>
bool accepts(const char* where, F&& f, bool runtime_ok = false) {
  try {
    f();
    return true;
  } catch (const InternalError& e) {
    finding(std::string(where) + ": InternalError: " + e.what());
  } catch (const CompileError&) {
    return false;
  } catch (const RuntimeError& e) {
    if (runtime_ok) return false;
    finding(std::string(where) + ": RuntimeError: " + e.what());
  } catch (const std::exception& e) {
    finding(std::string(where) + ": " + typeid(e).name() + ": " + e.what());
  } catch (...) {
    finding(std::string(where) + ": unknown exception");
  }
}

/** Reads integers from the input; past its end every read is 0. */
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool empty() const { return p_ >= end_; }
  size_t left() const { return empty() ? 0 : static_cast<size_t>(end_ - p_); }
  uint8_t u8() { return empty() ? 0 : *p_++; }
  /** A value in [lo, hi] (inclusive). */
  int64_t range(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    uint64_t v = 0;
    for (uint64_t s = span - 1; s; s >>= 8) v = (v << 8) | u8();
    return lo + static_cast<int64_t>(span ? v % span : v);
  }
  bool flag() { return u8() & 1; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

/** Silence warnings (they are not findings). */
inline void quiet() {
  static bool once = [] {
    set_warning_sink([](const std::string&) {});
    return true;
  }();
  (void)once;
}

}  // namespace minitvm::fuzz
