// asmevo report RUN.sqlite -o report.html: the HTML page of an experiment store (search/report.h).
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace asmevo::cli {

struct ReportOptions {
  std::string db, output;
};
CLI::App* add_report_command(CLI::App& app, ReportOptions& opts);
int run_report(const ReportOptions& o);

}  // namespace asmevo::cli
