// The transport's command-line flags, so `serve` and the test server share
// their names, defaults and help text.
#pragma once

#include "http/server.hpp"

// CLI11's App, declared only (its header costs seconds per file).
namespace CLI {
class App;
}

namespace algenta::http {

// --host, --port, --http-threads, --handler-threads and one flag per limit.
void add_server_options(CLI::App& app, ServerOptions& options);

}  // namespace algenta::http
