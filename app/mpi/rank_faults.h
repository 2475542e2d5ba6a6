#pragma once

// A rank that fails must not leave the others waiting in a collective: it says which rank failed
// and why, then ends the whole job with MPI_Abort.

#include <optional>
#include <string>
#include <vector>

namespace tp::mpi {

/// The job's exit status when a rank failed (tpviz-cli's are 0 passed, 1 failed check, 2 invalid).
inline constexpr int kRankFailedStatus = 3;

/// Prints "tpviz-mpi: rank R failed: REASON; aborting the job" to stderr and calls
/// MPI_Abort(MPI_COMM_WORLD, kRankFailedStatus).
[[noreturn]] void abortJob(int rank, const std::string& reason);

/// Makes SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT end the job the same way, naming the rank
/// and the signal.
void installFaultHandlers(int rank);

/// A forced failure for tests: rank `rank` throws std::bad_alloc (Alloc) or raises SIGSEGV
/// (Signal) after drawing its share.
struct FailureDrill {
    enum class Kind { Alloc, Signal };
    int rank = -1;
    Kind kind = Kind::Alloc;
};

/// Fails as the drill says when `rank` is its rank; otherwise does nothing.
void runFailureDrill(const std::optional<FailureDrill>& drill, int rank);

}  // namespace tp::mpi
