#include "cli/progress_bar.hpp"

#include <unistd.h>

#include <cstdio>

namespace algenta::host {

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), enabled_(::isatty(STDERR_FILENO) != 0) {}

ProgressBar::~ProgressBar() {
  if (enabled_ && last_permille_ >= 0) std::fputc('\n', stderr);
}

void ProgressBar::update(std::uint64_t done, std::uint64_t total) {
  if (!enabled_ || total == 0) return;
  const int permille = static_cast<int>(done * 1000 / total);
  if (permille == last_permille_) return;  // redraw only when it moves
  last_permille_ = permille;
  constexpr int kWidth = 30;
  const int filled = permille * kWidth / 1000;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  std::fprintf(stderr, "\r%s [%.*s%.*s] %5.1f%%  %.2f / %.2f GiB", label_.c_str(), filled,
               "##############################", kWidth - filled,
               "------------------------------", permille / 10.0, done / gib, total / gib);
  std::fflush(stderr);
}

}  // namespace algenta::host
