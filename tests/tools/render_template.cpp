// algenta_render_template TEMPLATE CONTEXTS.json [--now EPOCH_SECONDS]
// Renders the chat template once per context in the JSON list and prints a
// JSON list with {"output": text} or {"error": message, "kind": kind} each.
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "chat/chat_template.hpp"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::ordered_json error_json(const algenta::chat::TemplateError& e) {
  return {{"error", e.kind() == algenta::chat::ErrorKind::raised ? e.bare_message() : std::string(e.what())},
          {"kind", algenta::chat::error_kind_name(e.kind())}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5) {
    std::cerr << "usage: algenta_render_template TEMPLATE CONTEXTS.json [--now EPOCH_SECONDS]\n";
    return 2;
  }
  try {
    algenta::chat::RenderOptions options;
    if (argc == 5) {
      if (std::string(argv[3]) != "--now") throw std::runtime_error("unknown option " + std::string(argv[3]));
      options.frozen_now = static_cast<std::time_t>(std::stoll(argv[4]));
    }
    std::string source = read_file(argv[1]);
    auto contexts = nlohmann::ordered_json::parse(read_file(argv[2]));
    if (!contexts.is_array()) throw std::runtime_error(std::string(argv[2]) + " must hold a JSON list of contexts");
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    std::optional<algenta::chat::ChatTemplate> tmpl;
    std::optional<nlohmann::ordered_json> parse_error;
    try {
      tmpl.emplace(source, options.limits);
    } catch (const algenta::chat::TemplateError& e) {
      parse_error = error_json(e);
    }
    for (const auto& ctx : contexts) {
      if (parse_error) {
        results.push_back(*parse_error);
        continue;
      }
      try {
        results.push_back({{"output", tmpl->render(ctx, options)}});
      } catch (const algenta::chat::TemplateError& e) {
        results.push_back(error_json(e));
      }
    }
    std::cout << results.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::strict) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "algenta_render_template: " << e.what() << "\n";
    return 1;
  }
}
