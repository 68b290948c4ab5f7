#include "cli/serve_weights.hpp"

#include <filesystem>
#include <stdexcept>

#include "cli/checkpoint_probe.hpp"
#include "facts/config_parse.hpp"
#include "facts/facts_error.hpp"
#include "synthetic/weights_flags.hpp"

namespace algenta::host {

struct ServeWeights::Plan {
  std::string config_text;
  facts::ModelFacts model;
  synthetic::SyntheticWeights weights;
};

ServeWeights::ServeWeights(const ServeOptions& options) {
  synthetic::WeightsChoice choice = synthetic::check_weights_flags(
      {options.model_dir, options.synthetic_seed, options.config_file}, "serve");
  if (choice.seed && !options.chat_template.empty()) {
    choice.errors.push_back("--chat-template " + options.chat_template +
                            " needs a tokenizer, and --synthetic-weights serves without one");
  }
  if (!choice.errors.empty()) throw WeightsRefused{kExitUsage, std::move(choice.errors)};
  seed_ = choice.seed;
  if (!seed_) {
    model_dir_ = options.model_dir;
    std::error_code ignored;  // a path that cannot be resolved is named as given
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(model_dir_, ignored);
    default_name_ = (resolved.empty() ? std::filesystem::path(model_dir_) : resolved)
                        .filename()
                        .string();
    return;
  }
  plan_ = std::make_unique<Plan>();
  try {
    plan_->config_text = read_config_flag(options.config_file);
    plan_->model = facts::parse_model_facts(plan_->config_text, options.config_file);
  } catch (const std::invalid_argument& e) {
    throw WeightsRefused{kExitUsage, {e.what()}};
  } catch (const facts::FactsError& e) {
    throw WeightsRefused{kExitUsage, {e.what()}};
  }
  if (const auto refusals = unconvertible_model(plan_->model); !refusals.empty()) {
    std::vector<std::string> lines;
    for (const facts::Refusal& r : refusals) lines.push_back("refused: " + r.message);
    throw WeightsRefused{kExitRefused, std::move(lines)};
  }
  try {
    plan_->weights = synthetic::synthetic_weights_for(plan_->model, plan_->config_text,
                                                      options.config_file, *seed_);
  } catch (const std::invalid_argument& e) {
    throw WeightsRefused{kExitUsage, {e.what()}};
  }
  default_name_ = plan_->model.model_type + "-synthetic";
}

ServeWeights::~ServeWeights() = default;

void ServeWeights::make() {
  if (!plan_ || made_) return;
  made_ = std::make_unique<SyntheticCheckpoint>("algenta-host serve", plan_->config_text,
                                                plan_->model, plan_->weights);
  model_dir_ = made_->dir().string();
}

}  // namespace algenta::host
