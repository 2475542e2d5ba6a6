#pragma once

// What each rank of the MLP block held and spent, gathered on rank 0 and printed after tpviz-cli
// --block mlp's report.
//
// JSON members added to the block's document (mlp_report.h's otherwise):
//   "mpi": {"world_size", "check": "single-process", "check_note", "bit_identical", "elements"}
//          (as the one Linear's run: output elements bit-identical to tpviz-cli's split);
//   "ranks": [{"rank", "device": [0, m], "hidden": [start, stop], "kernel1_bytes_held",
//              "bias1_bytes_held", "kernel2_bytes_held", "bias2_bytes_held", "x_bytes_held",
//              "hidden_bytes_held" (h and a), "partial_bytes_held", "output_bytes_held",
//              "peak_rss_bytes", "generate_s", "compute_s" (linear1, the GeLU and linear2's
//              partial sum), "communication_s" (the all-reduce of the partial sums)}, ...]
//            in rank order, the bytes named as costs.per_device names them. With --backward each
//            rank's object also holds
//   "backward": {"dy_bytes_held", "da_bytes_held", "dh_bytes_held", "dkernel1_bytes_held",
//                "dbias1_bytes_held", "dkernel2_bytes_held", "dbias2_bytes_held",
//                "dx_bytes_held", "generate_s" (dy), "compute_s",
//                "collectives": [{"name": "all-reduce", "axis": "model", "of": "dx",
//                                 "communication_s"}]}

#include "layer/eigen_types.h"
#include "rank_report.h"

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tp::mpi {

/// What a rank held and spent in the block's backward pass.
struct MlpRankBackwardStats {
    std::int64_t dyBytesHeld = 0, daBytesHeld = 0, dhBytesHeld = 0, dkernel1BytesHeld = 0,
                 dbias1BytesHeld = 0, dkernel2BytesHeld = 0, dbias2BytesHeld = 0, dxBytesHeld = 0;
    double generateSeconds = 0;       ///< drawing dy from the seed
    double computeSeconds = 0;        ///< the gradients of the rank's slice
    double communicationSeconds = 0;  ///< the all-reduce of dx
};

struct MlpRankStats {
    int rank = 0;
    IndexRange hidden;  ///< the rank's slice of the hidden features
    std::int64_t kernel1BytesHeld = 0, bias1BytesHeld = 0, kernel2BytesHeld = 0, bias2BytesHeld = 0,
                 xBytesHeld = 0;
    std::int64_t hiddenBytesHeld = 0;   ///< its slices of h and a
    std::int64_t partialBytesHeld = 0;  ///< linear2's partial sum
    std::int64_t outputBytesHeld = 0;
    std::int64_t peakRssBytes = 0;
    double generateSeconds = 0;                    ///< drawing the share from the seed
    double computeSeconds = 0;                     ///< linear1, the GeLU and linear2's partial sum
    double communicationSeconds = 0;               ///< the all-reduce of the partial sums
    std::optional<MlpRankBackwardStats> backward;  ///< with --backward (on every rank or none)
};

/// Every rank's stats on rank 0, in rank order; empty elsewhere. Collective over `world`.
std::vector<MlpRankStats> gatherMlpStats(const MlpRankStats& mine, MPI_Comm world);

/// The "mpi" and "ranks" members, for writeMlpJsonReport's `more`.
Json mlpRanksJson(const std::vector<MlpRankStats>& ranks, const CheckKind& check);

/// The same as readable lines: the check, then a line per rank (and with the backward pass, a
/// second line of what it held and spent there).
std::string mlpRanksText(const std::vector<MlpRankStats>& ranks, const CheckKind& check);

}  // namespace tp::mpi
