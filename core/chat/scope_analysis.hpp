#pragma once
// jinja2 resolves names at compile time, per scope (the template, a loop body,
// a macro, a block set ...): a name a scope assigns, that it did not read
// before and that no enclosing scope knows, starts out *undefined* when the
// scope is entered - even where the context has a value under that name, and
// for loops and macros nested in the scope too. This pass mirrors jinja2's
// idtracking (Symbols: load/store/branch_update) and records those names.
#include "chat/ast.hpp"

namespace algenta::chat {

void analyze_scopes(ParsedTemplate& tmpl);

}  // namespace algenta::chat
