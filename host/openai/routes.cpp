#include "openai/routes.hpp"

#include <array>
#include <utility>

#include "openai/errors.hpp"

namespace algenta::openai {
namespace {

constexpr std::array<std::pair<std::string_view, Route>, 15> kPaths{{
    {"/v1/chat/completions", Route::chat_completions},
    {"/chat/completions", Route::chat_completions},
    {"/v1/completions", Route::completions},
    {"/completions", Route::completions},
    {"/v1/models", Route::models},
    {"/models", Route::models},
    {"/health", Route::health},
    {"/ready", Route::ready},
    {"/metrics", Route::metrics},
    {"/v1/embeddings", Route::embeddings},
    {"/embeddings", Route::embeddings},
    {"/v1/rerank", Route::rerank},
    {"/rerank", Route::rerank},
    {"/v2/rerank", Route::rerank},
    {"/v1/score", Route::rerank},
}};

std::string_view without_trailing_slash(std::string_view path) {
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

constexpr std::string_view kModelPrefix = "/v1/models/";
constexpr std::string_view kShortModelPrefix = "/models/";

}  // namespace

Route match_route(std::string_view path) {
  path = without_trailing_slash(path);
  for (const auto& [p, route] : kPaths) {
    if (p == path) return route;
  }
  for (std::string_view prefix : {kModelPrefix, kShortModelPrefix}) {
    if (path.size() > prefix.size() && path.substr(0, prefix.size()) == prefix) return Route::model;
  }
  return Route::unknown;
}

std::string model_in_path(std::string_view path) {
  path = without_trailing_slash(path);
  for (std::string_view prefix : {kModelPrefix, kShortModelPrefix}) {
    if (path.substr(0, prefix.size()) == prefix) return std::string(path.substr(prefix.size()));
  }
  return {};
}

const char* route_method(Route route) {
  switch (route) {
    case Route::chat_completions:
    case Route::completions: return "POST";
    case Route::models:
    case Route::model:
    case Route::health:
    case Route::ready:
    case Route::metrics: return "GET";
    default: return "";
  }
}

const char* route_name(Route route) {
  switch (route) {
    case Route::chat_completions: return "chat_completions";
    case Route::completions: return "completions";
    case Route::models: return "models";
    case Route::model: return "model";
    case Route::health: return "health";
    case Route::ready: return "ready";
    case Route::metrics: return "metrics";
    default: return "other";
  }
}

bool route_needs_key(Route route) { return route != Route::health && route != Route::ready; }

Route resolve_route(std::string_view method, std::string_view path) {
  const Route route = match_route(path);
  switch (route) {
    case Route::unknown:
      throw ApiError(ErrorKind::route_not_found,
                     "no endpoint " + std::string(method) + " " + std::string(path));
    case Route::embeddings:
    case Route::rerank:
      throw ApiError(ErrorKind::route_not_found,
                     std::string(path) + " is not served by this server (yet)");
    default: break;
  }
  const bool head_of_get = method == "HEAD" && std::string_view(route_method(route)) == "GET";
  if (method != route_method(route) && !head_of_get) {
    throw ApiError(ErrorKind::method_not_allowed, std::string(path) + " accepts " +
                                                      route_method(route) + ", not " +
                                                      std::string(method));
  }
  return route;
}

}  // namespace algenta::openai
