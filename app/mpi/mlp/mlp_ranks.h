#pragma once

// The Megatron MLP block on MPI ranks (tpviz-mpi --block mlp): one rank per device of the "model"
// axis, world size = tp_size (the block has no data axis). With c = hidden / tp_size, rank m holds
// the hidden slice s = [m*c, (m+1)*c), drawn from the seed alone (mlpShard, bit-identical to
// slicing the whole block's arrays): kernel1[:, s], bias1[s], kernel2[s, :], all of bias2 and x.
// It runs the core's split on its slice as one device (block/mlp.h):
//   h[:, s] = x @ kernel1[:, s] + bias1[s],  a[:, s] = gelu(h[:, s]),
//   partial_m = a[:, s] @ kernel2[s, :]                                       (N, F)
// then the block's one forward collective, MPI_Allreduce (sum) of the partial sums, and adds bias2
// once: every rank holds the output. With --backward each rank draws all of dy (count 5; the
// output is replicated, so is its cotangent) and runs the core's split backward pass on its slice
// (block/mlp_backward.h): linear2's row backward (dkernel2[s, :], da[:, s]: no collective), the
// GeLU's derivative (dh[:, s]), linear1's column backward (dkernel1[:, s], dbias1[s], its partial
// dh[:, s] @ kernel1[:, s]^T of dx) and dbias2, then MPI_Allreduce (sum) of the (N, in_dim) dx
// partials, the backward's one collective. Rank 0 gathers the slices, checks them against the
// whole block computed in one process with the block's check (verifyMlp, verifyMlpBackward) and
// prints tpviz-cli --block mlp's report with each rank's holdings and times
// (mlp_rank_report.h).

#include "layer/layer_config.h"
#include "scene/scene_options.h"
#include "test_options.h"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tp::mpi {

/// Bytes a rank needs for its share and its pass, as mlpCosts counts a device's holdings
/// (kernel1 and kernel2 slices, the biases, x, h and a, the partial sum, the output), with the
/// backward's (dy, da, dh, the gradients' slices, dx) and the dx partial kept beside the
/// all-reduced dx.
std::int64_t mlpRankBytesNeeded(const LayerConfig& config, bool backward);

/// Whether rank 0 can hold, beside its own share, the whole block twice (the gathered arrays and
/// the single-process block with its check) and, with the backward pass, the block's backward
/// (mlpBackwardBytesNeeded).
bool wholeBlockFitsRankZero(const LayerConfig& config, bool backward);

/// Every reason the block cannot run on `worldSize` ranks, for a valid MLP config whose
/// memoryBudgetBytes is the budget in effect: the world size must be tp_size; each rank's share
/// must fit the memory budget; each array one rank sends in one MPI call must be at most 2^31 - 1
/// floats; the whole block must fit rank 0 (it is always checked there). Every rank computes the
/// same list.
std::vector<std::string> mlpRunProblems(const SceneOptions& options, const LayerConfig& config,
                                        int worldSize);

/// Runs the block on every rank of `world` (a valid run: runProblems empty), writes --save-npy's
/// arrays and prints the report on rank 0; the exit status on every rank: 0 when the forward's
/// check and (with --backward) every gradient's passed, 1 when not, 2 when the arrays or the
/// report could not be written. `hidden` are the tests' faults (a failing rank, "partials" or
/// "dx": that all-reduce left out).
int runMlpRanks(const SceneOptions& options, const TestOptions& hidden, MPI_Comm world);

}  // namespace tp::mpi
