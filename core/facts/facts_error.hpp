// The one error type of config parsing: which file, which fact, what is wrong.
#pragma once

#include <stdexcept>
#include <string>

namespace algenta::facts {

// what() reads "<file>: <fact>: <message>". `fact` is the key path, e.g.
// "text_config.hidden_size", or "document" for the file as a whole.
class FactsError : public std::runtime_error {
 public:
  FactsError(std::string file, std::string fact, std::string message);

  const std::string& file() const noexcept { return file_; }
  const std::string& fact() const noexcept { return fact_; }
  const std::string& message() const noexcept { return message_; }

 private:
  std::string file_;
  std::string fact_;
  std::string message_;
};

}  // namespace algenta::facts
