// UTC timestamps in exactly one form, "YYYY-MM-DDTHH:MM:SSZ": no offsets, no
// fractions, no leap seconds, so one instant has one spelling and the signed
// bytes stay canonical. Calendar arithmetic is the proleptic Gregorian
// days-from-civil algorithm (no dependence on the process's time zone).
#include <array>
#include <cctype>
#include <cstdio>

#include "manifest/manifest.hpp"

namespace algenta::manifest {
namespace {

constexpr std::string_view kForm = "YYYY-MM-DDTHH:MM:SSZ";
constexpr std::int64_t kSecondsPerDay = 86400;
constexpr std::size_t kMaxShownChars = 40;

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = floor_div(y, 400);
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct CivilDate {
  std::int64_t year;
  unsigned month;
  unsigned day;
};

CivilDate civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = floor_div(z, 146097);
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned day = doy - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = static_cast<std::int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
  return {year, month, day};
}

bool is_leap_year(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned days_in_month(std::int64_t year, unsigned month) {
  static constexpr std::array<unsigned, 12> kDays{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap_year(year) ? 29 : kDays[month - 1];
}

// The text as it may appear in a message: printable ASCII only, bounded.
std::string shown(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < kMaxShownChars; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out.push_back(c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?');
  }
  out += text.size() > kMaxShownChars ? "...\"" : "\"";
  return out;
}

[[noreturn]] void fail(std::string_view text, const std::string& why) {
  throw ManifestError(shown(text) + " is not a UTC timestamp " + std::string(kForm) + ": " + why);
}

unsigned digits_at(std::string_view text, std::size_t offset, std::size_t count) {
  unsigned value = 0;
  for (std::size_t i = offset; i < offset + count; ++i) {
    value = value * 10 + static_cast<unsigned>(text[i] - '0');
  }
  return value;
}

void require_range(std::string_view text, const char* field, unsigned value, unsigned low,
                   unsigned high) {
  if (value < low || value > high) {
    fail(text, std::string(field) + " " + std::to_string(value) + " is outside " +
                   std::to_string(low) + ".." + std::to_string(high));
  }
}

}  // namespace

std::int64_t parse_utc_timestamp(std::string_view text) {
  if (text.size() != kForm.size()) {
    fail(text, "it is " + std::to_string(text.size()) + " characters, expected " +
                   std::to_string(kForm.size()));
  }
  for (std::size_t i = 0; i < kForm.size(); ++i) {
    const bool want_digit = kForm[i] >= 'A' && kForm[i] <= 'Z' && kForm[i] != 'T' && kForm[i] != 'Z';
    const bool ok = want_digit ? std::isdigit(static_cast<unsigned char>(text[i])) != 0
                               : text[i] == kForm[i];
    if (!ok) fail(text, "unexpected character at position " + std::to_string(i + 1));
  }
  const unsigned year = digits_at(text, 0, 4);
  const unsigned month = digits_at(text, 5, 2);
  const unsigned day = digits_at(text, 8, 2);
  const unsigned hour = digits_at(text, 11, 2);
  const unsigned minute = digits_at(text, 14, 2);
  const unsigned second = digits_at(text, 17, 2);
  require_range(text, "month", month, 1, 12);
  require_range(text, "day", day, 1, days_in_month(year, month));
  require_range(text, "hour", hour, 0, 23);
  require_range(text, "minute", minute, 0, 59);
  require_range(text, "second", second, 0, 59);
  return days_from_civil(year, month, day) * kSecondsPerDay + hour * 3600 + minute * 60 + second;
}

std::string format_utc_timestamp(std::int64_t unix_seconds) {
  const std::int64_t days = floor_div(unix_seconds, kSecondsPerDay);
  const std::int64_t second_of_day = unix_seconds - days * kSecondsPerDay;
  const CivilDate date = civil_from_days(days);
  if (date.year < 0 || date.year > 9999) {
    throw ManifestError("time " + std::to_string(unix_seconds) +
                        " s lies outside the years 0000-9999 a timestamp can spell");
  }
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ",
                static_cast<long long>(date.year), date.month, date.day,
                static_cast<long long>(second_of_day / 3600),
                static_cast<long long>(second_of_day / 60 % 60),
                static_cast<long long>(second_of_day % 60));
  return text.data();
}

}  // namespace algenta::manifest
