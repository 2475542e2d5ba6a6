#pragma once

// tpviz-mpi's hidden options, for tests only (not in --help):
//   --fail-rank R[:signal]   rank R fails after drawing its share (std::bad_alloc, or SIGSEGV)
//   --memory-budget BYTES    the memory budget of each process (LayerConfig::memoryBudgetBytes),
//                            so that the per-rank budget and the per-block check can be tested
//                            with small layers
//   --skip-collective OF     every rank leaves out the collective of OF, so that a test sees the
//                            check fail without it: one Linear's backward collectives (dy, dx,
//                            dkernel or dbias), the MLP block's all-reduces (partials: linear2's
//                            partial sums; dx)
// Each is also accepted as "--name=value".

#include "layer/layer_config.h"
#include "rank_faults.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tp::mpi {

struct TestOptions {
    std::optional<FailureDrill> drill;
    std::optional<std::int64_t> memoryBudget;
    std::string skippedCollective;    ///< "" or the array whose backward collective is left out
    std::vector<std::string> errors;  ///< malformed values, in words
};

/// Removes the hidden options from args and returns them.
TestOptions takeTestOptions(std::vector<std::string>& args);

/// Why `options.skippedCollective` names no collective of `block` ("" when it does, or is "").
std::string skippedCollectiveProblem(const TestOptions& options, Block block);

}  // namespace tp::mpi
