#include "workspace.hpp"

#include <algorithm>

namespace algenta::cuda {

Workspace::Workspace(const decoder::ModelShape& s, const PassLimits& l) {
  const std::size_t rows_n = static_cast<std::size_t>(l.max_rows);
  const std::size_t f = sizeof(float);
  const std::size_t widest_input = std::max({s.hidden, s.q_dim(), s.intermediate});
  rows = arena.plan(rows_n * sizeof(RowMeta));
  block_tables = arena.plan(static_cast<std::size_t>(l.max_slots) * l.max_blocks * sizeof(int32_t));
  logit_rows = arena.plan(rows_n * sizeof(int32_t));
  x = arena.plan(rows_n * s.hidden * f);
  normed = arena.plan(rows_n * s.hidden * f);
  qkv = arena.plan(rows_n * (s.q_dim() + 2 * s.kv_dim()) * f);
  attention = arena.plan(rows_n * s.q_dim() * f);
  delta = arena.plan(rows_n * s.hidden * f);
  gate_up = arena.plan(rows_n * 2 * s.intermediate * f);
  activation = arena.plan(rows_n * s.intermediate * f);
  hi = arena.plan(rows_n * widest_input * sizeof(Element));
  lo = arena.plan(rows_n * widest_input * sizeof(Element));
  partials = arena.plan(static_cast<std::size_t>(l.max_decode_rows) * s.heads * l.max_splits *
                        (s.head_dim + 2) * f);
  logits = arena.plan(static_cast<std::size_t>(l.logits_rows) * s.vocab * f);
  greedy_tokens = arena.plan(static_cast<std::size_t>(l.logits_rows) * sizeof(int32_t));
  greedy_partials = arena.plan(static_cast<std::size_t>(l.logits_rows) * kArgmaxPartialBytes);
  rope_cos = arena.plan(static_cast<std::size_t>(l.rope_positions) * (s.head_dim / 2) * f);
  rope_sin = arena.plan(static_cast<std::size_t>(l.rope_positions) * (s.head_dim / 2) * f);
  gemm = arena.plan(l.gemm_workspace);
  decode_ticket_bytes = static_cast<std::size_t>(l.max_decode_rows) * s.heads * sizeof(unsigned int);
  decode_tickets = arena.plan(decode_ticket_bytes);
}

void Workspace::allocate() {
  arena.allocate("the engine's workspace");
  check_cuda(cudaMemset(at<void>(decode_tickets), 0, decode_ticket_bytes),
             "clearing the decode attention tickets");
}

}  // namespace algenta::cuda
