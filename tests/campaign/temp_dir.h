// A scratch folder per test, removed afterwards.
#pragma once
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

namespace asmevo::campaign::test {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("asmevo-campaign-test-" + std::to_string(::getpid()) + "-" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

}  // namespace asmevo::campaign::test
