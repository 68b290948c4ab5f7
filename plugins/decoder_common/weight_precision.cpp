#include "weight_precision.hpp"

#include <cctype>
#include <cstdio>

#include "plugin_support/plugin_error.hpp"

namespace algenta::decoder {
namespace {

using checkpoint::Dtype;

[[noreturn]] void fail(AlgentaStatusCode code, const std::string& message) {
  throw plugin::StatusError{code, message};
}

std::string lower(Dtype dtype) {
  std::string name(checkpoint::dtype_name(dtype));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::string relative_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// What rounding every matrix from its stored type to `to` changes.
checkpoint::RoundingStats matrix_rounding(const checkpoint::ResidentCheckpoint& checkpoint,
                                          Dtype to) {
  checkpoint::RoundingStats total;
  for (const checkpoint::ResidentTensorInfo& info : checkpoint.tensors()) {
    if (info.shape.size() != 2) continue;
    total.add(checkpoint::rounding_stats(info.dtype, checkpoint.tensor(info.name).bytes, to));
  }
  return total;
}

std::string declared_policies(const AlgentaDescriptor& descriptor) {
  std::string names;
  for (size_t i = 0; i < descriptor.precision_count; ++i) {
    const auto& policy =
        plugin::element_at(descriptor.precisions, descriptor.precision_stride, i);
    names += (i == 0 ? "" : ", ") + std::string(policy.name);
  }
  return names;
}

}  // namespace

bool checkpoint_dtype_of(AlgentaDtype dtype, Dtype& out) {
  switch (dtype) {
    case ALGENTA_DTYPE_F32: out = Dtype::F32; return true;
    case ALGENTA_DTYPE_BF16: out = Dtype::BF16; return true;
    case ALGENTA_DTYPE_F16: out = Dtype::F16; return true;
    default: return false;
  }
}

AlgentaDtype abi_dtype_of(Dtype dtype) {
  switch (dtype) {
    case Dtype::F32: return ALGENTA_DTYPE_F32;
    case Dtype::BF16: return ALGENTA_DTYPE_BF16;
    case Dtype::F16: return ALGENTA_DTYPE_F16;
    default: return ALGENTA_DTYPE_NONE;
  }
}

const AlgentaPrecisionPolicy& chosen_policy(const AlgentaEngineOpen_Args& args,
                                            const AlgentaDescriptor& descriptor) {
  for (size_t i = 0; i < descriptor.precision_count; ++i) {
    const auto& policy =
        plugin::element_at(descriptor.precisions, descriptor.precision_stride, i);
    if (policy.precision == args.precision) return policy;
  }
  fail(ALGENTA_STATUS_UNSUPPORTED,
       std::string(descriptor.name) + " does not run precision policy " +
           std::to_string(static_cast<int>(args.precision)) + " (it runs: " +
           declared_policies(descriptor) + ")");
}

WeightHolding settle_engine_weights(const AlgentaEngineOpen_Args& args,
                                    const AlgentaDescriptor& descriptor,
                                    const checkpoint::ResidentCheckpoint& checkpoint, Dtype held) {
  const AlgentaPrecisionPolicy& policy = chosen_policy(args, descriptor);
  const std::string engine = std::string(descriptor.name) + " (precision " + policy.name + ")";
  Dtype consent = held;
  if (args.round_weights_to != ALGENTA_DTYPE_NONE &&
      (!checkpoint_dtype_of(args.round_weights_to, consent) || consent != held)) {
    fail(ALGENTA_STATUS_UNSUPPORTED,
         engine + " holds weights as " + lower(held) + "; it cannot round them to dtype " +
             std::to_string(static_cast<int>(args.round_weights_to)) + " (round_weights_to)");
  }
  WeightHolding holding{held, checkpoint.dtype() != held, {}};
  if (!holding.rounds) return holding;
  holding.rounding = matrix_rounding(checkpoint, held);
  if (holding.rounding.changed == 0 || args.round_weights_to != ALGENTA_DTYPE_NONE) return holding;
  const std::string stored = lower(checkpoint.dtype());
  fail(ALGENTA_STATUS_UNSUPPORTED,
       "weights are stored as " + stored + "; " + engine + " holds them as " + lower(held) +
           ", and " + std::to_string(holding.rounding.changed) + " of " +
           std::to_string(holding.rounding.values) +
           " matrix values would change (largest relative change " +
           relative_text(holding.rounding.max_relative) +
           "). Either prepare the checkpoint in the engine's type (algenta-host prepare "
           "SOURCE --out DIR --dtype " +
           lower(held) +
           ", which rounds once and reports it), or consent with --allow-weight-rounding "
           "(verify then checks the engine against the oracle on the same rounded weights)");
}

WeightHolding settle_reference_weights(const AlgentaEngineOpen_Args& args,
                                       const AlgentaDescriptor& descriptor,
                                       const checkpoint::ResidentCheckpoint& checkpoint) {
  chosen_policy(args, descriptor);
  WeightHolding holding{checkpoint.dtype(), false, {}};
  if (args.round_weights_to == ALGENTA_DTYPE_NONE) return holding;
  Dtype target{};
  if (!checkpoint_dtype_of(args.round_weights_to, target)) {
    fail(ALGENTA_STATUS_UNSUPPORTED, std::string(descriptor.name) +
                                         " rounds weights to f32, bf16 or f16; round_weights_to " +
                                         std::to_string(static_cast<int>(args.round_weights_to)) +
                                         " is none of them");
  }
  holding.matrix_dtype = target;
  holding.rounds = target != checkpoint.dtype();
  if (holding.rounds) holding.rounding = matrix_rounding(checkpoint, target);
  return holding;
}

void report_rounding(AlgentaEngineOpen_Args& args, const WeightHolding& holding) {
  args.rounded_weight_values = holding.rounding.changed;
  args.max_weight_rounding = holding.rounding.max_relative;
}

}  // namespace algenta::decoder
