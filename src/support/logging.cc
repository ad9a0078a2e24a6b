#include "minitvm/support/logging.h"

#include <cstdlib>
#include <iostream>
#include <mutex>

namespace minitvm {
namespace {
std::mutex& sink_mutex() {
  static std::mutex m;
  return m;
}
WarningSink& sink() {
  static WarningSink s;
  return s;
}
}  // namespace

void log_warning(const std::string& msg) {
  WarningSink s;
  {
    std::lock_guard<std::mutex> lock(sink_mutex());
    s = sink();
  }
  if (s) {
    s(msg);
  } else {
    std::cerr << "[minitvm] warning: " << msg << std::endl;
  }
}

WarningSink set_warning_sink(WarningSink s) {
  std::lock_guard<std::mutex> lock(sink_mutex());
  WarningSink prev = std::move(sink());
  sink() = std::move(s);
  return prev;
}

WarningCapture::WarningCapture() {
  previous_ = set_warning_sink([this](const std::string& m) { messages_.push_back(m); });
}
WarningCapture::~WarningCapture() {
  set_warning_sink(std::move(previous_));
}

int debug_level() {
  static const int level = [] {
    const char* v = std::getenv("MINITVM_DEBUG");
    return v ? std::atoi(v) : 0;
  }();
  return level;
}

}  // namespace minitvm
