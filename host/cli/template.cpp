// `algenta-host template`: a model's chat template applied to messages, as
// the OpenAI server applies it, so a prompt can be checked against Hugging
// Face transformers. Prints the rendered text exactly as rendered (no newline
// added), or with --ids the token ids comma-separated on one line.
#include <iostream>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "files/file_caps.hpp"
#include "json/strict_json.hpp"
#include "prompt/model_text.hpp"

namespace algenta::host {
namespace {

using nlohmann::ordered_json;

// Messages and tool schemas nest a few levels; deeper is not a chat request.
constexpr std::size_t kMaxRequestJsonDepth = 128;

// Strict first (repeated keys, depth, trailing data refused), then kept in
// its key order: templates print dicts (tojson, items()) in that order.
ordered_json parse_request_json(const std::string& text, const std::string& name) {
  try {
    strict_json::parse(text, kMaxRequestJsonDepth);
  } catch (const strict_json::StrictJsonError& e) {
    const std::string where = strict_json::dotted_path(e.path);
    throw prompt::PromptError(name + " is not valid JSON" + (where.empty() ? std::string() : " at " + where) +
                              ": " + e.what() + (e.key.empty() ? std::string() : " (key \"" + e.key + "\")"));
  }
  return ordered_json::parse(text);
}

std::string joined_ids(const std::vector<std::int32_t>& ids) {
  std::string line;
  for (std::int32_t id : ids) line += (line.empty() ? "" : ",") + std::to_string(id);
  return line;
}

int render(const TemplateOptions& options) {
  std::optional<std::filesystem::path> override_path;
  if (!options.chat_template_file.empty()) override_path = options.chat_template_file;
  const prompt::ModelText model = prompt::ModelText::load(options.model_dir, override_path);

  std::string messages_text;
  try {
    messages_text = files::read_bounded(options.messages_file, files::kMessagesFileCap);
  } catch (const files::FileReadError& e) {
    throw prompt::PromptError(e.what());
  }
  const ordered_json messages = parse_request_json(messages_text, options.messages_file);
  const ordered_json extra = options.extra_json.empty() ? ordered_json::object()
                                                        : parse_request_json(options.extra_json, "--extra");
  chat::RenderOptions render_options;
  if (options.now) render_options.frozen_now = static_cast<std::time_t>(*options.now);

  if (options.ids) {
    std::cout << joined_ids(model.encode_chat(messages, options.add_generation_prompt, extra, render_options))
              << "\n";
  } else {
    const std::string text = model.render_chat(messages, options.add_generation_prompt, extra, render_options);
    std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  std::cout.flush();
  return kExitOk;
}

}  // namespace

int run_template(const TemplateOptions& options) {
  try {
    return render(options);
  } catch (const chat::TemplateError& e) {
    using chat::ErrorKind;
    if (e.kind() == ErrorKind::raised) {
      std::cerr << "algenta-host template: the chat template refused the messages: " << e.bare_message() << "\n";
      return kExitUsage;
    }
    const bool refused = e.kind() == ErrorKind::unsupported || e.kind() == ErrorKind::bound;
    std::cerr << "algenta-host template: " << (refused ? "refused: " : "") << "chat template ("
              << chat::error_kind_name(e.kind()) << "): " << e.what() << "\n";
    return refused ? kExitRefused : kExitUsage;
  } catch (const prompt::PromptError& e) {
    std::cerr << "algenta-host template: " << e.what() << "\n";
  } catch (const tokenizer::TokenizerError& e) {
    std::cerr << "algenta-host template: tokenizer: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "algenta-host template: " << e.what() << "\n";
  }
  return kExitUsage;
}

}  // namespace algenta::host
