/** \file
 * Error channels of minitvm.
 *
 * - CompileError: the user's program, schedule, log or parameters are wrong. The message names the
 *   stage, axis, file or line involved. Raised with MINITVM_USER_CHECK / user_error().
 * - InternalError: a compiler invariant broke; the message says it is a compiler bug and carries
 *   the source location. Raised with MINITVM_ICHECK.
 * - InvalidConfig: a tuning config cannot be applied to a template; the tuner catches it and
 * records a failed measurement instead of stopping.
 * - RuntimeError: running a module failed (missing driver, argument mismatch, launch failure).
 *
 * All derive from minitvm::Error, which derives from std::runtime_error. Nothing in minitvm calls
 * assert() or abort() for user input.
 */
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace minitvm {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};
class CompileError : public Error {
 public:
  using Error::Error;
};
class InternalError : public Error {
 public:
  using Error::Error;
};
class InvalidConfig : public CompileError {
 public:
  using CompileError::CompileError;
};
class RuntimeError : public Error {
 public:
  using Error::Error;
};

namespace detail {
/** Collects a message with operator<< and throws E from its destructor. */
template <typename E>
class ErrorBuilder {
 public:
  explicit ErrorBuilder(std::string prefix = {}) { os_ << prefix; }
  ErrorBuilder(const ErrorBuilder&) = delete;
  ~ErrorBuilder() noexcept(false) {
    if (std::uncaught_exceptions() == uncaught_) throw E(os_.str());
  }
  template <typename T>
  ErrorBuilder& operator<<(const T& v) {
    os_ << v;
    return *this;
  }

 private:
  std::ostringstream os_;
  int uncaught_ = std::uncaught_exceptions();
};

inline std::string internal_prefix(const char* file, int line, const char* cond) {
  std::ostringstream os;
  os << "Internal error (this is a minitvm compiler bug) at " << file << ":" << line;
  if (cond) os << ": check `" << cond << "` failed";
  os << ": ";
  return os.str();
}
}  // namespace detail

}  // namespace minitvm

/** `MINITVM_USER_CHECK(cond) << "message";` throws CompileError when cond is false. */
#define MINITVM_USER_CHECK(cond) \
  if (cond) {                    \
  } else                         \
    ::minitvm::detail::ErrorBuilder<::minitvm::CompileError>()
/** `MINITVM_USER_ERROR << "message";` always throws CompileError. */
#define MINITVM_USER_ERROR ::minitvm::detail::ErrorBuilder<::minitvm::CompileError>()
/** `MINITVM_CONFIG_CHECK(cond) << "message";` throws InvalidConfig (tuner skips the candidate). */
#define MINITVM_CONFIG_CHECK(cond) \
  if (cond) {                      \
  } else                           \
    ::minitvm::detail::ErrorBuilder<::minitvm::InvalidConfig>()
/** `MINITVM_RUNTIME_CHECK(cond) << "message";` throws RuntimeError. */
#define MINITVM_RUNTIME_CHECK(cond) \
  if (cond) {                       \
  } else                            \
    ::minitvm::detail::ErrorBuilder<::minitvm::RuntimeError>()
/** `MINITVM_ICHECK(cond) << "message";` throws InternalError naming file and line. */
#define MINITVM_ICHECK(cond)                                   \
  if (cond) {                                                  \
  } else                                                       \
    ::minitvm::detail::ErrorBuilder<::minitvm::InternalError>( \
        ::minitvm::detail::internal_prefix(__FILE__, __LINE__, #cond))
#define MINITVM_INTERNAL_ERROR                               \
  ::minitvm::detail::ErrorBuilder<::minitvm::InternalError>( \
      ::minitvm::detail::internal_prefix(__FILE__, __LINE__, nullptr))
