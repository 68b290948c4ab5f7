#include "host_block_tables.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

#include "engine_calls.hpp"

namespace engine_checks {
namespace {

// The CUDA engines' blocks. Past the open check, tables are laid out from
// the block size and pool the engine reports, so the same checks run on any
// engine that takes the host's tables (the CPU oracle too: 16-token blocks).
constexpr std::uint32_t kExpectedBlockTokens = 32;
constexpr std::uint32_t kPoolBlocks = 64;  // of 32 tokens: kv_cache_bytes asked at open
constexpr std::uint32_t kContext = 1024;
constexpr std::size_t kShared = 256;  // A's prompt, a whole number of blocks
constexpr std::size_t kOwn = 60;      // B's prompt past it
constexpr int kDecodeSteps = 8;

OpenOptions host_tables(std::uint64_t pool_bytes) {
  return {.context = kContext, .kv_bytes = pool_bytes, .host_block_tables = true};
}
OpenOptions own_cache(std::uint64_t pool_bytes) {
  return {.context = kContext, .kv_bytes = pool_bytes};
}

// The host engine's geometry, as it answered at open.
struct Geometry {
  std::uint32_t tokens = 0;
  std::uint32_t total = 0;
  std::uint32_t covering(std::size_t positions) const {
    return static_cast<std::uint32_t>((positions + tokens - 1) / tokens);
  }
};

// An engine with its own cache and one with the host's tables over the same
// pool; false (reported as `check` failing) when either does not open or the
// host's tables were not taken.
bool open_pair(Engine& own, Engine& host, const std::string& dir, std::uint64_t pool_bytes,
               const char* check, Geometry& geometry) {
  const Outcome a = open_engine(own, dir, own_cache(pool_bytes));
  const Outcome b = open_engine(host, dir, host_tables(pool_bytes));
  geometry = {host.tokens_per_block, host.blocks_total};
  if (a.ok() && b.ok() && host.accepted && geometry.tokens > 0) return true;
  report(check, false, !a.ok() ? a.message : !b.ok() ? b.message : "host block tables declined");
  return false;
}

// Blocks first .. first + count - 1.
std::vector<std::uint32_t> blocks(std::uint32_t first, std::uint32_t count) {
  std::vector<std::uint32_t> ids(count);
  std::iota(ids.begin(), ids.end(), first);
  return ids;
}

std::vector<std::uint32_t> join(std::vector<std::uint32_t> a, const std::vector<std::uint32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Logits of every position of tokens[start..] (prefilled from `start` in
// chunks of the given sizes, then the rest), then of `steps` greedy decode
// steps; every chunk carries `table` (none: the engine's own cache). Empty
// when a step fails.
std::vector<float> all_rows(Engine& engine, std::uint64_t id, const std::vector<std::int32_t>& tokens,
                            std::size_t start, const std::vector<std::size_t>& chunks,
                            const std::vector<std::uint32_t>& table, int steps) {
  std::vector<float> rows;
  std::int32_t next = 0;
  auto step = [&](std::vector<std::int32_t> part, std::size_t at, AlgentaLogitsRequest want) {
    const StepOutput out =
        run_step(engine, {{id, std::move(part), static_cast<std::uint32_t>(at), table, want}});
    if (!out.outcome.ok()) {
      std::printf("  sequence %llu at %zu: %s\n", static_cast<unsigned long long>(id), at,
                  out.outcome.message.c_str());
      return false;
    }
    rows.insert(rows.end(), out.logits.begin(), out.logits.end());
    next = out.next[0];
    return true;
  };
  std::vector<std::size_t> sizes = chunks;
  const std::size_t chunked = std::accumulate(sizes.begin(), sizes.end(), start);
  if (chunked < tokens.size()) sizes.push_back(tokens.size() - chunked);
  std::size_t at = start;
  for (const std::size_t size : sizes) {
    if (!step({tokens.begin() + at, tokens.begin() + at + size}, at, ALGENTA_LOGITS_ALL)) return {};
    at += size;
  }
  for (int s = 0; s < steps; ++s) {
    if (!step({next}, at + s, ALGENTA_LOGITS_LAST)) return {};
  }
  return rows;
}

// The rows from position `first` on (of rows that start at position 0).
std::vector<float> from_position(const std::vector<float>& rows, std::size_t first,
                                 std::uint32_t vocab) {
  if (rows.size() < first * vocab) return {};
  return {rows.begin() + first * vocab, rows.end()};
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return !a.empty() && a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::string free_text(const AlgentaMemoryReport_Args& memory) {
  return std::to_string(memory.kv_blocks_free) + " of " + std::to_string(memory.kv_blocks_total) +
         " blocks free";
}

void check_open(const std::string& dir, std::uint64_t pool_bytes) {
  Engine host;
  const Outcome opened = open_engine(host, dir, host_tables(pool_bytes));
  const AlgentaMemoryReport_Args memory = memory_of(host);
  report("host_tables_accepted",
         opened.ok() && host.accepted && host.tokens_per_block == kExpectedBlockTokens &&
             host.blocks_total == kPoolBlocks &&
             memory.kv_tokens_per_block == kExpectedBlockTokens &&
             memory.kv_blocks_total == kPoolBlocks && memory.kv_blocks_free == kPoolBlocks,
         opened.ok() ? "accepted " + std::to_string(host.accepted) + ", " +
                           std::to_string(host.blocks_total) + " blocks of " +
                           std::to_string(host.tokens_per_block) + " tokens (kv_cache_bytes of " +
                           std::to_string(kPoolBlocks) + " blocks of 32); memory report: " +
                           free_text(memory) + ", " +
                           std::to_string(memory.kv_tokens_per_block) + " tokens each"
                     : opened.message);

  Engine own;
  const Outcome plain = open_engine(own, dir, own_cache(pool_bytes));
  report("host_tables_not_offered_own_cache",
         plain.ok() && !own.accepted && own.tokens_per_block == 0 && own.blocks_total == 0,
         plain.ok() ? "accepted " + std::to_string(own.accepted) : plain.message);

  // A 1.0 host's Args end before the 1.1 fields: the engine must not write them.
  AlgentaEngineOpen_Args old{};
  old.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_0;
  old.checkpoint_dir = dir.c_str();
  old.precision = ALGENTA_PRECISION_EXACT;
  old.requested_max_context = kContext;
  old.max_sequences = 8;
  old.kv_cache_bytes = pool_bytes;
  old.host_block_tables = 1;  // past the 1.0 struct: never read
  old.block_tables_accepted = old.kv_tokens_per_block = old.kv_blocks_total = 7;
  const Outcome old_opened = outcome_of(plugin->engine_open(&old));
  Engine old_engine;
  old_engine.handle = old.engine;
  report("host_tables_1_0_caller_untouched",
         old_opened.ok() && old.block_tables_accepted == 7 && old.kv_tokens_per_block == 7 &&
             old.kv_blocks_total == 7,
         old_opened.ok() ? "1.1 fields after open: " + std::to_string(old.block_tables_accepted) +
                               ", " + std::to_string(old.kv_tokens_per_block) + ", " +
                               std::to_string(old.kv_blocks_total) + " (7 = unwritten)"
                         : old_opened.message);
}

void check_same_bits_as_own_cache(const std::string& dir, std::uint64_t pool_bytes) {
  Engine own, host;
  Geometry g;
  if (!open_pair(own, host, dir, pool_bytes, "host_tables_same_bits_as_own_cache", g)) return;
  const std::vector<std::int32_t> tokens = prompt(300, 4, own.vocab);
  const std::vector<std::size_t> chunks = {100, 120, 80};
  const std::vector<float> expected = generate(own, 20, tokens, kDecodeSteps, chunks);
  // 308 positions. The first table's blocks descend every other one from
  // the pool's end; the second's ascend every other one from 0.
  const std::uint32_t n = g.covering(tokens.size() + kDecodeSteps);
  std::vector<std::uint32_t> scattered, other;
  for (std::uint32_t i = 0; i < n; ++i) {
    scattered.push_back(g.total - 1 - 2 * i);
    other.push_back(2 * i);
  }
  const std::vector<float> first = generate(host, 20, tokens, kDecodeSteps, chunks, scattered);
  report_identical("host_tables_same_bits_as_own_cache", first, expected, own.vocab,
                   "blocks " + std::to_string(scattered.front()) + ", " +
                       std::to_string(scattered[1]) + ", .. vs the engine's own cache");
  // Sequence 21 decodes through the graphs sequence 20's steps captured:
  // its table reaches them through the same workspace buffer.
  const std::vector<float> second = generate(host, 21, tokens, kDecodeSteps, chunks, other);
  report_identical("host_tables_decode_graphs_reused", second, expected, own.vocab,
                   "blocks 0, 2, .. vs the engine's own cache");
  const AlgentaMemoryReport_Args memory = memory_of(host);
  free_sequence(host, 20);
  const AlgentaMemoryReport_Args after_free = memory_of(host);
  report("host_tables_memory_report",
         memory.kv_tokens_per_block == g.tokens && memory.kv_blocks_total == g.total &&
             memory.kv_blocks_free == g.total - 2 * n && after_free.kv_blocks_free == g.total - n,
         free_text(memory) + " with two sequences of " + std::to_string(n) + " blocks live, " +
             free_text(after_free) + " after freeing one");
}

// The cold references use the engine's own cache: no shared block at all.
// Bits of a row may depend only on its own inputs, never on how many rows
// share a pass (cuBLASLt's algorithm is pinned per weight shape, without
// split-K; attention walks keys in fixed blocks from position 0). The cold
// prefill is therefore taken in one chunk, as a server without a prefix
// cache takes a 316-token prompt in one 512-token step. Should cuBLASLt's
// results ever depend on the number of rows, that comparison fails while
// the one chunked at 256 (the hit's own boundary) still passes: that pair
// of lines tells the two apart.
void check_prefix_hit(const std::string& dir, std::uint64_t pool_bytes) {
  Engine own, host;
  Geometry g;
  if (!open_pair(own, host, dir, pool_bytes, "prefix_hit_same_bits_as_cold_prefill", g)) return;
  if (kShared % g.tokens != 0) {
    report("prefix_hit_same_bits_as_cold_prefill", false,
           "256 is not a whole number of " + std::to_string(g.tokens) + "-token blocks");
    return;
  }
  const std::uint32_t vocab = host.vocab;
  const std::vector<std::int32_t> b_prompt = prompt(kShared + kOwn, 30, vocab);
  const std::vector<std::int32_t> shared(b_prompt.begin(), b_prompt.begin() + kShared);
  const std::uint32_t prefix = g.covering(kShared);                       // 8 blocks of 32
  const std::uint32_t prompt_blocks = g.covering(kShared + kOwn);         // 10
  const std::uint32_t decoded = g.covering(kShared + kOwn + kDecodeSteps);  // 11
  // A: blocks 0..7. B: A's, then 8..10. E: another prefix in 12..19. D: B's
  // tokens after E's blocks, then 20..21. F: A's again, then 23..25.
  const std::vector<std::uint32_t> a_table = blocks(0, prefix);
  const std::vector<std::uint32_t> b_table = join(a_table, blocks(prefix, decoded - prefix));
  const std::uint32_t e_first = decoded + 1;
  const std::vector<std::uint32_t> e_table = blocks(e_first, prefix);
  const std::uint32_t d_own = e_first + prefix;
  const std::vector<std::uint32_t> d_table = join(e_table, blocks(d_own, prompt_blocks - prefix));
  const std::vector<std::uint32_t> f_table =
      join(a_table, blocks(d_own + (prompt_blocks - prefix) + 1, decoded - prefix));

  // A prefills the shared 256 tokens, in one chunk.
  const bool a_ok = !all_rows(host, 1, shared, 0, {}, a_table, 0).empty();
  // B starts at 256 on A's blocks: its rows read A's keys.
  const std::vector<float> hit = all_rows(host, 2, b_prompt, kShared, {}, b_table, kDecodeSteps);
  const std::vector<float> cold =
      from_position(all_rows(own, 3, b_prompt, 0, {}, {}, kDecodeSteps), kShared, vocab);
  report_identical("prefix_hit_same_bits_as_cold_prefill", a_ok ? hit : std::vector<float>{},
                   cold, vocab, "B at 256 on A's blocks vs B's 316 tokens in one chunk");
  const std::vector<float> cold_256 =
      from_position(all_rows(own, 4, b_prompt, 0, {kShared}, {}, kDecodeSteps), kShared, vocab);
  report_identical("prefix_hit_same_bits_as_cold_chunked_at_256", hit, cold_256, vocab,
                   "B at 256 on A's blocks vs B's prompt in chunks of 256 + 60");

  // The same tokens at 256 after blocks that hold another prefix: other bits.
  all_rows(host, 5, prompt(kShared, 31, vocab), 0, {}, e_table, 0);
  const std::vector<float> elsewhere = all_rows(host, 6, b_prompt, kShared, {}, d_table, 0);
  const std::vector<float> hit_prefill(hit.begin(), hit.begin() + std::min(hit.size(), kOwn * vocab));
  const bool reads_shared = !elsewhere.empty() && elsewhere.size() == hit_prefill.size() &&
                            !same_bits(elsewhere, hit_prefill);
  report("prefix_hit_reads_the_shared_blocks", reads_shared,
         reads_shared ? "the same 60 tokens at 256 after another prefix's blocks give other logits"
                      : "the logits did not depend on the shared blocks' contents");

  // A freed: its blocks keep their contents for the host, and F hits them.
  const Outcome freed = free_sequence(host, 1);
  const std::vector<float> after_free = all_rows(host, 7, b_prompt, kShared, {}, f_table, kDecodeSteps);
  report_identical("prefix_hit_after_the_writer_is_freed",
                   freed.ok() ? after_free : std::vector<float>{}, hit, vocab,
                   "F at 256 on freed A's blocks vs B");
  // Listed by a live table: B's, E's, D's own and F's own (A's count once).
  const std::uint32_t listed = decoded + prefix + (prompt_blocks - prefix) + (decoded - prefix);
  const AlgentaMemoryReport_Args memory = memory_of(host);
  report("prefix_hit_blocks_free", memory.kv_blocks_free == g.total - listed,
         free_text(memory) + ", expected " + std::to_string(g.total - listed) +
             ": shared blocks count once, freed A lists none");
}

void check_refusals(const std::string& dir, std::uint64_t pool_bytes) {
  Engine own, host;
  Geometry g;
  if (!open_pair(own, host, dir, pool_bytes, "refused_steps_change_nothing", g)) return;
  const std::vector<std::int32_t> tokens = prompt(42, 40, host.vocab);
  const std::vector<std::int32_t> first(tokens.begin(), tokens.begin() + 40);
  const std::vector<std::int32_t> rest(tokens.begin() + 40, tokens.end());
  const std::vector<std::int32_t> four = prompt(4, 41, host.vocab);
  // Sequence 1 holds positions 0..39 (blocks 0 and 1 of 32); position 40 is
  // in `written`, and `unused` is no table's.
  const std::vector<std::uint32_t> table = blocks(0, g.covering(42));
  const std::uint32_t written = table[40 / g.tokens];
  const std::uint32_t unused = g.covering(42);
  const std::uint32_t needed = g.covering(40);
  run_step(host, {{1, first, 0, table, ALGENTA_LOGITS_NONE}});

  struct Case {
    const char* name;
    std::vector<ChunkSpec> chunks;
    std::string names;
  };
  const std::string total = std::to_string(g.total);
  const std::vector<Case> cases = {
      {"refused_block_past_total", {{2, four, 0, {g.total}}},
       "block table entry 0 is block " + total + "; the cache's blocks are 0.." +
           std::to_string(g.total - 1)},
      {"refused_short_table", {{2, first, 0, blocks(unused, needed - 1)}},
       "the block table lists " + std::to_string(needed - 1) + " blocks; positions 0..39 need " +
           std::to_string(needed) + " blocks of " + std::to_string(g.tokens) + " tokens"},
      {"refused_null_table", {{2, four, 0, {}}}, "block_table is NULL"},
      {"refused_block_twice", {{2, first, 0, std::vector<std::uint32_t>(needed, unused)}},
       "lists block " + std::to_string(unused) + " twice"},
      // Sequence 1's own chunk is valid; sequence 2, new at one block past
      // 0, lists as its prefix the block sequence 1 writes at 40..41.
      {"refused_shared_block_written",
       {{1, rest, 40, table}, {2, four, g.tokens, {written, unused}}},
       "sequence 1 writes block " + std::to_string(written) + ", which sequence 2 also lists"},
  };
  for (const Case& c : cases) {
    const StepOutput out = run_step(host, c.chunks);
    report(c.name,
           out.outcome.code == ALGENTA_STATUS_INVALID_ARGUMENT &&
               out.outcome.message.find(c.names) != std::string::npos,
           out.outcome.message);
  }
  // Nothing moved: only sequence 1's blocks are listed, and it goes on at
  // 40 as the engine's own cache does.
  const AlgentaMemoryReport_Args memory = memory_of(host);
  run_step(own, {{1, first, 0, {}, ALGENTA_LOGITS_NONE}});
  const StepOutput expected = run_step(own, {{1, rest, 40}});
  const StepOutput next = run_step(host, {{1, rest, 40, table}});
  const bool same = next.outcome.ok() && same_bits(next.logits, expected.logits);
  report("refused_steps_change_nothing", same && memory.kv_blocks_free == g.total - needed,
         free_text(memory) + " after the refusals; sequence 1 at 40: " +
             (next.outcome.ok() ? (same ? "bit-identical to the engine's own cache" : "DIFFERENT")
                                : next.outcome.message));
}

}  // namespace

void check_host_block_tables(const std::string& dir) {
  const std::uint64_t pool_bytes = kPoolBlocks * kv_block_bytes(dir);
  check_open(dir, pool_bytes);
  check_same_bits_as_own_cache(dir, pool_bytes);
  check_prefix_hit(dir, pool_bytes);
  check_refusals(dir, pool_bytes);
}

}  // namespace engine_checks
