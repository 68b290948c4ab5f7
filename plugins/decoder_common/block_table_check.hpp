// A chunk's block table checked against the engine's paged cache when the
// engine took the host's block tables (ABI 1.1), before anything is
// computed, so a refused step changes nothing. Each refusal is a
// plugin::StatusError (INVALID_ARGUMENT) naming the sequence and numbers.
#pragma once

#include <cstdint>
#include <span>

#include "algenta/plugin_abi.h"
#include "step_plan.hpp"

namespace algenta::decoder {

// The blocks covering the chunk's positions 0 .. start + count - 1.
// Refuses a chunk whose struct_size does not cover the 1.1 fields, a NULL
// table, one too short for the chunk's last position, a covering block id at
// or past blocks_total and a block listed twice (entries past the covering
// ones are not read).
std::span<const std::uint32_t> checked_block_table(const AlgentaSequenceChunk& chunk,
                                                   const HostBlockGeometry& geometry);

// Refuses a step in which a block one chunk writes is listed by another
// chunk too (a block the host shares must be read-only).
void refuse_shared_writes(std::span<const PlannedChunk> chunks, const HostBlockGeometry& geometry);

}  // namespace algenta::decoder
