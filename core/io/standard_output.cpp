#include "io/standard_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace tp {
namespace {

std::string failure(int error) {
    return std::string("standard output cannot be written: ") + std::strerror(error);
}

}  // namespace

std::string standardOutputProblem() {
    if (::fcntl(STDOUT_FILENO, F_GETFD) == -1 && errno == EBADF)
        return "standard output is closed; give the report somewhere to go (a file, a pipe or "
               "the terminal)";
    return "";
}

std::string writeStandardOutput(std::string_view text) {
    errno = 0;
    const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
    if (!written || std::fflush(stdout) != 0 || std::ferror(stdout)) {
        const int error = errno ? errno : EIO;
        std::clearerr(stdout);
        return failure(error);
    }
    return "";
}

std::string writeStandardOutput(const std::function<void(std::ostream&)>& write) {
    errno = 0;
    write(std::cout);
    std::cout.flush();
    if (!std::cout || std::ferror(stdout)) {
        const int error = errno ? errno : EIO;
        std::cout.clear();
        std::clearerr(stdout);
        return failure(error);
    }
    return "";
}

std::string finishStandardOutput() {
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
        return failure(errno ? errno : EIO);
    // Closing a duplicate reports what closing stdout would (a file system that writes on close)
    // and leaves stdout open for the streams that flush it at exit.
    const int duplicate = ::dup(STDOUT_FILENO);
    if (duplicate < 0 || ::close(duplicate) != 0)
        return failure(errno);
    return "";
}

}  // namespace tp
