#include "cli/logits_file.hpp"

#include <bit>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace algenta::host {

void write_logits_safetensors(const std::filesystem::path& file, const std::vector<float>& logits,
                              std::size_t rows, std::size_t vocab) {
  static_assert(std::endian::native == std::endian::little, "safetensors is little-endian");
  if (logits.size() != rows * vocab) throw std::logic_error("logits size disagrees with its shape");
  const std::size_t bytes = logits.size() * sizeof(float);
  const nlohmann::json header = {
      {"logits", {{"dtype", "F32"}, {"shape", {rows, vocab}}, {"data_offsets", {0, bytes}}}}};
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // keep the data 8-byte aligned
  const std::uint64_t length = text.size();

  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(&length), sizeof length);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.write(reinterpret_cast<const char*>(logits.data()), static_cast<std::streamsize>(bytes));
  if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace algenta::host
