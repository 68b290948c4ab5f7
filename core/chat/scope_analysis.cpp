#include "chat/scope_analysis.hpp"

#include <map>
#include <vector>
#include <set>

namespace algenta::chat {
namespace {

enum class Load { resolve, alias, undefined, parameter };

// jinja2.idtracking.Symbols, keyed by name (one ref per name and scope).
struct Symbols {
  const Symbols* parent = nullptr;
  std::map<std::string, Load> loads;  // the refs defined in this scope
  std::set<std::string> stores;

  bool find_ref(const std::string& name) const {
    for (const Symbols* s = this; s; s = s->parent)
      if (s->loads.count(name)) return true;
    return false;
  }
  void load(const std::string& name) {
    if (!find_ref(name)) loads[name] = Load::resolve;
  }
  void store(const std::string& name) {
    stores.insert(name);
    if (loads.count(name)) return;
    loads[name] = parent && parent->find_ref(name) ? Load::alias : Load::undefined;
  }
  void parameter(const std::string& name) {
    stores.insert(name);
    loads[name] = Load::parameter;
  }
  // jinja2 3.1: a name first stored inside an if's branches is looked up at
  // entry (aliased to an enclosing scope's variable, or resolved from the context).
  void branch_update(const std::vector<Symbols>& branches) {
    std::set<std::string> branch_stores;
    for (const auto& b : branches)
      for (const auto& n : b.stores)
        if (!stores.count(n)) branch_stores.insert(n);
    for (const auto& b : branches) {
      for (const auto& [n, l] : b.loads) loads[n] = l;
      stores.insert(b.stores.begin(), b.stores.end());
    }
    for (const auto& n : branch_stores) loads[n] = parent && parent->find_ref(n) ? Load::alias : Load::resolve;
  }
  std::vector<std::string> undefined_names() const {
    std::vector<std::string> out;
    for (const auto& [n, l] : loads)
      if (l == Load::undefined) out.push_back(n);
    return out;
  }
};

void visit_expr(const Expr* e, Symbols& sym) {
  if (!e) return;
  if (e->kind == ExprKind::name) sym.load(e->name);
  visit_expr(e->operand.get(), sym);
  for (const auto& i : e->items) visit_expr(i.get(), sym);
  for (const auto& k : e->keywords) visit_expr(k.value.get(), sym);
}

void store_target(const Target& t, Symbols& sym) {
  if (!t.attribute.empty()) {
    sym.load(t.names[0]);  // ns.attr = ... reads ns
    return;
  }
  for (const auto& n : t.names) sym.store(n);
}

void analyze_body(Body& body, const Symbols* parent, std::vector<std::string>& undefined_at_entry,
                  const std::vector<std::string>& params, const Target* loop_target);

// The statements of one scope, at that scope's level (child scopes are
// analysed afterwards, against the finished parent).
void visit_stmt(Stmt& s, Symbols& sym);

void visit_if_chain(Stmt& s, std::size_t branch, Symbols& sym) {
  // jinja2: If(test, body, elif_=[If...], else_): three branches, the elifs
  // being nested Ifs with a body only.
  visit_expr(s.branches[branch].first.get(), sym);
  Symbols body = sym, rest = sym, other = sym;
  for (auto& st : s.branches[branch].second) visit_stmt(*st, body);
  if (branch == 0) {
    for (std::size_t k = 1; k < s.branches.size(); ++k) visit_if_chain(s, k, rest);
    for (auto& st : s.else_body) visit_stmt(*st, other);
    sym.branch_update({body, rest, other});
  } else {
    sym.branch_update({body, rest, other});  // rest and other stay empty for an elif
  }
}

void visit_stmt(Stmt& s, Symbols& sym) {
  switch (s.kind) {
    case StmtKind::text:
    case StmtKind::break_:
    case StmtKind::continue_: break;
    case StmtKind::output: visit_expr(s.expr.get(), sym); break;
    case StmtKind::if_: visit_if_chain(s, 0, sym); break;
    case StmtKind::for_: visit_expr(s.expr.get(), sym); break;  // only the iterable is read here
    case StmtKind::set:
      visit_expr(s.expr.get(), sym);
      store_target(s.target, sym);
      break;
    case StmtKind::set_block: store_target(s.target, sym); break;
    case StmtKind::macro: sym.store(s.macro->name); break;
    case StmtKind::filter_block:
      for (const auto& f : s.filters) visit_expr(f.get(), sym);
      break;
    case StmtKind::generation: break;
  }
}

// Child scopes of the statements in `body`, each against `scope`.
void analyze_children(Body& body, const Symbols& scope) {
  for (auto& sp : body) {
    Stmt& s = *sp;
    switch (s.kind) {
      case StmtKind::if_:
        for (auto& [test, branch] : s.branches) analyze_children(branch, scope);
        analyze_children(s.else_body, scope);
        break;
      case StmtKind::for_:
        analyze_body(s.body, &scope, s.body_undefined_at_entry, {}, &s.target);
        analyze_body(s.else_body, &scope, s.else_undefined_at_entry, {}, nullptr);
        break;
      case StmtKind::set_block:
      case StmtKind::filter_block:
      case StmtKind::generation: analyze_body(s.body, &scope, s.body_undefined_at_entry, {}, nullptr); break;
      case StmtKind::macro: {
        auto& def = const_cast<MacroDef&>(*s.macro);
        analyze_body(def.body, &scope, def.undefined_at_entry, def.params, nullptr);
        break;
      }
      default: break;
    }
  }
}

void analyze_body(Body& body, const Symbols* parent, std::vector<std::string>& undefined_at_entry,
                  const std::vector<std::string>& params, const Target* loop_target) {
  Symbols sym;
  sym.parent = parent;
  for (const auto& p : params) sym.parameter(p);
  if (loop_target)
    for (const auto& n : loop_target->names) sym.parameter(n);
  for (auto& s : body) visit_stmt(*s, sym);
  undefined_at_entry = sym.undefined_names();
  analyze_children(body, sym);
}

}  // namespace

void analyze_scopes(ParsedTemplate& tmpl) {
  analyze_body(tmpl.body, nullptr, tmpl.undefined_at_entry, {}, nullptr);
}

}  // namespace algenta::chat
