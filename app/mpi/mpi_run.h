#pragma once

// tpviz-mpi's run: the checks that every rank makes alike before starting, and the scene computed
// by world_size = data * tp_size ranks, reported by rank 0 as tpviz-cli reports it.

#include "scene/scene_options.h"
#include "test_options.h"

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tp::mpi {

/// Every reason this run cannot start, in words; empty when it can. Starts from the parse's
/// problems, without the whole-scene memory budget (each rank holds only its share), and adds: the
/// world size must equal data * tp_size; each rank's share (with --backward, its backward pass's
/// too) must fit the memory budget; the full report (without --summary), --save-npy and
/// --backward need the whole layer on rank 0; scenes come from a seed (not --example brief). The
/// MLP block's (--block mlp) are mlpRunProblems' (mlp/mlp_ranks.h) after the options' own.
/// memoryBudget replaces the config's budget when given. Every rank computes the same list.
std::vector<std::string> runProblems(const SceneOptionsParse& parse, int worldSize,
                                     std::optional<std::int64_t> memoryBudget = std::nullopt);

/// Whether rank 0 can hold, beside its own share, the whole scene twice: the gathered output and
/// partials, and the single-process arrays, reference and split pass to check them against; with
/// backward, also the gathered gradients and what checking them needs (backwardBytesNeeded).
bool wholeLayerFitsRankZero(const LayerConfig& config, bool backward = false);

/// Computes the scene on every rank of `world` (a valid run: runProblems empty; the MLP block as
/// runMlpRanks does, mlp/mlp_ranks.h), with the backward
/// pass when the options ask, writes --save-npy's arrays (saveSceneArrays, as tpviz-cli does) and
/// prints the report on rank 0, and returns the exit status on every rank: 0 when every check
/// passed, 1 when not, 2 when the arrays or the report could not be written (the reason on
/// stderr). `hidden` are the tests' faults (a failing rank, a collective left out).
int runRanks(const SceneOptions& options, const TestOptions& hidden, MPI_Comm world);

}  // namespace tp::mpi
