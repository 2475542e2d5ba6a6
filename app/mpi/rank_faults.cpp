#include "rank_faults.h"

#include "layer_config.h"

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

std::optional<FailureDrill> takeFailureDrill(std::vector<std::string>& args, std::string& error) {
    const std::string name = "--fail-rank";
    for (auto it = args.begin(); it != args.end(); ++it) {
        std::string value;
        auto last = it;
        if (*it == name) {
            if (std::next(it) == args.end()) {
                error = name + " needs a value: R or R:signal";
                return std::nullopt;
            }
            last = std::next(it);
            value = *last;
        } else if (it->rfind(name + "=", 0) == 0) {
            value = it->substr(name.size() + 1);
        } else {
            continue;
        }
        args.erase(it, std::next(last));
        FailureDrill drill;
        const std::size_t colon = value.find(':');
        if (colon != std::string::npos) {
            if (value.substr(colon + 1) != "signal") {
                error = name + " (" + value + "): the failure after ':' must be \"signal\"";
                return std::nullopt;
            }
            drill.kind = FailureDrill::Kind::Signal;
        }
        const std::optional<std::int64_t> rank = parseInt64(value.substr(0, colon));
        if (!rank || *rank < 0 || *rank > 1 << 20) {
            error = name + " (" + value + "): R must be a rank number";
            return std::nullopt;
        }
        drill.rank = int(*rank);
        return drill;
    }
    return std::nullopt;
}

void runFailureDrill(const std::optional<FailureDrill>& drill, int rank) {
    if (!drill || drill->rank != rank)
        return;
    if (drill->kind == FailureDrill::Kind::Signal)
        std::raise(SIGSEGV);
    throw std::bad_alloc();
}

}  // namespace tp::mpi
