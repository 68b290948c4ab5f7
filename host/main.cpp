// algenta-host: the command-line entry point.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.hpp"

namespace {

using algenta::host::PrecisionOptions;

void add_precision_options(CLI::App* command, PrecisionOptions& options) {
  command->add_option("--precision", options.precision,
                      "precision policy the engine runs (exact | bf16, as the plugin declares; "
                      "default exact)");
  command->add_flag("--allow-weight-rounding", options.allow_weight_rounding,
                    "consent to rounding weights the engine cannot hold exactly (otherwise such "
                    "a checkpoint is refused at open)");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace algenta::host;
  CLI::App app{"algenta-host: serves LLM checkpoints on NVIDIA GPUs through verified plugins"};
  app.require_subcommand(1);

  HostPaths paths = default_host_paths();
  app.add_option("--plugins-root", paths.plugins_root,
                 "directory of signed plugin bundles (one subdirectory each)");
  app.add_option("--keyring", paths.keyring_dir, "directory of trusted public keys (*.pub)");
  app.add_option("--state-file", paths.state_file,
                 "file recording the highest manifest version accepted per key");

  CLI::App* doctor = app.add_subcommand(
      "doctor", "driver, GPUs, manifests and their verdicts, selected plugin, host libraries");

  ServeOptions serve_options;
  CLI::App* serve = app.add_subcommand("serve", "serve a checkpoint on the selected engine");
  serve->add_option("--backend,--plugin", serve_options.backend,
                    "auto | cuda | a plugin name (explicit override, e.g. cuda_sm80)");
  serve->add_flag("--allow-oracle", serve_options.allow_oracle,
                  "allow the cpu_oracle verification engine when named with --plugin");
  serve->add_flag("--backends", serve_options.list_backends,
                  "list every backend, its target and requirements, and whether this host meets "
                  "them");
  serve->add_option("--model", serve_options.model_dir, "prepared checkpoint directory");
  add_precision_options(serve, serve_options.precision);
  add_serve_flags(serve, serve_options);

  ConformOptions conform_options;
  CLI::App* conform = app.add_subcommand(
      "conform", "will a checkpoint run on a backend? (exit 0 supported, 3 pending the tensor "
                 "probe, 2 refused, 1 unusable input)");
  conform->add_option("checkpoint", conform_options.checkpoint_dir,
                      "Hugging Face checkpoint directory (config.json, safetensors)");
  conform->add_option("--backend", conform_options.backend,
                      "cuda | cpu_oracle | a plugin name | all")
      ->each([&](const std::string&) { conform_options.backend_defaulted = false; });
  conform->add_option("--json", conform_options.json_file, "also write the report as JSON");
  conform->add_flag("--probe", conform_options.probe,
                    "read the safetensors headers (never the data) and check every tensor");
  conform->add_flag("--table", conform_options.table,
                    "print the declared fact ranges and kernels per backend and family, and the "
                    "onboarded checkpoints");

  PrepareOptions prepare_options;
  CLI::App* prepare = app.add_subcommand(
      "prepare", "convert a checkpoint once into the resident format every engine reads");
  prepare->add_option("checkpoint", prepare_options.checkpoint_dir, "Hugging Face checkpoint")
      ->required();
  prepare->add_option("--out", prepare_options.out_dir, "output directory")->required();
  prepare->add_option("--dtype", prepare_options.dtype,
                      "weight dtype of the output: source (default: the stored values, "
                      "unchanged) or f32 | bf16 | f16 (rounds, and reports what changed)")
      ->check(CLI::IsMember({"source", "f32", "bf16", "f16"}));

  GenerateOptions generate_options;
  CLI::App* generate = app.add_subcommand(
      "generate", "greedy continuation of token ids on one engine (the direct way to run it)");
  generate->add_option("--model", generate_options.model_dir, "prepared checkpoint directory")
      ->required();
  generate->add_option("--plugin,--backend", generate_options.backend,
                       "auto | cuda | a plugin name (naming the oracle runs it)");
  generate->add_option("--prompt-ids", generate_options.prompt_ids, "comma-separated token ids")
      ->required()
      ->delimiter(',');
  generate->add_option("--max-tokens", generate_options.max_tokens, "tokens to generate")
      ->check(CLI::Range(1, 1 << 20));
  generate->add_option("--max-context", generate_options.max_context,
                       "tokens per sequence (0 = the model's maximum)");
  generate->add_option("--logits", generate_options.logits_file,
                       "write the logits of every prompt position and decode step (safetensors)");
  add_precision_options(generate, generate_options.precision);

  VerifyOptions verify_options;
  CLI::App* verify = app.add_subcommand(
      "verify", "correctness gates of an engine plugin against the cpu_oracle (exit 0 every gate "
                "ran and passed, 4 a gate failed or did not run)");
  verify->add_option("--model", verify_options.model_dir, "prepared checkpoint directory")
      ->required();
  verify->add_option("--plugin,--backend", verify_options.backend,
                     "auto | cuda | a plugin name (explicit override, e.g. cuda_sm80)");
  verify->add_flag("--allow-oracle", verify_options.allow_oracle,
                   "allow the cpu_oracle verification engine when named with --plugin");
  verify->add_option("--json", verify_options.json_file, "also write every result as JSON");
  add_precision_options(verify, verify_options.precision);
  verify->add_option("--transformers-reference", verify_options.transformers_reference,
                     "greedy tokens from Hugging Face transformers (JSON); without it the "
                     "transformers gate does not run");
  verify->add_option("--lengths", verify_options.lengths,
                     "prompt lengths of the oracle gate (default 256,550,1024,4096)")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24));
  verify->add_option("--tokens", verify_options.tokens,
                     "greedy tokens per oracle gate prompt (default 64)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 16));

  BenchOptions bench_options;
  CLI::App* bench = app.add_subcommand(
      "bench", "time prefill and decode per prompt length and generated tokens on a verified "
               "engine (exit 0 measured, 1 unusable input, 2 refused, 3 the engine failed)");
  bench->add_option("--model", bench_options.model_dir, "prepared checkpoint directory");
  bench->add_option("--synthetic-weights", bench_options.synthetic_seed,
                    "instead of --model: make the checkpoint prepare would write for --config, "
                    "with normally distributed weights from this seed, in a temporary directory");
  bench->add_option("--config", bench_options.config_file,
                    "config.json for --synthetic-weights");
  bench->add_option("--plugin,--backend", bench_options.backend,
                    "auto | cuda | a plugin name (explicit override, e.g. cuda_sm80)");
  bench->add_flag("--allow-oracle", bench_options.allow_oracle,
                  "allow the cpu_oracle verification engine when named with --plugin (it needs "
                  "no verify record)");
  add_precision_options(bench, bench_options.precision);
  bench->add_option("--shapes", bench_options.shapes,
                    "prompt lengths, comma-separated (default 256,550,1024,4096)");
  bench->add_option("--gen", bench_options.gen,
                    "generated tokens per run, comma-separated (default 64,256)");
  bench->add_option("--runs", bench_options.runs, "timed runs per cell (default 5)");
  bench->add_option("--warmup", bench_options.warmup,
                    "untimed runs per cell before the timed ones (default 1)");
  bench->add_option("--concurrency", bench_options.concurrency,
                    "sequences decoded together, comma-separated (default 1): each prompt is "
                    "prefilled in turn, then every decode step carries one token of each");
  bench->add_option("--json", bench_options.json_file,
                    "also write the results as JSON (schema algenta.bench/2)");

  KernelsOptions kernels_options;
  CLI::App* kernels = app.add_subcommand(
      "kernels", "the kernel inventory each plugin declares (name, role, module, families)");
  kernels->add_option("--backend", kernels_options.backend, "cuda | cpu_oracle | a plugin name | all");
  kernels->add_option("--family", kernels_options.family, "only kernels serving this family");
  kernels->add_flag("--json", kernels_options.json, "print the inventory as JSON");

  TemplateOptions template_options;
  CLI::App* chat_template = app.add_subcommand(
      "template", "apply a model's chat template to messages as transformers' apply_chat_template "
                  "does: prints the prompt text exactly (no newline added), or with --ids its token "
                  "ids comma-separated on one line (exit 1 unusable input or the template raised, "
                  "2 the template is outside the supported Jinja subset)");
  chat_template->add_option("--model", template_options.model_dir,
                            "checkpoint directory (tokenizer.json, tokenizer_config.json, "
                            "chat_template.jinja, generation_config.json)")
      ->required();
  chat_template->add_option("--messages", template_options.messages_file,
                            "JSON file holding the array of chat messages")
      ->required();
  chat_template->add_flag("--add-generation-prompt", template_options.add_generation_prompt,
                          "end with the header that starts the assistant's reply");
  chat_template->add_flag("--ids", template_options.ids,
                          "print the token ids (the text encoded without adding special tokens)");
  chat_template->add_option("--chat-template", template_options.chat_template_file,
                            "a template file to use instead of the model's");
  chat_template->add_option("--extra", template_options.extra_json,
                            "a JSON object of further template variables, e.g. "
                            "'{\"enable_thinking\": false}' or '{\"tools\": [...]}'");
  chat_template->add_option_function<std::int64_t>(
      "--now", [&](const std::int64_t& seconds) { template_options.now = seconds; },
      "the time strftime_now reports, in seconds since the epoch (UTC; "
                            "default: the local clock), for reproducible output");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (*doctor) return run_doctor(paths);
  if (*conform) return run_conform(paths, conform_options);
  if (*prepare) return run_prepare(prepare_options);
  if (*generate) return run_generate(paths, generate_options);
  if (*kernels) return run_kernels(paths, kernels_options);
  if (*verify) return run_verify(paths, verify_options);
  if (*bench) return run_bench(paths, bench_options);
  if (*chat_template) return run_template(template_options);
  return run_serve(paths, serve_options);
}
