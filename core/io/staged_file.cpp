#include "io/staged_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <utility>

namespace tp {
namespace {

// A temporary name beside `path` that no earlier run is likely to hold: the name hidden, then a
// random suffix (a name taken is skipped, O_EXCL decides).
std::string temporaryName(const std::string& path, std::mt19937_64& random) {
    const std::filesystem::path p(path);
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(random()));
    return (p.parent_path() / ("." + p.filename().string() + ".tpviz-" + suffix)).string();
}

bool writeAll(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        bytes.remove_prefix(std::size_t(n));
    }
    return true;
}

}  // namespace

StagedFile::StagedFile(std::string path) : m_path(std::move(path)) {}

StagedFile::~StagedFile() {
    discard();
}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : m_path(std::move(other.m_path)), m_temporary(std::exchange(other.m_temporary, {})) {}

std::string StagedFile::write(std::initializer_list<std::string_view> parts) {
    discard();
    std::mt19937_64 random{std::random_device{}()};
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        m_temporary = temporaryName(m_path, random);
        fd =
            ::open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        const int error = errno;
        m_temporary.clear();
        return m_path + ": cannot be written: " + std::strerror(error);
    }
    bool written = true;
    for (const std::string_view part : parts)
        written = written && writeAll(fd, part);
    written = written && ::fsync(fd) == 0;
    const int writeError = errno;
    const bool closed = ::close(fd) == 0;
    if (!written || !closed) {
        const int error = written ? errno : writeError;
        discard();
        return m_path + ": writing failed: " + std::strerror(error);
    }
    return "";
}

std::string StagedFile::commit() {
    if (m_temporary.empty())
        return m_path + ": nothing was written to put in place";
    if (std::rename(m_temporary.c_str(), m_path.c_str()) != 0) {
        const int error = errno;
        discard();
        return m_path + ": cannot be put in place: " + std::strerror(error);
    }
    m_temporary.clear();
    return "";
}

void StagedFile::discard() {
    if (!m_temporary.empty())
        ::unlink(m_temporary.c_str());
    m_temporary.clear();
}

}  // namespace tp
