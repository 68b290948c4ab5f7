// The CUDA engine behind the ABI calls: refuses a checkpoint outside the
// declared facts before touching the GPU, plans its memory against the
// device's free bytes, uploads the weights once, and runs ragged steps over
// a paged KV cache (prefill passes on cuBLASLt, decode passes as CUDA graphs
// per batch bucket). The cache's blocks are handed out by its own allocator,
// or by the host when it offers block tables at open (ABI 1.1); the kernels
// read both through the same per-pass block tables. Errors are
// plugin::StatusError with the ABI status.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "algenta/plugin_abi.h"
#include "checkpoint/resident_reader.hpp"
#include "device_forward.hpp"
#include "device_sampler.hpp"
#include "device_weights.hpp"
#include "host_sequences.hpp"
#include "lt_gemm.hpp"
#include "model_shape.hpp"
#include "paged_kv.hpp"
#include "step_plan.hpp"
#include "workspace.hpp"

namespace algenta::cuda {

inline constexpr std::uint32_t kDefaultMaxSequences = 64;
inline constexpr int kMaxDecodeRows = 64;      // largest decode bucket
inline constexpr int kMaxPrefillRows = 2048;   // token rows per prefill pass
inline constexpr int kLogitsRowsAtOnce = 64;   // lm_head rows per launch
inline constexpr int kPrefillGraphRows = 64;   // prefill graphs: rows padded to a multiple
inline constexpr std::size_t kGemmWorkspaceBytes = 32u << 20;
// Left free for cuBLAS, graphs and the CUDA context's own growth.
inline constexpr std::uint64_t kDeviceHeadroomBytes = 512ull << 20;

class CudaEngine {
 public:
  static std::unique_ptr<CudaEngine> open(AlgentaEngineOpen_Args& args,
                                          const AlgentaDescriptor& descriptor);
  ~CudaEngine();
  CudaEngine(const CudaEngine&) = delete;
  CudaEngine& operator=(const CudaEngine&) = delete;

  void step(AlgentaEngineStep_Args& args);
  // Bytes the last step copied from the device to the host (ABI 1.3).
  std::uint64_t device_to_host_bytes() const { return downloaded_bytes_; }
  void free_sequences(const AlgentaSequencesFree_Args& args);
  void report_memory(AlgentaMemoryReport_Args& args);
  void close();

 private:
  struct LogitsTarget {
    int row = 0;                    // row of the pass
    float* out = nullptr;           // vocab floats on the host, when asked for
    std::int32_t* token = nullptr;  // the row's token: device greedy, or drawn
    // Engine sampling: how the token is drawn (nullptr: greedy), at which
    // position, for which sequence (named in a refusal).
    const AlgentaSampling* sampling = nullptr;
    std::uint64_t position = 0;
    std::uint64_t sequence_id = 0;
  };
  struct Pass {
    std::vector<RowMeta> rows;
    std::vector<std::int32_t> tables;  // slots x max_blocks
    std::vector<LogitsTarget> logits;
    std::map<std::uint64_t, int> slots;
  };

  CudaEngine(checkpoint::ResidentCheckpoint checkpoint, const decoder::ModelShape& shape,
             const decoder::FamilyDescription& family, const decoder::EngineLimits& limits,
             const PassLimits& pass_limits, std::size_t kv_blocks, Precision precision);

  void upload_rope_tables();
  void step_own_blocks(AlgentaEngineStep_Args& args);
  void step_host_blocks(AlgentaEngineStep_Args& args);
  void execute(const decoder::StepPlan& plan, AlgentaEngineStep_Args& args);
  int slot_of(Pass& pass, const decoder::PlannedChunk& chunk) const;
  void upload(const Pass& pass, int padded_rows);
  void run_prefill(Pass& pass);
  void run_decode(Pass& pass);
  // (rows bucket, decode attention slices)
  using DecodeGraphKey = std::pair<int, int>;
  cudaGraphExec_t decode_graph(DecodeGraphKey key);
  cudaGraphExec_t prefill_graph(int rows);
  cudaGraphExec_t capture(const char* what, const char* unit, const std::function<void()>& record);
  void copy_logits(const Pass& pass, int first_row, int count);
  void synchronize(const char* what);

  checkpoint::ResidentCheckpoint checkpoint_;
  decoder::ModelShape shape_;
  decoder::FamilyDescription family_;
  decoder::EngineLimits limits_;
  PassLimits pass_limits_;
  cudaStream_t stream_ = nullptr;
  DeviceWeights weights_;
  Workspace workspace_;
  DeviceArena kv_arena_;
  KvPool kv_pool_;
  // Exactly one is set: the engine's own allocator, or (host block tables
  // taken at open) what it remembers of the host's sequences.
  std::optional<PagedKvBlocks> own_blocks_;
  std::optional<decoder::HostSequences> host_sequences_;
  std::unique_ptr<LtGemm> gemm_;
  std::unique_ptr<DeviceForward> forward_;
  std::map<DecodeGraphKey, cudaGraphExec_t> decode_graphs_;
  std::map<int, cudaGraphExec_t> prefill_graphs_;  // by padded row count
  // Draws sampled rows on the device when the host sends sampling (ABI 1.2).
  std::optional<DeviceSampler> sampler_;
  std::uint64_t downloaded_bytes_ = 0;  // by the current step
  std::mutex mutex_;  // one call at a time per engine
};

}  // namespace algenta::cuda
