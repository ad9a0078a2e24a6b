/** \file
 * Argument parsing of the `minitvm` subcommands and the benchmarks (CLI11, header-only).
 *
 *   CLI::App app = minitvm::cli::make_app("minitvm tune", "tune a template's config space",
 *                                         "usage: minitvm tune TEMPLATE ARGS... [--trials N] ...");
 *   int trials = 100;
 *   app.add_option("--trials", trials, "trials to run")->check(CLI::PositiveNumber);
 *   if (auto rc = minitvm::cli::parse(app, args)) return *rc;  // --help: 0; a usage error: 2
 *
 * The help text starts with the hand-written usage lines (the spellings the docs use), then the
 * description and CLI11's list of options. Usage errors (unknown option, a value that is not a
 * number or out of range, a missing argument) print one line naming the option and exit 2;
 * runtime failures are the command's own and exit 1.
 */
#pragma once

#include "minitvm/autotune/tuner_session.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace minitvm::cli {

/** CLI11's formatter with our usage lines in place of its generated one. */
class UsageFormatter : public CLI::Formatter {
 public:
  UsageFormatter(std::string usage, std::string description)
      : usage_(std::move(usage)), description_(std::move(description)) {
    column_width(34);
  }
  std::string make_description(const CLI::App*) const override { return ""; }
  std::string make_usage(const CLI::App*, std::string) const override {
    std::string s = usage_;
    if (!s.empty() && s.back() != '\n') s += '\n';
    if (!description_.empty()) s += "\n" + wrap(description_, 100) + "\n";
    return s;
  }

 private:
  std::string usage_, description_;

  static std::string wrap(const std::string& text, size_t width) {
    std::istringstream words(text);
    std::string out, line, w;
    while (words >> w) {
      if (!line.empty() && line.size() + 1 + w.size() > width) {
        out += line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + w;
    }
    return out + line;
  }
};

/** An app named `name` (as the user types it, e.g. "minitvm tune") with its usage text. */
inline std::unique_ptr<CLI::App> make_app(const std::string& name, const std::string& description,
                                          const std::string& usage) {
  auto app = std::make_unique<CLI::App>(description, name);
  app->formatter(std::make_shared<UsageFormatter>(usage, description));
  app->set_help_flag("-h,--help", "print this help and exit");
  return app;
}

/**
 * Parse `args` (the program and command names excluded) into `app`. Returns the exit code to stop
 * with: 0 after --help (the help on stdout), 2 for a usage error (the message and a hint on
 * stderr); nullopt when the command should go on.
 */
inline std::optional<int> parse(CLI::App& app, std::vector<std::string> args) {
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": " << e.what() << "\n"
              << "run '" << app.get_name() << " --help' for the usage\n";
    return 2;
  }
  return std::nullopt;
}

/** The same for a program's own argv (benchmarks). */
inline std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  return parse(app, std::vector<std::string>(argv + (argc > 0 ? 1 : 0), argv + std::max(argc, 1)));
}

/**
 * An integer option within [lo, hi], base 10 only (CLI11 alone would read "010" as octal, "-3" for
 * an unsigned option as a huge number): `->check(cli::Integer(1))`. The message names the value
 * and the range; CLI11 prefixes the option ("--trials: ...").
 */
inline CLI::Validator Integer(long long lo, long long hi = std::numeric_limits<long long>::max()) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        long long v = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec == std::errc::invalid_argument || end != s.data() + s.size())
          return "'" + s + "' is not an integer";
        if (ec == std::errc::result_out_of_range || v < lo || v > hi) {
          std::string range = hi == std::numeric_limits<long long>::max()
                                  ? "at least " + std::to_string(lo)
                                  : "from " + std::to_string(lo) + " to " + std::to_string(hi);
          return s + " is out of range (" + range + ")";
        }
        s = std::to_string(v);  // what CLI11 converts next: plain decimal
        return "";
      },
      lo == 0 ? "INT>=0" : (lo == 1 ? "INT>0" : "INT"));
}

/** A finite number >= lo: `->check(cli::Number(0))`. */
inline CLI::Validator Number(double lo) {
  return CLI::Validator(
      [lo](std::string& s) -> std::string {
        char* end = nullptr;
        double v = s.empty() ? 0 : std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v))
          return "'" + s + "' is not a number";
        if (v < lo) {
          std::ostringstream os;
          os << s << " is out of range (at least " << lo << ")";
          return os.str();
        }
        return "";
      },
      "NUMBER");
}

/** A validator for --target: a target minitvm can tune and build for (llvm, cuda, "cuda -emulate",
 *  nvptx), checked by the tuner library's own check_tuning_target. */
inline CLI::Validator BuildTarget() {
  return CLI::Validator(
      [](std::string& t) -> std::string {
        try {
          minitvm::autotune::check_tuning_target(t);
        } catch (const std::exception& e) {
          return e.what();
        }
        return "";
      },
      "TARGET");
}

}  // namespace minitvm::cli
