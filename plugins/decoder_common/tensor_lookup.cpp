#include "tensor_lookup.hpp"

#include "plugin_support/plugin_error.hpp"

namespace algenta::decoder {
namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace

void refuse_tensor(const std::string& name, const std::string& problem) {
  throw plugin::StatusError{ALGENTA_STATUS_INVALID_ARGUMENT, "tensor " + name + ": " + problem};
}

checkpoint::ResidentTensor require_tensor(const checkpoint::ResidentCheckpoint& checkpoint,
                                          const std::string& name,
                                          const std::vector<std::int64_t>& shape) {
  if (checkpoint.find(name) == nullptr) refuse_tensor(name, "missing from the checkpoint");
  checkpoint::ResidentTensor tensor = checkpoint.tensor(name);
  if (tensor.info.shape != shape) {
    refuse_tensor(name, "shape " + shape_text(tensor.info.shape) + ", the model needs " +
                            shape_text(shape));
  }
  return tensor;
}

}  // namespace algenta::decoder
