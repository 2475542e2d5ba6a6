#pragma once

// What each rank measured, gathered on rank 0 and printed after tpviz-cli's report.
//
// JSON keys added to the report (tpviz-cli's schema otherwise):
//   "mpi": {"world_size": W, "check": "single-process" | "per-block", "check_note": "...",
//           "bit_identical": n, "elements": N*F},   (the last two with "single-process" only)
//   "ranks": [{"rank": r, "device": [d, m], "kernel_bytes_held", "bias_bytes_held",
//              "x_bytes_held", "output_bytes_held", "peak_rss_bytes", "generate_s", "compute_s",
//              "communication_s"}, ...]   (in rank order)

#include "rank_share.h"
#include "scene/report.h"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tp::mpi {

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

/// The "mpi" and "ranks" members, for writeJsonReport's `more`.
Json ranksJson(const std::vector<RankStats>& ranks, const CheckKind& check);

/// The same as readable lines: the check, then one line per rank.
std::string ranksText(const std::vector<RankStats>& ranks, const CheckKind& check);

}  // namespace tp::mpi
