// asmevo report RUN.sqlite -o report.html
#include "cli/report.h"

#include <iostream>

#include "search/report.h"
#include "support/error.h"

namespace asmevo::cli {

CLI::App* add_report_command(CLI::App& app, ReportOptions& o) {
  auto* cmd = app.add_subcommand("report", "Write one self-contained HTML page about an optimize run's experiment store");
  cmd->add_option("db", o.db, "experiment store (the --db file of asmevo optimize); opened read-only")->required();
  cmd->add_option("-o,--output", o.output, "the HTML file to write (atomically)")->required();
  return cmd;
}

int run_report(const ReportOptions& o) {
  search::write_report(o.db, o.output);
  std::cout << "wrote " << o.output << "\n";
  return kExitOk;
}

}  // namespace asmevo::cli
