#include "rank_faults.h"

#include <mpi.h>

#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>

namespace tp::mpi {
namespace {

int gRank = -1;

// Writes with write(2) only: the handler may run in the middle of anything.
void writeText(const char* text) {
    ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
    (void)ignored;
}

void onFatalSignal(int signal) {
    std::signal(signal, SIG_DFL);
    char number[16];
    int length = 0;
    char digits[16];
    int rank = gRank < 0 ? 0 : gRank;
    do {
        digits[length++] = char('0' + rank % 10);
        rank /= 10;
    } while (rank > 0);
    for (int i = 0; i < length; ++i)
        number[i] = digits[length - 1 - i];
    number[length] = '\0';
    writeText("tpviz-mpi: rank ");
    writeText(number);
    writeText(" failed: signal ");
    writeText(sigabbrev_np(signal) ? sigabbrev_np(signal) : "?");
    writeText(" (");
    writeText(sigdescr_np(signal) ? sigdescr_np(signal) : "unknown");
    writeText("); aborting the job\n");
    MPI_Abort(MPI_COMM_WORLD, kRankFailedStatus);
    std::raise(signal);
}

}  // namespace

void abortJob(int rank, const std::string& reason) {
    std::fprintf(stderr, "tpviz-mpi: rank %d failed: %s; aborting the job\n", rank, reason.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, kRankFailedStatus);
    std::abort();
}

void installFaultHandlers(int rank) {
    gRank = rank;
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
        std::signal(signal, onFatalSignal);
}

void runFailureDrill(const std::optional<FailureDrill>& drill, int rank) {
    if (!drill || drill->rank != rank)
        return;
    if (drill->kind == FailureDrill::Kind::Signal)
        std::raise(SIGSEGV);
    throw std::bad_alloc();
}

}  // namespace tp::mpi
