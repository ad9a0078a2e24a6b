// SVG tuning curves.
#include "minitvm/devtools/tuner_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "minitvm/autotune/task.h"

namespace minitvm::autotune {
namespace {

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '&')
      o += "&amp;";
    else if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

/** A "nice" tick step (1, 2 or 5 times a power of ten) giving about `n` ticks over [0, hi]. */
double nice_step(double hi, int n) {
  if (!(hi > 0)) return 1;
  double raw = hi / n, p = std::pow(10.0, std::floor(std::log10(raw)));
  double m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string tuning_curves_svg(const std::vector<TuningCurve>& curves, const std::string& title,
                              const std::string& y_label) {
  const double W = 720, H = 440, L = 70, R = 190, T = 40, B = 50;
  size_t max_n = 1;
  double max_y = 0;
  for (const auto& c : curves) {
    max_n = std::max(max_n, c.best.size());
    for (double v : c.best)
      if (std::isfinite(v)) max_y = std::max(max_y, v);
  }
  double ystep = nice_step(max_y > 0 ? max_y : 1, 5);
  double ytop = std::ceil((max_y > 0 ? max_y : 1) / ystep) * ystep;
  double xstep = nice_step(static_cast<double>(max_n), 6);
  double xtop = std::max(1.0, std::ceil(static_cast<double>(max_n) / xstep) * xstep);
  auto px = [&](double trial) { return L + (W - L - R) * trial / xtop; };
  auto py = [&](double v) { return H - B - (H - T - B) * v / ytop; };
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                 "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" viewBox=\"0 0 " << W << ' ' << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << W / 2 - R / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">"
    << xml_escape(title) << "</text>\n";
  for (double y = 0; y <= ytop + 1e-9 * ytop; y += ystep) {
    s << "<line x1=\"" << L << "\" y1=\"" << py(y) << "\" x2=\"" << W - R << "\" y2=\"" << py(y)
      << "\" stroke=\"#ddd\"/>\n<text x=\"" << L - 6 << "\" y=\"" << py(y) + 4
      << "\" text-anchor=\"end\">" << num(y) << "</text>\n";
  }
  for (double x = 0; x <= xtop + 1e-9; x += xstep) {
    s << "<line x1=\"" << px(x) << "\" y1=\"" << H - B << "\" x2=\"" << px(x) << "\" y2=\""
      << H - B + 5 << "\" stroke=\"black\"/>\n<text x=\"" << px(x) << "\" y=\"" << H - B + 18
      << "\" text-anchor=\"middle\">" << num(x) << "</text>\n";
  }
  s << "<line x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B
    << "\" stroke=\"black\"/>\n";
  s << "<line x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L << "\" y2=\"" << H - B
    << "\" stroke=\"black\"/>\n";
  s << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12
    << "\" text-anchor=\"middle\">trials</text>\n";
  s << "<text transform=\"translate(18," << (T + H - B) / 2
    << ") rotate(-90)\" text-anchor=\"middle\">" << xml_escape(y_label) << "</text>\n";
  for (size_t c = 0; c < curves.size(); ++c) {
    const char* col = colors[c % 8];
    s << "<polyline fill=\"none\" stroke=\"" << col << "\" stroke-width=\"2\" points=\"";
    for (size_t i = 0; i < curves[c].best.size(); ++i) {
      double v = std::isfinite(curves[c].best[i]) ? curves[c].best[i] : 0;
      s << px(static_cast<double>(i + 1)) << ',' << py(v)
        << (i + 1 < curves[c].best.size() ? " " : "");
    }
    s << "\"/>\n";
    double ly = T + 10 + 20 * static_cast<double>(c);
    s << "<line x1=\"" << W - R + 15 << "\" y1=\"" << ly << "\" x2=\"" << W - R + 40 << "\" y2=\""
      << ly << "\" stroke=\"" << col << "\" stroke-width=\"3\"/>\n<text x=\"" << W - R + 46
      << "\" y=\"" << ly + 4 << "\">" << xml_escape(curves[c].label) << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

TuningCurve curve_from_records(const std::vector<Record>& records, const std::string& label,
                               std::string* unit) {
  TuningCurve c;
  c.label = label;
  double work = 0;
  std::string u = "1/s";
  if (!records.empty()) {
    const Record& r0 = records.front();
    if (find_template(r0.input.task_name)) {
      try {
        Task t(r0.input.task_name, r0.input.args, r0.input.target_str);
        work = t.flop() > 0 ? t.flop() : t.bytes();
        if (work > 0) u = t.throughput_unit();
      } catch (const std::exception&) {
        work = 0;
      }
    }
  }
  double best = 0;
  for (const Record& r : records) {
    if (r.result.error_no == 0 && !r.result.costs.empty()) {
      double cost = r.result.mean_cost();
      if (cost > 0 && cost < 1e9) best = std::max(best, work > 0 ? work / cost / 1e9 : 1.0 / cost);
    }
    c.best.push_back(best);
  }
  if (unit) *unit = u;
  return c;
}

}  // namespace minitvm::autotune
