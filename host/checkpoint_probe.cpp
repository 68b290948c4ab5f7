#include "checkpoint_probe.hpp"

#include "checkpoint/sharded_checkpoint.hpp"

namespace algenta::host {

facts::TensorCheck probe_checkpoint_tensors(const std::filesystem::path& checkpoint_dir,
                                            const facts::ModelFacts& facts) {
  const auto checkpoint = checkpoint::ShardedCheckpoint::open(
      checkpoint_dir, checkpoint::SafetensorsAccess::header_only);
  std::vector<facts::ObservedTensor> observed;
  for (const checkpoint::SafetensorsFile& shard : checkpoint.shards()) {
    for (const checkpoint::TensorInfo& t : shard.tensors()) {
      observed.push_back({t.name, std::string(checkpoint::dtype_name(t.dtype)), t.shape,
                          shard.name()});
    }
  }
  return facts::check_tensors(facts, observed);
}

}  // namespace algenta::host
