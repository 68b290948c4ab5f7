#pragma once
// The one error type rendering throws: what went wrong, where, and which kind
// of fact it is (so callers can tell a template's own raise_exception from a
// construct outside the supported subset).
#include <cstddef>
#include <stdexcept>
#include <string>

namespace algenta::chat {

enum class ErrorKind {
  syntax,       // the template text does not parse (as jinja2 would also refuse)
  unsupported,  // valid Jinja, but outside the subset this renderer implements
  raised,       // the template called raise_exception(message)
  runtime,      // a Python-level error jinja2 raises too (type error, undefined use)
  bound,        // a configured limit (depth, iterations, output bytes) was reached
};

const char* error_kind_name(ErrorKind kind);

struct SourcePos {
  std::size_t line = 0;    // 1-based; 0 when unknown
  std::size_t column = 0;  // 1-based
};

class TemplateError : public std::runtime_error {
 public:
  TemplateError(ErrorKind kind, std::string message, SourcePos where = {});
  ErrorKind kind() const { return kind_; }
  SourcePos where() const { return where_; }
  // The message alone, without the position prefix (raise_exception's text).
  const std::string& bare_message() const { return bare_; }

 private:
  ErrorKind kind_;
  SourcePos where_;
  std::string bare_;
};

[[noreturn]] void fail(ErrorKind kind, const std::string& message, SourcePos where = {});

}  // namespace algenta::chat
