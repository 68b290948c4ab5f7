/*
 * The smallest complete plugin a third party can ship: plain C, built against
 * core/include/algenta/plugin_abi.h alone. Tests build it in variants through
 * compile definitions (name, target, ABI major, a constructor marker).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algenta/plugin_abi.h"

#ifndef PLUGIN_NAME
#define PLUGIN_NAME "acme_engine"
#endif
#ifndef PLUGIN_TARGET
#define PLUGIN_TARGET "sm_86"
#endif
#ifndef PLUGIN_ABI_MAJOR
#define PLUGIN_ABI_MAJOR ALGENTA_ABI_MAJOR
#endif

#ifdef PLUGIN_WRITES_MARKER
/* Runs at load time: if this file is ever loaded, the marker appears. */
__attribute__((constructor)) static void write_marker(void) {
  const char* path = getenv("ALGENTA_TEST_MARKER");
  if (path != NULL) {
    FILE* f = fopen(path, "w");
    if (f != NULL) {
      fputs("loaded\n", f);
      fclose(f);
    }
  }
}
#endif

#ifdef PLUGIN_CALLS_DEPENDENCY
/* Keeps libalgenta_testdep.so.1 a NEEDED entry: resolved at load time. */
int algenta_test_dependency_answer(void);
__attribute__((used)) static int (*const kDependency)(void) = algenta_test_dependency_answer;
#endif

struct AlgentaError {
  AlgentaStatusCode code;
  const char* message;
};

static const char* const kFamilies[] = {"llama"};
static const AlgentaKernelInfo kKernels[] = {
    {sizeof(AlgentaKernelInfo), "none", "none", "tests/plugins/minimal_plugin.c", "*"}};

static const AlgentaDescriptor kDescriptor = {
    sizeof(AlgentaDescriptor), PLUGIN_NAME, ALGENTA_ROLE_ENGINE, PLUGIN_TARGET, "test",
    kFamilies, 1, NULL, 0, kKernels, 1, NULL, 0, NULL};

static struct AlgentaError kUnimplemented = {ALGENTA_STATUS_UNIMPLEMENTED,
                                             PLUGIN_NAME " runs no models"};

static void error_destroy(AlgentaError* error) { (void)error; /* static */ }
static AlgentaStatusCode error_code(const AlgentaError* error) { return error->code; }
static void error_message(const AlgentaError* error, const char** message, size_t* size) {
  *message = error->message;
  *size = strlen(error->message);
}
static AlgentaError* engine_open(AlgentaEngineOpen_Args* args) {
  (void)args;
  return &kUnimplemented;
}
static AlgentaError* engine_step(AlgentaEngineStep_Args* args) {
  (void)args;
  return &kUnimplemented;
}
static AlgentaError* sequences_free(AlgentaSequencesFree_Args* args) {
  (void)args;
  return &kUnimplemented;
}
static AlgentaError* memory_report(AlgentaMemoryReport_Args* args) {
  (void)args;
  return &kUnimplemented;
}
static void engine_close(AlgentaEngine* engine) { (void)engine; }

static const AlgentaPluginV1 kTable = {
    sizeof(AlgentaPluginV1), PLUGIN_ABI_MAJOR, ALGENTA_ABI_MINOR, &kDescriptor,
    error_destroy,           error_code,       error_message,     engine_open,
    engine_step,             sequences_free,   memory_report,     engine_close};

ALGENTA_EXPORT const AlgentaPluginV1* algenta_plugin_entry(uint32_t host_abi_major) {
  return host_abi_major == PLUGIN_ABI_MAJOR ? &kTable : NULL;
}
