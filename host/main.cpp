// algenta-host: the command-line entry point.
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.hpp"

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (*doctor) return run_doctor(paths);
  return run_serve(paths, serve_options);
}
