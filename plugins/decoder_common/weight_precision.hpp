// How an engine holds a checkpoint's weight matrices, settled at open before
// any device work: the precision policy asked for, whether the stored values
// fit the policy's weight types exactly, and the operator's consent to
// rounding (AlgentaEngineOpen_Args.round_weights_to). No value changes
// without that consent. Norms and biases are held in f32 by every engine and
// so never change; the matrices (rank-2 tensors) are what this settles.
#pragma once

#include <string>

#include "algenta/plugin_abi.h"
#include "checkpoint/dtype.hpp"
#include "checkpoint/dtype_convert.hpp"
#include "checkpoint/resident_reader.hpp"

namespace algenta::decoder {

struct WeightHolding {
  checkpoint::Dtype matrix_dtype;     // what the engine holds matrices in
  bool rounds = false;                // matrix_dtype differs from the stored dtype
  checkpoint::RoundingStats rounding; // values that change on the way
};

// The policy args.precision names; UNSUPPORTED listing the declared ones
// when the plugin does not run it.
const AlgentaPrecisionPolicy& chosen_policy(const AlgentaEngineOpen_Args& args,
                                            const AlgentaDescriptor& descriptor);

// An engine that holds matrices in one type (`held`) per policy. Refuses
// (UNSUPPORTED) a checkpoint with a value `held` cannot represent unless
// round_weights_to == held, and a round_weights_to other than `held`.
WeightHolding settle_engine_weights(const AlgentaEngineOpen_Args& args,
                                    const AlgentaDescriptor& descriptor,
                                    const checkpoint::ResidentCheckpoint& checkpoint,
                                    checkpoint::Dtype held);

// A reference engine that holds any stored type exactly: rounds to
// round_weights_to when set (to run the same weights as the engine it
// checks), keeps the stored type otherwise.
WeightHolding settle_reference_weights(const AlgentaEngineOpen_Args& args,
                                       const AlgentaDescriptor& descriptor,
                                       const checkpoint::ResidentCheckpoint& checkpoint);

// Tells the caller what rounding did (open's out fields).
void report_rounding(AlgentaEngineOpen_Args& args, const WeightHolding& holding);

// ABI dtype <-> checkpoint dtype; NONE and unknown values have no checkpoint dtype.
bool checkpoint_dtype_of(AlgentaDtype dtype, checkpoint::Dtype& out);
AlgentaDtype abi_dtype_of(checkpoint::Dtype dtype);

}  // namespace algenta::decoder
