#pragma once

// tpviz-mpi's hidden options, for tests only (not in --help):
//   --fail-rank R[:signal]   rank R fails after drawing its share (std::bad_alloc, or SIGSEGV)
//   --memory-budget BYTES    the memory budget of each process (LayerConfig::memoryBudgetBytes),
//                            so that the per-rank budget and the per-block check can be tested
//                            with small layers
// Each is also accepted as "--name=value".

#include "rank_faults.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tp::mpi {

struct TestOptions {
    std::optional<FailureDrill> drill;
    std::optional<std::int64_t> memoryBudget;
    std::vector<std::string> errors;  ///< malformed values, in words
};

/// Removes the hidden options from args and returns them.
TestOptions takeTestOptions(std::vector<std::string>& args);

}  // namespace tp::mpi
