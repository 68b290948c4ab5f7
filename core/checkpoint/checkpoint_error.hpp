// The one error type of checkpoint reading and writing: which file, which
// tensor (when one is to blame), what is wrong and what is allowed.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace algenta::checkpoint {

// what() reads `<file>: tensor "<name>": <message>`, or `<file>: <message>`
// when no single tensor is to blame. The tensor name is shown escaped and
// bounded, because it comes from the file.
class CheckpointError : public std::runtime_error {
 public:
  CheckpointError(std::string file, std::string tensor, std::string message);

  const std::string& file() const noexcept { return file_; }
  const std::string& tensor() const noexcept { return tensor_; }
  const std::string& message() const noexcept { return message_; }

 private:
  std::string file_;
  std::string tensor_;
  std::string message_;
};

// Text from a file as it may appear in a message: printable ASCII, other
// bytes as \xNN, at most `max_chars` before "...", in double quotes.
std::string shown_text(std::string_view text, std::size_t max_chars = 120);

}  // namespace algenta::checkpoint
