#pragma once

// What each rank measured, gathered on rank 0 and printed after tpviz-cli's report.
//
// JSON keys added to the report (tpviz-cli's schema otherwise):
//   "mpi": {"world_size": W, "check": "single-process" | "per-block", "check_note": "...",
//           "bit_identical": n, "elements": N*F},   (the last two with "single-process" only)
//   "ranks": [{"rank": r, "device": [d, m], "kernel_bytes_held", "bias_bytes_held",
//              "x_bytes_held", "output_bytes_held", "peak_rss_bytes", "generate_s", "compute_s",
//              "communication_s"}, ...]   (in rank order)
// With --backward, each rank's object also holds
//   "backward": {"dy_bytes_held", "dx_bytes_held", "dkernel_bytes_held", "dbias_bytes_held",
//                "generate_s", "compute_s",
//                "collectives": [{"name", "axis", "of", "communication_s"}, ...]}
//   (the collectives as the report's backward.collectives lists them, in the order they run)
// With --layout fsdp or sequence, each rank's object also holds
//   "layout": {"bytes_at_rest", "bytes_peak",
//              "collectives": [{"name", "phase", "axis", "of", "communication_s"}, ...]}
//   (the collectives of costs.collectives, in the order they run; the backward's are there, and
//   the "backward" member's "collectives" is empty)

#include "devices/backward_collectives.h"
#include "devices/layout_costs.h"
#include "rank_share.h"
#include "scene/report.h"

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tp::mpi {

/// What a rank held and spent in the backward pass.
struct RankBackwardStats {
    std::int64_t dyBytesHeld = 0;
    std::int64_t dxBytesHeld = 0;
    std::int64_t dkernelBytesHeld = 0;
    std::int64_t dbiasBytesHeld = 0;
    double generateSeconds = 0;  ///< drawing dy from the seed
    double computeSeconds = 0;   ///< the gradients' products
    /// Each backward collective's wall clock, in the order backwardCollectives lists them.
    std::vector<double> collectiveSeconds;
};

/// What a rank held and spent in the fsdp or sequence layout's program (layout_ranks.h).
struct RankLayoutStats {
    std::int64_t bytesAtRest = 0;  ///< kernel, bias and x kept between passes
    std::int64_t bytesPeak = 0;    ///< at layoutMemory's moments (LayoutRankRun::bytesPeak)
    /// Each collective's wall clock, in the order layoutCollectives lists them.
    std::vector<double> collectiveSeconds;
};

struct RankStats {
    int rank = 0;
    std::int64_t d = 0;
    std::int64_t m = 0;
    std::int64_t kernelBytesHeld = 0;
    std::int64_t biasBytesHeld = 0;
    std::int64_t xBytesHeld = 0;
    std::int64_t outputBytesHeld = 0;
    std::int64_t peakRssBytes = 0;    ///< the process's peak resident set (getrusage)
    double generateSeconds = 0;       ///< drawing the share from the seed
    double computeSeconds = 0;        ///< the partial product
    double communicationSeconds = 0;  ///< the collective
    double waitSeconds = 0;  ///< the barrier before the collective: waiting for the slowest rank
    std::optional<RankBackwardStats> backward;  ///< with --backward (on every rank or none)
    std::optional<RankLayoutStats> layout;      ///< fsdp or sequence (on every rank or none)
};

/// How the output was checked.
struct CheckKind {
    bool singleProcess = true;  ///< against the whole reference on rank 0, else block by block
    std::string note;           ///< why, in words
    /// Single-process check only: output elements whose bits equal the core's split forward pass
    /// on rank 0 (tpviz-cli's output), out of `elements`.
    std::int64_t bitIdentical = 0;
    std::int64_t elements = 0;
};

/// This process's peak resident set size in bytes.
std::int64_t peakRssBytes();

/// Every rank's stats on rank 0, in rank order; empty elsewhere. Collective over `world`.
std::vector<RankStats> gatherStats(const RankStats& mine, MPI_Comm world);

/// The "mpi" member: the world size and how the output was checked.
Json mpiJson(std::size_t worldSize, const CheckKind& check);

/// The same as the readable lines that open the ranks' part of the text report.
std::string mpiText(std::size_t worldSize, const CheckKind& check);

/// The "mpi" and "ranks" members, for writeJsonReport's `more`; `collectives` names the backward
/// collectives whose times the ranks' backward stats hold, `program` the layout's whose times
/// their layout stats hold.
Json ranksJson(const std::vector<RankStats>& ranks, const CheckKind& check,
               const std::vector<BackwardCollective>& collectives = {},
               const std::vector<LayoutCollective>& program = {});

/// The same as readable lines: the check, then one line per rank (and with the backward pass, a
/// second line of what it held and spent there; with a layout's program, a line of its bytes and
/// collectives).
std::string ranksText(const std::vector<RankStats>& ranks, const CheckKind& check,
                      const std::vector<BackwardCollective>& collectives = {},
                      const std::vector<LayoutCollective>& program = {});

}  // namespace tp::mpi
