// `campaign report CAMPAIGN -o report.html`: one self-contained page over every task — state,
// baseline and best time, speedup, candidates, accepts, verdict, time spent, a link to the task's
// own `asmevo report` page — with the geomean speedup and the total time. Derived from the stores.
#pragma once
#include <string>
#include <vector>

#include "campaign/state.h"

namespace asmevo::campaign {

// Geomean of the speedups of the tasks that are done (1 when none is).
double geomean_done(const std::vector<TaskStatus>& status);

std::string render_campaign_report(const Manifest& m, const std::vector<TaskStatus>& status, const std::string& report_path,
                                   const std::vector<std::string>& notes);
void write_campaign_report(const std::string& campaign, const std::string& out_path);

}  // namespace asmevo::campaign
