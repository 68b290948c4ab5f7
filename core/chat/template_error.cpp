#include "chat/template_error.hpp"

namespace algenta::chat {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::syntax: return "syntax";
    case ErrorKind::unsupported: return "unsupported";
    case ErrorKind::raised: return "raised";
    case ErrorKind::runtime: return "runtime";
    case ErrorKind::bound: return "bound";
  }
  return "unknown";
}

static std::string with_position(ErrorKind kind, const std::string& message, SourcePos where) {
  if (kind == ErrorKind::raised || where.line == 0) return message;
  return "line " + std::to_string(where.line) + ":" + std::to_string(where.column) + ": " + message;
}

TemplateError::TemplateError(ErrorKind kind, std::string message, SourcePos where)
    : std::runtime_error(with_position(kind, message, where)), kind_(kind), where_(where),
      bare_(std::move(message)) {}

void fail(ErrorKind kind, const std::string& message, SourcePos where) {
  throw TemplateError(kind, message, where);
}

}  // namespace algenta::chat
