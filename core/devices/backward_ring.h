#pragma once

// The backward's collectives over "model" run step by step on the devices' buffers, as the
// output collective is (ring_collective.h), with the mesh's data rows side by side (Nd = N / D
// rows per device, P = tp_size):
//   dy all-gather (row + sharded output): device (d, m) starts with dy's rows of batch block d in
//     chunk m of the features (the chunk the forward's reduce-scatter left it, featureChunks);
//     after P-1 steps every device holds all of its block's dy. Values only move: every bit must
//     match dy.
//   dx all-reduce (column): device (d, m) starts with its partial dx_m's rows of block d,
//     (Nd, in_dim), in_dim cut into P chunks; a reduce-scatter then an all-gather, 2(P-1) steps,
//     leave every device with block d of dx, summed in ring order rather than the split pass's
//     dx_0 + dx_1 + ...; checked against the split pass's dx with the rounding bound of
//     dy @ kernel^T (K = features).
//   dkernel and dbias all-reduces over "data" (D > 1): device (d, m) starts with its block
//     computed from batch block d alone (x[rows_d]^T @ dy[rows_d] in its columns or rows; dy's
//     sum over rows_d); for each model shard m a ring of the D devices (d, m) adds them, its
//     columns cut into D chunks. The RingRun's `data` is then P (the rings side by side) and its
//     `model` D (the devices of one ring): ring m's device d is run.device(stack, m, d). Checked
//     against the split pass's block with the rounding bound of its own product (K = batch).

#include "devices/backward_collectives.h"
#include "devices/ring_collective.h"
#include "layer/backward.h"

#include <vector>

namespace tp {

/// What the runs allocate besides the scene and its backward (bytesNeeded + backwardBytesNeeded):
/// dy all-gather, three (P*N, features) stacks (initial, final, expected); dx all-reduce, three
/// (P*N, in_dim) stacks, dy stacked the same way (P*N, features) and kernel^T; over "data", three
/// stacks of the D*P devices' blocks (initial, final, expected), two more in column mode (the
/// check's transposes), and the check's two factors. The step buffers come on top when kept. For a
/// valid config.
std::int64_t backwardRingBytes(const LayerConfig& config);

/// One RingRun per entry of backwardCollectives(config), in its order, each run as above when its
/// buffers fit the memory budget beside the scene, its backward and the runs before it (else
/// simulated false and the note says why). `result` is the split pass on the layer's x and kernel
/// with cotangent dy: its gradients are what the collectives must give.
std::vector<RingRun> runBackwardRings(const LayerConfig& config, const BackwardResult& result,
                                      const MatrixCRef& x, const MatrixCRef& kernel,
                                      const MatrixCRef& dy, const CheckSettings& check = {});

}  // namespace tp
