// The engine loop over a fake engine: requests batched into shared steps get
// exactly the tokens each gets alone (greedy and seeded sampling, chunked
// prompts, more requests than may run), a client that leaves is dropped
// between steps and its sequence freed, the --max-queue and context
// refusals, and stop() finishing what was accepted. The fake engine can hold
// a step open, so which requests share a step never depends on timing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "serve/batch_limits.hpp"
#include "serve/engine_loop.hpp"
#include "tokenizer/byte_level_alphabet.hpp"
#include "tokenizer/tokenizer.hpp"
#include "../tokenizer/tokenizer_json_builder.hpp"

using namespace algenta;

namespace {

constexpr std::uint32_t kVocab = 257;  // bytes and an end-of-sequence token
constexpr std::int32_t kEos = 256;

tokenizer::Tokenizer byte_tokenizer() {
  std::vector<std::string> vocab;
  for (int b = 0; b < 256; ++b) {
    vocab.push_back(tokenizer::byte_level::to_alphabet(std::string(1, static_cast<char>(b))));
  }
  vocab.push_back("<eos>");
  nlohmann::json doc =
      tokenizer::test::document(tokenizer::test::bpe_model(vocab, nlohmann::json::array()));
  doc["added_tokens"] = {{{"id", kEos}, {"content", "<eos>"}, {"special", true}, {"normalized", false}}};
  doc["decoder"] = {{"type", "ByteLevel"}};
  return tokenizer::test::load(doc);
}

// An engine whose output depends only on a sequence's own tokens (as a
// batch-invariant engine's does), and that refuses what a real one refuses:
// a chunk not starting where its sequence's cache ends, a sequence twice in
// one step, more resident sequences than it was opened with, freeing an id it
// does not hold.
// Given a block geometry it takes the host's block tables: it keeps each
// position's token in the listed block, reads a sequence's tokens back
// through its table (a new sequence may start past 0 on blocks another one
// wrote) and refuses a read of a slot nobody wrote, a table that disagrees
// with what the sequence cached, and a write into a block another live
// sequence lists.
class FakeStepEngine final : public serve::StepEngine {
 public:
  FakeStepEngine(std::uint32_t max_context, std::uint32_t max_sequences,
                 std::optional<host::HostBlockGeometry> blocks = std::nullopt)
      : max_context_(max_context), max_sequences_(max_sequences), blocks_(blocks) {}

  std::uint32_t max_context() const override { return max_context_; }
  std::uint32_t vocab_size() const override { return kVocab; }
  std::string precision() const override { return "exact"; }
  std::optional<host::HostBlockGeometry> host_block_geometry() const override { return blocks_; }
  host::MemoryReport memory_report() override { return {}; }  // no blocks, as the oracle

  host::StepResult step(const std::vector<host::ChunkRequest>& chunks) override {
    std::unique_lock lock(mutex_);
    ++entered_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return !hold_; });
    if (fail_next_) {
      fail_next_ = false;
      throw host::EngineError(ALGENTA_STATUS_DEVICE, "the device fell over");
    }
    std::set<std::uint64_t> seen;
    for (const host::ChunkRequest& chunk : chunks) {
      if (!seen.insert(chunk.sequence_id).second) refuse("a sequence twice in one step");
      const auto it = sequences_.find(chunk.sequence_id);
      const std::size_t cached = it == sequences_.end() ? 0 : it->second.size();
      const bool shared_start = blocks_ && it == sequences_.end();  // a prefix cache hit
      if ((chunk.start_position != cached && !shared_start) || chunk.tokens.empty()) {
        refuse("sequence " + std::to_string(chunk.sequence_id) + " chunk at " +
               std::to_string(chunk.start_position) + ", cache " + std::to_string(cached));
      }
      if (chunk.start_position + chunk.tokens.size() > max_context_) refuse("past the context");
      if (blocks_) check_table(chunk);
    }
    host::StepResult result;
    for (const host::ChunkRequest& chunk : chunks) {
      std::vector<std::int32_t>& tokens = sequences_[chunk.sequence_id];
      if (blocks_) {
        tokens = read_blocks(chunk);  // what the table holds before the chunk
        write_blocks(chunk);
        tables_[chunk.sequence_id] = chunk.block_table;
      }
      tokens.insert(tokens.end(), chunk.tokens.begin(), chunk.tokens.end());
      const std::vector<float> logits = logits_after(tokens);
      result.next_tokens.push_back(static_cast<std::int32_t>(
          std::max_element(logits.begin(), logits.end()) - logits.begin()));
      if (chunk.logits == ALGENTA_LOGITS_LAST) {
        result.logits.insert(result.logits.end(), logits.begin(), logits.end());
      }
    }
    if (sequences_.size() > max_sequences_) refuse("more resident sequences than opened with");
    max_rows_ = std::max(max_rows_, chunks.size());
    ++steps_;
    return result;
  }

  void free_sequences(const std::vector<std::uint64_t>& ids) override {
    std::lock_guard lock(mutex_);
    for (std::uint64_t id : ids) {
      if (!sequences_.erase(id)) refuse("freeing sequence " + std::to_string(id) + ", not held");
      tables_.erase(id);
      freed_.push_back(id);
    }
  }

  // Steps wait while held; the test releases them.
  void hold() {
    std::lock_guard lock(mutex_);
    hold_ = true;
  }
  void release() {
    std::lock_guard lock(mutex_);
    hold_ = false;
    changed_.notify_all();
  }
  // The next step to leave the hold fails, changing nothing.
  void fail_next() {
    std::lock_guard lock(mutex_);
    fail_next_ = true;
  }
  // Waits until `count` steps have begun.
  void wait_entered(std::size_t count) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return entered_ >= count; });
  }
  std::size_t max_rows() {
    std::lock_guard lock(mutex_);
    return max_rows_;
  }
  std::size_t resident() {
    std::lock_guard lock(mutex_);
    return sequences_.size();
  }
  std::vector<std::uint64_t> freed() {
    std::lock_guard lock(mutex_);
    return freed_;
  }
  std::vector<std::string> refusals() {
    std::lock_guard lock(mutex_);
    return refusals_;
  }

 private:
  // A deterministic function of the sequence's tokens, with one clear peak
  // and a spread of smaller values, so greedy and sampling both have choices.
  static std::vector<float> logits_after(const std::vector<std::int32_t>& tokens) {
    std::uint64_t h = 1469598103934665603ull;
    for (std::int32_t t : tokens) h = (h ^ std::uint64_t(t)) * 1099511628211ull;
    std::vector<float> logits(kVocab);
    for (std::uint32_t i = 0; i < kVocab; ++i) {
      logits[i] = float(((h >> (i % 48)) ^ (i * 2654435761u)) % 1000) / 250.0f;
    }
    logits[kEos] = -10.0f;  // answers end by length
    return logits;
  }
  void refuse(const std::string& what) {
    refusals_.push_back(what);
    throw host::EngineError(ALGENTA_STATUS_INVALID_ARGUMENT, what);
  }

  // Block slot of `position` through `table`.
  std::uint64_t slot(const std::vector<std::uint32_t>& table, std::size_t position) const {
    return std::uint64_t(table[position / blocks_->tokens_per_block]) * blocks_->tokens_per_block +
           position % blocks_->tokens_per_block;
  }
  void check_table(const host::ChunkRequest& chunk) {
    const std::size_t end = chunk.start_position + chunk.tokens.size();
    const std::string who = "sequence " + std::to_string(chunk.sequence_id);
    if (chunk.block_table.size() * blocks_->tokens_per_block < end) refuse(who + ": table too short");
    for (const std::uint32_t block : chunk.block_table) {
      if (block >= blocks_->blocks_total) refuse(who + ": block " + std::to_string(block));
    }
    const std::vector<std::int32_t> held = read_blocks(chunk);
    const auto it = sequences_.find(chunk.sequence_id);
    if (it != sequences_.end() && held != it->second) refuse(who + ": its blocks hold other tokens");
    for (std::size_t p = chunk.start_position; p < end; ++p) {
      const std::uint32_t block = chunk.block_table[p / blocks_->tokens_per_block];
      for (const auto& [other, table] : tables_) {
        if (other != chunk.sequence_id && std::count(table.begin(), table.end(), block)) {
          refuse(who + " writes block " + std::to_string(block) + ", which sequence " +
                 std::to_string(other) + " lists");
        }
      }
    }
  }
  std::vector<std::int32_t> read_blocks(const host::ChunkRequest& chunk) {
    std::vector<std::int32_t> tokens;
    for (std::size_t p = 0; p < chunk.start_position; ++p) {
      const auto it = slots_.find(slot(chunk.block_table, p));
      if (it == slots_.end()) refuse("sequence " + std::to_string(chunk.sequence_id) +
                                     " reads position " + std::to_string(p) + ", never written");
      tokens.push_back(it->second);
    }
    return tokens;
  }
  void write_blocks(const host::ChunkRequest& chunk) {
    for (std::size_t i = 0; i < chunk.tokens.size(); ++i) {
      slots_[slot(chunk.block_table, chunk.start_position + i)] = chunk.tokens[i];
    }
  }

  const std::uint32_t max_context_;
  const std::uint32_t max_sequences_;
  const std::optional<host::HostBlockGeometry> blocks_;
  std::map<std::uint64_t, std::int32_t> slots_;  // block slot -> the token written there
  std::map<std::uint64_t, std::vector<std::uint32_t>> tables_;  // latest table per sequence
  std::mutex mutex_;
  std::condition_variable changed_;
  bool hold_ = false;
  bool fail_next_ = false;
  std::size_t entered_ = 0;
  std::size_t steps_ = 0;
  std::size_t max_rows_ = 0;
  std::map<std::uint64_t, std::vector<std::int32_t>> sequences_;
  std::vector<std::uint64_t> freed_;
  std::vector<std::string> refusals_;
};

// What a job's client got; done() once the loop has said its last word.
class RecordingSink final : public serve::JobSink {
 public:
  void output(const serve::StepOutput& out, const openai::Usage& usage) override {
    std::lock_guard lock(mutex_);
    tokens_.push_back(out.token);
    completion_tokens_ = usage.completion_tokens;
    if (out.finished) finish(out.finished == openai::FinishReason::length ? "length" : "stop");
  }
  void failed(const openai::ApiError& error) override {
    std::lock_guard lock(mutex_);
    finish(std::string("failed: ") + error.what());
  }
  bool cancelled() const override { return cancelled_; }
  void abandoned() override {
    std::lock_guard lock(mutex_);
    finish("abandoned");
  }

  void leave() { cancelled_ = true; }
  // The tokens and how it ended, once it did.
  std::pair<std::vector<std::int32_t>, std::string> wait() {
    std::unique_lock lock(mutex_);
    ended_.wait(lock, [this] { return !end_.empty(); });
    return {tokens_, end_};
  }
  std::size_t token_count() {
    std::lock_guard lock(mutex_);
    return tokens_.size();
  }

 private:
  void finish(std::string how) {
    end_ = std::move(how);
    ended_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable ended_;
  std::vector<std::int32_t> tokens_;
  std::int64_t completion_tokens_ = 0;
  std::string end_;
  std::atomic<bool> cancelled_{false};
};

serve::GenerationSpec spec_for(int i) {
  serve::GenerationSpec spec;
  for (int t = 0; t < 1 + (i * 3) % 9; ++t) spec.prompt.push_back(40 + (i * 7 + t * 13) % 80);
  spec.max_tokens = 3 + std::uint32_t(i % 5);
  spec.eos_token_ids = {kEos};
  if (i % 2) {
    spec.params.temperature = 1.0;
    spec.seed = 900 + std::uint64_t(i);
  } else {
    spec.params.temperature = 0.0;
  }
  return spec;
}

struct Fixture {
  explicit Fixture(serve::BatchOptions options, std::uint32_t max_context = 64,
                   std::optional<host::HostBlockGeometry> blocks = std::nullopt)
      : engine(max_context, options.max_running, blocks), metrics("test-model"),
        loop(engine, &tokenizer, metrics, options) {}

  std::shared_ptr<RecordingSink> submit(serve::GenerationSpec spec) {
    auto sink = std::make_shared<RecordingSink>();
    loop.submit({std::move(spec), sink});
    return sink;
  }

  tokenizer::Tokenizer tokenizer = byte_tokenizer();
  FakeStepEngine engine;
  serve::ServeMetrics metrics;
  serve::EngineLoop loop;
};

std::vector<std::int32_t> alone(int i) {
  Fixture f({16, 4, 5});
  auto [tokens, end] = f.submit(spec_for(i))->wait();
  REQUIRE(end == "length");
  return tokens;
}

// The value of a counter in the metrics text (0 when absent).
double counter(const serve::ServeMetrics& metrics, const std::string& name) {
  const std::string text = metrics.text();
  const std::size_t at = text.find("\n" + name + "{");
  if (at == std::string::npos) return 0;
  const std::size_t value = text.find("} ", at) + 2;
  return std::stod(text.substr(value, text.find('\n', value) - value));
}

// Job i's prompt: a 12-token start every job shares, then 2 + i % 3 of its own.
serve::GenerationSpec shared_start_spec(int i) {
  serve::GenerationSpec spec = spec_for(i);
  spec.prompt.clear();
  for (int t = 0; t < 12; ++t) spec.prompt.push_back(60 + t);
  for (int t = 0; t < 2 + i % 3; ++t) spec.prompt.push_back(150 + i * 5 + t);
  return spec;
}

openai::ErrorKind refusal_kind(Fixture& f, serve::GenerationSpec spec, std::string& message) {
  try {
    f.submit(std::move(spec));
  } catch (const openai::ApiError& e) {
    message = e.what();
    return e.kind;
  }
  FAIL("the job was accepted");
  return openai::ErrorKind::internal;
}

}  // namespace

TEST_CASE("engine loop: batched jobs get exactly the tokens each gets alone", "[serve][loop]") {
  constexpr int kJobs = 10;
  std::vector<std::vector<std::int32_t>> expected;
  for (int i = 0; i < kJobs; ++i) expected.push_back(alone(i));

  // Four run at once, five tokens a step: prompts are chunked and the rest wait.
  Fixture f({16, 4, 5});
  f.engine.hold();
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  for (int i = 0; i < kJobs; ++i) sinks.push_back(f.submit(spec_for(i)));
  f.engine.release();
  for (int i = 0; i < kJobs; ++i) {
    INFO("job " << i);
    auto [tokens, end] = sinks[i]->wait();
    CHECK(end == "length");
    CHECK(tokens == expected[i]);
  }
  f.loop.stop();
  CHECK(f.engine.refusals().empty());
  CHECK(f.engine.max_rows() > 1);
  CHECK(f.engine.max_rows() <= 4);
  CHECK(f.engine.resident() == 0);  // every finished sequence was freed
  CHECK(f.engine.freed().size() == kJobs);
}

TEST_CASE("engine loop: a job whose client left is dropped between steps and freed",
          "[serve][loop]") {
  const std::vector<std::int32_t> expected = alone(2);
  Fixture f({16, 4, 64});
  serve::GenerationSpec long_spec = spec_for(1);
  long_spec.max_tokens = 40;
  f.engine.hold();
  auto leaving = f.submit(long_spec);
  f.engine.wait_entered(1);  // its prompt is in the engine
  auto staying = f.submit(spec_for(2));
  leaving->leave();
  f.engine.release();
  CHECK(leaving->wait().second == "abandoned");
  CHECK(leaving->token_count() <= 1);  // at most the step that was running
  auto [tokens, end] = staying->wait();
  CHECK(end == "length");
  CHECK(tokens == expected);
  f.loop.stop();
  CHECK(f.engine.refusals().empty());
  CHECK(f.engine.resident() == 0);
  const std::vector<std::uint64_t> freed = f.engine.freed();
  CHECK(std::count(freed.begin(), freed.end(), 1u) == 1);  // the leaver, sequence 1
}

TEST_CASE("engine loop: a job that left while waiting never reaches the engine", "[serve][loop]") {
  Fixture f({16, 1, 64});
  f.engine.hold();
  auto first = f.submit(spec_for(0));
  f.engine.wait_entered(1);
  auto second = f.submit(spec_for(2));  // waits: one runs at a time
  second->leave();
  f.engine.release();
  CHECK(second->wait().second == "abandoned");
  CHECK(second->token_count() == 0);
  CHECK(first->wait().second == "length");
  f.loop.stop();
  CHECK(f.engine.refusals().empty());
  CHECK(f.engine.freed() == std::vector<std::uint64_t>{1});
}

TEST_CASE("engine loop: a failed step fails its jobs; the next jobs still run", "[serve][loop]") {
  const std::vector<std::int32_t> expected = alone(2);
  Fixture f({16, 4, 64});
  f.engine.hold();
  auto failing = f.submit(spec_for(0));
  f.engine.wait_entered(1);
  auto next = f.submit(spec_for(2));
  f.engine.fail_next();
  f.engine.release();
  CHECK(failing->wait().second == "failed: the engine failed: the device fell over");
  auto [tokens, end] = next->wait();
  CHECK(end == "length");
  CHECK(tokens == expected);
  f.loop.stop();
  CHECK(f.engine.refusals().empty());  // the failed sequence was never freed: the engine never held it
  CHECK(f.engine.freed() == std::vector<std::uint64_t>{2});
}

TEST_CASE("engine loop: past --max-queue waiting jobs, submit answers queue_full",
          "[serve][loop]") {
  Fixture f({2, 1, 64});
  f.engine.hold();
  auto running = f.submit(spec_for(0));
  f.engine.wait_entered(1);  // admitted: it no longer counts as waiting
  auto waiting1 = f.submit(spec_for(1));
  auto waiting2 = f.submit(spec_for(2));
  std::string message;
  CHECK(refusal_kind(f, spec_for(3), message) == openai::ErrorKind::queue_full);
  CHECK(message ==
        "the request queue is full (2 requests waiting, the --max-queue limit); retry later");
  f.engine.release();
  for (auto& sink : {running, waiting1, waiting2}) CHECK(sink->wait().second == "length");
}

TEST_CASE("engine loop: a job that can never fit the context is refused at submit",
          "[serve][loop]") {
  Fixture f({4, 2, 8}, 16);
  serve::GenerationSpec spec = spec_for(0);
  spec.prompt.assign(10, 65);
  spec.max_tokens = 7;
  std::string message;
  CHECK(refusal_kind(f, spec, message) == openai::ErrorKind::invalid_request);
  CHECK(message == "a prompt of 10 tokens with max_tokens 7 cannot run (context 16 tokens): it "
                   "needs 10 prompt + 7 new tokens = 17, past the context of 16");
}

TEST_CASE("engine loop: stop() finishes accepted jobs, then refuses new ones", "[serve][loop]") {
  Fixture f({8, 2, 8});
  f.engine.hold();
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  for (int i = 0; i < 4; ++i) sinks.push_back(f.submit(spec_for(i)));
  f.engine.wait_entered(1);
  f.engine.release();
  f.loop.stop();
  for (auto& sink : sinks) CHECK(sink->wait().second == "length");
  CHECK(f.engine.resident() == 0);
  std::string message;
  CHECK(refusal_kind(f, spec_for(0), message) == openai::ErrorKind::not_ready);
}

TEST_CASE("engine loop: the scheduler's limits come from the engine and the flags",
          "[serve][loop]") {
  host::MemoryReport paged;
  paged.kv_tokens_per_block = 16;
  paged.kv_blocks_total = 300;
  const sched::SchedulerLimits gpu = serve::batch_limits(paged, std::nullopt, 4096, {10, 32, 256});
  CHECK(gpu.tokens_per_block == 16);
  CHECK(gpu.total_blocks == 300);
  CHECK(gpu.max_step_rows == 32);
  CHECK(gpu.max_sequences == 32);
  CHECK(gpu.max_step_tokens == 256);
  CHECK(gpu.max_waiting == 10);
  CHECK(gpu.max_context == 4096);
  // No paged cache (the oracle): one slot of the whole context per sequence.
  const sched::SchedulerLimits own = serve::batch_limits({}, std::nullopt, 1024, {10, 8, 64});
  CHECK(own.tokens_per_block == 1024);
  CHECK(own.total_blocks == 8);
  // An engine that took the host's block tables: their geometry decides.
  const sched::SchedulerLimits host =
      serve::batch_limits(paged, host::HostBlockGeometry{16, 512}, 1024, {10, 8, 64});
  CHECK(host.tokens_per_block == 16);
  CHECK(host.total_blocks == 512);
  CHECK_THROWS_WITH(serve::batch_limits({}, std::nullopt, 1024, {10, 8, 2}),
                    "scheduler: max_step_tokens is 2; it must be >= 3");
}

TEST_CASE("engine loop: with a prefix cache, jobs sharing a start get what each gets alone and "
          "compute the start once", "[serve][loop]") {
  constexpr int kJobs = 6;
  const host::HostBlockGeometry blocks{4, 64};
  std::vector<std::vector<std::int32_t>> expected;
  std::uint64_t suffixes = 0;
  for (int i = 0; i < kJobs; ++i) {
    Fixture alone_fixture({16, 4, 32});  // the engine's own cache, no prefix cache
    auto [tokens, end] = alone_fixture.submit(shared_start_spec(i))->wait();
    REQUIRE(end == "length");
    expected.push_back(tokens);
    suffixes += shared_start_spec(i).prompt.size() - 12;
  }

  Fixture f({16, 4, 32, true}, 64, blocks);
  REQUIRE(f.loop.prefix_caching());
  for (int i = 0; i < kJobs; ++i) {  // one after another: each finds the start computed
    INFO("job " << i);
    auto [tokens, end] = f.submit(shared_start_spec(i))->wait();
    CHECK(end == "length");
    CHECK(tokens == expected[i]);
  }
  CHECK(counter(f.metrics, "algenta_prompt_tokens_computed_total") == double(12 + suffixes));
  CHECK(counter(f.metrics, "algenta_prompt_tokens_cached_total") == double(12 * (kJobs - 1)));

  // Together, with one step held open so they queue: still each its own tokens.
  f.engine.hold();
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  for (int i = 0; i < kJobs; ++i) sinks.push_back(f.submit(shared_start_spec(i)));
  f.engine.release();
  for (int i = 0; i < kJobs; ++i) {
    INFO("job " << i << " together");
    auto [tokens, end] = sinks[i]->wait();
    CHECK(end == "length");
    CHECK(tokens == expected[i]);
  }
  f.loop.stop();
  CHECK(f.engine.refusals().empty());
  CHECK(f.engine.resident() == 0);
}

TEST_CASE("engine loop: a prefix cache needs an engine that takes the host's block tables",
          "[serve][loop]") {
  FakeStepEngine engine(64, 4);
  serve::ServeMetrics metrics("test-model");
  tokenizer::Tokenizer tokenizer = byte_tokenizer();
  CHECK_THROWS_WITH(serve::EngineLoop(engine, &tokenizer, metrics, {16, 4, 32, true}),
                    Catch::Contains("a prefix cache needs an engine that takes the host's KV "
                                    "block tables"));
}
