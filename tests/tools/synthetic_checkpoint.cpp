// Makes bench's synthetic checkpoint without running bench, for the layout
// test (tests/integration/test_bench.py) to compare with what `prepare`
// makes from a real checkpoint of the same config.
//
//   algenta_synthetic_checkpoint --config FILE --seed N --out DIR
//   algenta_synthetic_checkpoint --config FILE --layout   (prints the planned
//       tensors as JSON: [{"name", "dtype", "shape", "offset", "size"}])
#include "synthetic/synthetic_checkpoint.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "checkpoint/resident_format.hpp"
#include "facts/config_parse.hpp"
#include "files/bounded_read.hpp"

namespace fs = std::filesystem;
using namespace algenta;

int main(int argc, char** argv) {
  std::string config_path, out_dir;
  std::uint64_t seed = 0;
  bool layout_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--layout") {
      layout_only = true;
    } else if (i + 1 < argc && flag == "--config") {
      config_path = argv[++i];
    } else if (i + 1 < argc && flag == "--out") {
      out_dir = argv[++i];
    } else if (i + 1 < argc && flag == "--seed") {
      seed = std::stoull(argv[++i]);
    } else {
      std::cerr
          << "usage: algenta_synthetic_checkpoint --config FILE (--seed N --out DIR | --layout)\n";
      return 1;
    }
  }
  try {
    const std::string text = files::read_bounded(config_path, {4u << 20, "a config.json"});
    const facts::ModelFacts model = facts::parse_model_facts(text, config_path);
    const host::synthetic::SyntheticWeights weights =
        host::synthetic::synthetic_weights_for(model, text, config_path, seed);
    if (layout_only) {
      nlohmann::json tensors = nlohmann::json::array();
      const std::string dtype(*checkpoint::resident_dtype_name(weights.dtype));
      for (const auto& t : host::synthetic::resident_layout(model, weights.dtype)) {
        tensors.push_back({{"name", t.name},
                           {"dtype", dtype},
                           {"shape", t.shape},
                           {"offset", t.offset},
                           {"size", t.size}});
      }
      std::cout << tensors.dump() << "\n";
      return 0;
    }
    // The side file must be named config.json: copied beside the output.
    const fs::path side = fs::path(out_dir).string() + ".config";
    fs::create_directories(side);
    fs::copy_file(config_path, side / "config.json", fs::copy_options::overwrite_existing);
    host::synthetic::write_synthetic_checkpoint(out_dir, side / "config.json", model, weights);
    fs::remove_all(side);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "algenta_synthetic_checkpoint: " << e.what() << "\n";
    return 1;
  }
}
