// The engine with the host's KV block tables (ABI 1.1), on the card.
#pragma once

#include <string>

namespace engine_checks {

// Reports, one line each:
//  - host_tables_accepted: offered, the engine takes them with 32-token
//    blocks and reports the pool open sized; not offered, or asked by a 1.0
//    host, it keeps its own cache and writes no 1.1 field;
//  - host_tables_same_bits_as_own_cache: a prompt chunked and decoded
//    through a table of scattered blocks gives the bits of the engine's own
//    cache, and so does a second sequence on other blocks, whose decode
//    reuses the graphs the first captured;
//  - prefix_hit_*: B starts at position 256 on the 8 blocks A prefilled and
//    gets the bits of a cold prefill of its whole prompt; the same tokens on
//    blocks holding another prefix give other bits; A freed, its blocks
//    still serve a hit;
//  - refused_*: a block id past the pool, a short table, a NULL table, a
//    block listed twice, a block one chunk writes and another lists: each
//    refused by name, and a refused step changes no sequence.
void check_host_block_tables(const std::string& dir);

}  // namespace engine_checks
