#include "device_forward.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/engine_settings.hpp"

namespace algenta::cuda {
namespace {

void check_launch(cudaError_t status, const char* kernel) {
  check_cuda(status, std::string("launching ") + kernel);
}

// With ALGENTA_CUDA_ROPE_IN_ATTENTION=1 decode attention does
// qkv_rope_cache's work in its prologue (one launch a layer fewer, the same
// bits: attention_exactness compares the two). Off by default until verify
// and bench have run with it on a card (docs/performance.md).
bool decode_rope_in_attention() {
  static const bool fused = setting_is_on("ALGENTA_CUDA_ROPE_IN_ATTENTION");
  return fused;
}

}  // namespace

PagedKv KvPool::layer(std::size_t index, const std::int32_t* block_tables, int max_blocks,
                      int kv_heads, int head_dim) const {
  float* keys = base + (2 * index) * blocks * block_floats;
  float* values = keys + blocks * block_floats;
  return {keys, values, block_tables, max_blocks, kv_heads, head_dim};
}

std::uint64_t KvPool::bytes(std::size_t layers) const {
  return static_cast<std::uint64_t>(2 * layers) * blocks * block_floats * sizeof(float);
}

DeviceForward::DeviceForward(const decoder::ModelShape& shape,
                             const decoder::FamilyDescription& family, const DeviceWeights& weights,
                             const Workspace& workspace, const PassLimits& limits,
                             const KvPool& kv, LtGemm& gemm, Precision precision)
    : shape_(shape),
      family_(family),
      weights_(weights),
      ws_(workspace),
      limits_(limits),
      kv_(kv),
      gemm_(gemm),
      lo_halves_(precision == Precision::exact),
      // as transformers: head_dim ** -0.5 in Python, then f32
      attention_scale_(static_cast<float>(1.0 / std::sqrt(static_cast<double>(shape.head_dim)))) {}

float* DeviceForward::logits() const { return ws_.at<float>(ws_.logits); }
RowMeta* DeviceForward::rows() const { return ws_.at<RowMeta>(ws_.rows); }
std::int32_t* DeviceForward::block_tables() const { return ws_.at<std::int32_t>(ws_.block_tables); }
std::int32_t* DeviceForward::logit_rows() const { return ws_.at<std::int32_t>(ws_.logit_rows); }
std::int32_t* DeviceForward::greedy_tokens() const {
  return ws_.at<std::int32_t>(ws_.greedy_tokens);
}

// The prefill GEMMs: hi + lo carry the fp32 activations to tensor cores
// with ~16 mantissa bits (exact); the bf16 policy takes hi alone. They run
// on input halves already in the workspace (written by the norm, SwiGLU or
// attention kernel before them). Stacked (lo's rows right after hi's, as
// halves() lays them out while 2 rows fit the workspace): one GEMM over both
// writes the hi and the lo products apart, and the kernel that reads the
// output adds the lo part (returned) as the second GEMM's beta = 1 epilogue
// would have: half the launches and one read of the weights. Otherwise hi,
// then lo accumulated (returns null).
const float* DeviceForward::project_halves(const Element* weight, float* output, int rows, int n,
                                           int k, cudaStream_t stream, bool may_stack) const {
  const Halves in = halves(rows, k);
  if (in.lo != nullptr && may_stack && stacks(rows)) {
    gemm_.run(in.hi, weight, output, 2 * rows, n, k, /*accumulate=*/false, stream);
    return output + static_cast<std::size_t>(rows) * n;
  }
  gemm_.run(in.hi, weight, output, rows, n, k, /*accumulate=*/false, stream);
  if (in.lo != nullptr) gemm_.run(in.lo, weight, output, rows, n, k, /*accumulate=*/true, stream);
  return nullptr;
}

// Stacked unless ALGENTA_CUDA_STACKED_HALVES=0 (two GEMMs, to compare): the
// same bits either way (prefill_gemm_exactness, attention_exactness), so the
// choice may follow the pass's rows.
bool DeviceForward::stacks(int rows) const {
  static const bool allowed = setting_is_not_off("ALGENTA_CUDA_STACKED_HALVES");
  return allowed && 2 * rows <= limits_.max_rows;
}

DeviceForward::Halves DeviceForward::halves(int rows, int k) const {
  Element* hi = ws_.at<Element>(ws_.hi);
  if (!lo_halves_) return {hi, nullptr};
  if (2 * rows <= limits_.max_rows) return {hi, hi + static_cast<std::size_t>(rows) * k};
  return {hi, ws_.at<Element>(ws_.lo)};
}

void DeviceForward::attend(std::size_t layer, int row_count, PassForm form, int decode_splits,
                           cudaStream_t stream, const float* qkv_lo) const {
  const HeadShape heads{static_cast<int>(shape_.heads), static_cast<int>(shape_.kv_heads),
                        static_cast<int>(shape_.head_dim)};
  const PagedKv kv = kv_.layer(layer, block_tables(), limits_.max_blocks, heads.kv_heads,
                               heads.head_dim);
  const int qkv_stride = static_cast<int>(shape_.q_dim() + 2 * shape_.kv_dim());
  float* qkv = ws_.at<float>(ws_.qkv);
  float* out = ws_.at<float>(ws_.attention);
  const DeviceLayer w = weights_.layer(layer);
  const HeadTransform transform{w.qkv_bias, w.q_norm, w.k_norm, shape_.rms_norm_eps,
                                ws_.at<float>(ws_.rope_cos), ws_.at<float>(ws_.rope_sin),
                                !lo_halves_};
  const bool fused = form == PassForm::decode && decode_rope_in_attention();
  if (!fused) {
    check_launch(
        launch_qkv_rope_cache(qkv, qkv_lo, transform, rows(), row_count, heads, kv, stream),
        "qkv_rope_cache");
  }
  if (form == PassForm::decode) {
    check_launch(launch_attention_decode(qkv, qkv_stride, rows(), row_count, heads, kv,
                                         fused ? &transform : nullptr, attention_scale_,
                                         decode_splits, ws_.at<float>(ws_.partials),
                                         ws_.at<unsigned int>(ws_.decode_tickets), out, stream),
                 "attention_decode");
  } else {
    // The o projection's input halves, written by attention itself.
    const Halves o_in = halves(row_count, heads.heads * heads.head_dim);
    check_launch(launch_attention_prefill_hi_lo(qkv, qkv_stride, rows(), row_count, heads, kv,
                                                attention_scale_, lo_halves_, out, o_in.hi,
                                                o_in.lo, stream),
                 "attention_prefill");
  }
}

void DeviceForward::layers(int row_count, PassForm form, cudaStream_t stream,
                           int decode_splits) const {
  const int rows = row_count;
  const int splits = decode_splits > 0 ? std::min(decode_splits, limits_.max_splits) : limits_.max_splits;
  const int hidden = static_cast<int>(shape_.hidden);
  const int q_dim = static_cast<int>(shape_.q_dim());
  const int qkv_width = static_cast<int>(shape_.q_dim() + 2 * shape_.kv_dim());
  const int inter = static_cast<int>(shape_.intermediate);
  float* x = ws_.at<float>(ws_.x);
  float* delta = ws_.at<float>(ws_.delta);
  float* gate_up = ws_.at<float>(ws_.gate_up);
  const float* delta_lo = nullptr;  // the lo part of delta, where its GEMM left it apart

  check_launch(launch_embed(weights_.embed_tokens(), this->rows(), rows, hidden, x, stream),
               "embed");
  for (std::size_t l = 0; l < shape_.layers; ++l) {
    if (form == PassForm::decode) {
      decode_layer(l, rows, splits, stream);
      continue;
    }
    // The norms and SwiGLU write the next GEMM's input halves themselves and
    // add the lo part of the GEMM output they read (project_halves).
    const DeviceLayer w = weights_.layer(l);
    Halves in = halves(rows, hidden);
    check_launch(launch_rmsnorm_residual_hi_lo(x, l == 0 ? nullptr : delta, delta_lo, nullptr,
                                               w.input_norm, rows, hidden, shape_.rms_norm_eps,
                                               in.hi, in.lo, stream),
                 "rmsnorm_residual");
    const float* qkv_lo = project_halves(w.qkv, ws_.at<float>(ws_.qkv), rows, qkv_width, hidden,
                                         stream);
    attend(l, rows, form, splits, stream, qkv_lo);
    delta_lo = project_halves(w.o, delta, rows, hidden, q_dim, stream);
    in = halves(rows, hidden);
    check_launch(launch_rmsnorm_residual_hi_lo(x, delta, delta_lo, w.o_bias, w.post_attention_norm,
                                               rows, hidden, shape_.rms_norm_eps, in.hi, in.lo,
                                               stream),
                 "rmsnorm_residual");
    const float* gate_up_lo = project_halves(w.gate_up, gate_up, rows, 2 * inter, hidden, stream);
    in = halves(rows, inter);
    check_launch(launch_swiglu_hi_lo(gate_up, gate_up_lo, rows, inter, in.hi, in.lo, stream),
                 "swiglu");
    // The last layer's delta goes to the final norm whole.
    delta_lo = project_halves(w.down, delta, rows, hidden, inter, stream,
                              /*may_stack=*/l + 1 < shape_.layers);
  }
}

// The decode GEMMs' input norm(x): the norm inside the GEMM for a few rows;
// past kMaxFusedNormRows (each block would compute every row's norm) the
// norm kernel first, which gives the same bits.
DecodeGemmInput DeviceForward::normed_input(const float* norm_weight, int rows,
                                            cudaStream_t stream) const {
  float* x = ws_.at<float>(ws_.x);
  if (rows <= kMaxFusedNormRows) return {x, norm_weight, shape_.rms_norm_eps};
  float* normed = ws_.at<float>(ws_.normed);
  check_launch(launch_rmsnorm_residual(x, nullptr, nullptr, norm_weight, nullptr, rows,
                                       static_cast<int>(shape_.hidden), shape_.rms_norm_eps,
                                       normed, stream),
               "rmsnorm_residual");
  return {normed, nullptr, 0.f};
}

// A decode layer in four GEMMs, qkv_rope_cache and attention: the norms ride
// in the GEMMs' prologues, SwiGLU in the gate_up GEMM's epilogue, and the
// o and down GEMMs add their output to x themselves (no delta is left).
void DeviceForward::decode_layer(std::size_t layer, int rows, int splits,
                                 cudaStream_t stream) const {
  const DeviceLayer w = weights_.layer(layer);
  const int hidden = static_cast<int>(shape_.hidden);
  const int q_dim = static_cast<int>(shape_.q_dim());
  const int qkv_width = static_cast<int>(shape_.q_dim() + 2 * shape_.kv_dim());
  const int inter = static_cast<int>(shape_.intermediate);
  float* x = ws_.at<float>(ws_.x);
  float* activation = ws_.at<float>(ws_.activation);
  check_launch(launch_mma_gemm_normed(normed_input(w.input_norm, rows, stream), w.qkv,
                                      ws_.at<float>(ws_.qkv), rows, qkv_width, hidden, lo_halves_,
                                      stream),
               "mma_gemm (normed qkv)");
  attend(layer, rows, PassForm::decode, splits, stream);
  check_launch(launch_mma_gemm_residual(ws_.at<float>(ws_.attention), w.o, w.o_bias, x, rows,
                                        hidden, q_dim, lo_halves_, stream),
               "mma_gemm (o, residual)");
  check_launch(launch_mma_gemm_gate_up_swiglu(normed_input(w.post_attention_norm, rows, stream),
                                              w.gate_up, activation, rows, inter, hidden,
                                              lo_halves_, stream),
               "mma_gemm (normed gate_up, SwiGLU)");
  check_launch(launch_mma_gemm_residual(activation, w.down, nullptr, x, rows, hidden, inter,
                                        lo_halves_, stream),
               "mma_gemm (down, residual)");
}

void DeviceForward::final_norm(const std::int32_t* logit_rows, int count, PassForm form,
                               cudaStream_t stream) const {
  check_launch(launch_rmsnorm_residual(ws_.at<float>(ws_.x),
                                       form == PassForm::decode ? nullptr : ws_.at<float>(ws_.delta),
                                       nullptr,
                                       weights_.final_norm(), logit_rows, count,
                                       static_cast<int>(shape_.hidden), shape_.rms_norm_eps,
                                       ws_.at<float>(ws_.normed), stream),
               "rmsnorm_residual");
}

void DeviceForward::lm_head(int first, int count, cudaStream_t stream) const {
  const float* normed = ws_.at<float>(ws_.normed) + static_cast<std::size_t>(first) * shape_.hidden;
  check_launch(launch_mma_gemm_f32(normed, weights_.lm_head(), logits(), count,
                                      static_cast<int>(shape_.vocab),
                                      static_cast<int>(shape_.hidden), lo_halves_, stream),
               "mma_gemm (lm_head)");
}

void DeviceForward::greedy(int count, cudaStream_t stream) const {
  check_launch(launch_greedy_argmax(logits(), count, static_cast<int>(shape_.vocab),
                                    ws_.at<void>(ws_.greedy_partials), greedy_tokens(), stream),
               "greedy_argmax");
}

}  // namespace algenta::cuda
