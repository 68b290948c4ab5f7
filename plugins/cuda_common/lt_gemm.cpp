#include "lt_gemm.hpp"

#include <cstdlib>
#include <string>

#include "device_memory.hpp"
#include "plugin_support/plugin_error.hpp"

namespace algenta::cuda {
namespace {

void check_lt(cublasStatus_t status, const std::string& what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw plugin::StatusError{
      status == CUBLAS_STATUS_ALLOC_FAILED ? ALGENTA_STATUS_OUT_OF_MEMORY : ALGENTA_STATUS_DEVICE,
      "cuBLASLt " + what + ": status " + std::to_string(static_cast<int>(status)) + " (" +
          cublasLtGetStatusString(status) + ")"};
}

// A whole number from the environment in [low, high]; `fallback` when unset.
// Anything else is refused by name and range, never replaced by the default.
int setting_number(const char* name, int fallback, int low, int high) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  char* end = nullptr;
  const long number = std::strtol(value, &end, 10);
  if (*end != '\0' || number < low || number > high) {
    throw plugin::StatusError{ALGENTA_STATUS_INVALID_ARGUMENT,
                              std::string(name) + " must be a whole number from " +
                                  std::to_string(low) + " to " + std::to_string(high) +
                                  ", not '" + value + "'"};
  }
  return static_cast<int>(number);
}

std::string shape_text(int n, int k) {
  return "[" + std::to_string(n) + ", " + std::to_string(k) + "]";
}

}  // namespace

LtGemm::LtGemm(cudaDataType_t element_type, void* workspace, std::size_t workspace_bytes)
    : element_type_(element_type), workspace_(workspace), workspace_bytes_(workspace_bytes) {
  check_lt(cublasLtCreate(&handle_), "create");
  check_lt(cublasLtMatmulDescCreate(&operation_, CUBLAS_COMPUTE_32F, CUDA_R_32F),
           "matmul descriptor");
  // Column-major view: y^T [N, M] = w [K, N]^T x^T [K, M], i.e. TN.
  const cublasOperation_t transpose = CUBLAS_OP_T;
  const cublasOperation_t keep = CUBLAS_OP_N;
  check_lt(cublasLtMatmulDescSetAttribute(operation_, CUBLASLT_MATMUL_DESC_TRANSA, &transpose,
                                          sizeof(transpose)),
           "transpose A");
  check_lt(cublasLtMatmulDescSetAttribute(operation_, CUBLASLT_MATMUL_DESC_TRANSB, &keep,
                                          sizeof(keep)),
           "transpose B");
}

LtGemm::~LtGemm() {
  if (operation_ != nullptr) cublasLtMatmulDescDestroy(operation_);
  if (handle_ != nullptr) cublasLtDestroy(handle_);
}

LtGemm::Layouts LtGemm::make_layouts(int m, int n, int k) const {
  Layouts layouts;
  check_lt(cublasLtMatrixLayoutCreate(&layouts.w, element_type_, k, n, k), "layout W");
  check_lt(cublasLtMatrixLayoutCreate(&layouts.x, element_type_, k, m, k), "layout x");
  check_lt(cublasLtMatrixLayoutCreate(&layouts.y, CUDA_R_32F, n, m, n), "layout y");
  return layouts;
}

void LtGemm::destroy(Layouts& layouts) {
  if (layouts.w != nullptr) cublasLtMatrixLayoutDestroy(layouts.w);
  if (layouts.x != nullptr) cublasLtMatrixLayoutDestroy(layouts.x);
  if (layouts.y != nullptr) cublasLtMatrixLayoutDestroy(layouts.y);
}

void LtGemm::pin(int n, int k) {
  if (pinned_.count({n, k}) != 0) return;
  static const int representative_rows =
      setting_number("ALGENTA_CUDA_GEMM_PIN_ROWS", kRepresentativeRows, 16, 8192);
  Layouts layouts = make_layouts(representative_rows, n, k);
  cublasLtMatmulPreference_t preference = nullptr;
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  try {
    check_lt(cublasLtMatmulPreferenceCreate(&preference), "preference");
    const std::uint64_t workspace = workspace_bytes_;
    check_lt(cublasLtMatmulPreferenceSetAttribute(
                 preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace)),
             "workspace preference");
    // No split-K: a reduction over K partitions would make the order depend
    // on the problem size.
    const std::uint32_t no_reduction = CUBLASLT_REDUCTION_SCHEME_NONE;
    check_lt(cublasLtMatmulPreferenceSetAttribute(preference,
                                                  CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                                  &no_reduction, sizeof(no_reduction)),
             "reduction preference");
    check_lt(cublasLtMatmulAlgoGetHeuristic(handle_, operation_, layouts.w, layouts.x, layouts.y,
                                            layouts.y, preference, 1, &result, &found),
             "heuristic for " + shape_text(n, k));
  } catch (...) {
    if (preference != nullptr) cublasLtMatmulPreferenceDestroy(preference);
    destroy(layouts);
    throw;
  }
  cublasLtMatmulPreferenceDestroy(preference);
  destroy(layouts);
  if (found == 0) {
    throw plugin::StatusError{ALGENTA_STATUS_DEVICE, "cuBLASLt offers no algorithm without split-K "
                                                     "for weights " + shape_text(n, k)};
  }
  pinned_.emplace(std::make_pair(n, k), result.algo);
}

void LtGemm::run(const Element* x, const Element* w, float* y, int m, int n, int k,
                 bool accumulate, cudaStream_t stream) {
  const auto algo = pinned_.find({n, k});
  if (algo == pinned_.end()) {
    throw plugin::StatusError{ALGENTA_STATUS_INTERNAL,
                              "no pinned GEMM algorithm for weights " + shape_text(n, k)};
  }
  if (m == 0) return;
  Layouts layouts = make_layouts(m, n, k);
  const float one = 1.0f;
  const float beta = accumulate ? 1.0f : 0.0f;
  const cublasStatus_t status =
      cublasLtMatmul(handle_, operation_, &one, w, layouts.w, x, layouts.x, &beta, y, layouts.y, y,
                     layouts.y, &algo->second, workspace_, workspace_bytes_, stream);
  destroy(layouts);
  check_lt(status, "matmul " + std::to_string(m) + " x " + shape_text(n, k));
}

}  // namespace algenta::cuda
