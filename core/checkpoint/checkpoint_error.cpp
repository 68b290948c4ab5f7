#include "checkpoint/checkpoint_error.hpp"

#include <utility>

namespace algenta::checkpoint {
namespace {

std::string compose(const std::string& file, const std::string& tensor, const std::string& message) {
  std::string text = file;
  if (!tensor.empty()) text += ": tensor " + shown_text(tensor);
  return text + ": " + message;
}

}  // namespace

CheckpointError::CheckpointError(std::string file, std::string tensor, std::string message)
    : std::runtime_error(compose(file, tensor, message)),
      file_(std::move(file)),
      tensor_(std::move(tensor)),
      message_(std::move(message)) {}

std::string shown_text(std::string_view text, std::size_t max_chars) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string shown = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == max_chars) {
      shown += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '"' || byte == '\\') {
      shown += '\\';
      shown += static_cast<char>(byte);
    } else if (byte >= 0x20 && byte < 0x7f) {
      shown += static_cast<char>(byte);
    } else {
      shown += "\\x";
      shown += kHex[byte >> 4];
      shown += kHex[byte & 0xf];
    }
  }
  return shown + "\"";
}

}  // namespace algenta::checkpoint
