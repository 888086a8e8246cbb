// asmevo campaign init|run|status|report|deploy (and the internal `task`): campaigns over many
// kernels, on this machine or a Slurm cluster (campaign/, docs/campaign.md).
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "campaign/deploy.h"
#include "campaign/manifest.h"
#include "campaign/runner.h"
#include "campaign/slurm.h"

namespace asmevo::cli {

struct CampaignOptions {
  CLI::App *init = nullptr, *run = nullptr, *status = nullptr, *report = nullptr, *deploy = nullptr, *task = nullptr;
  // init
  std::vector<std::string> inputs, spec_dirs;
  std::string output;
  campaign::Settings defaults;
  bool force = false;
  // run / status / report
  std::string campaign, engine = "local", report_output;
  unsigned jobs = 1;
  campaign::SlurmOptions slurm;
  bool json = false;
  campaign::DeployOptions deploy_opts;
  campaign::RunnerOptions runner;
};

CLI::App* add_campaign_command(CLI::App& app, CampaignOptions& o);
int run_campaign(CampaignOptions& o);

}  // namespace asmevo::cli
