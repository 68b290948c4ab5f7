// A fresh directory under the system temp dir, removed with its contents.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace algenta::test {

class BenchTempDir {
 public:
  BenchTempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "bench-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~BenchTempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  BenchTempDir(const BenchTempDir&) = delete;
  BenchTempDir& operator=(const BenchTempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace algenta::test
