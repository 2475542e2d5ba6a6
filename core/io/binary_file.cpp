#include "io/binary_file.h"

#include "io/file_text.h"
#include "io/staged_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tp {
namespace {

// What a file that is not a regular file is, for the sentence that refuses it.
std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode))
        return "is a folder, not a file";
    if (S_ISFIFO(mode))
        return "is a named pipe (FIFO), not a regular file";
    if (S_ISSOCK(mode))
        return "is a socket, not a regular file";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "is a device, not a regular file";
    return "is not a regular file";
}

// errno's words; "an unknown error" where a call failed without setting errno.
std::string reasonOf(int error) {
    return error == 0 ? std::string("an unknown error") : std::string(std::strerror(error));
}

}  // namespace

InputFile::InputFile(const std::string& path) : m_path(printablePath(path)) {
    if (path.empty()) {
        m_error = "an empty path names no file";
        return;
    }
    if (path.find('\0') != std::string::npos) {
        fail("the path holds a NUL character, which no file name can");
        return;
    }
    // Looked at before it is opened: opening a FIFO for reading waits for a writer, and a device
    // such as /dev/zero never ends.
    struct stat before {};
    if (::stat(path.c_str(), &before) != 0) {
        fail("cannot be opened: " + reasonOf(errno));
        return;
    }
    if (!S_ISREG(before.st_mode)) {
        fail(kindOf(before.st_mode));
        return;
    }
    // O_NONBLOCK: were the path swapped for a FIFO since stat, the open does not wait for it.
    do
        m_fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    while (m_fd < 0 && errno == EINTR);
    if (m_fd < 0) {
        fail("cannot be opened: " + reasonOf(errno));
        return;
    }
    struct stat opened {};
    if (::fstat(m_fd, &opened) != 0) {
        fail("its size cannot be read: " + reasonOf(errno));
        return;
    }
    if (!S_ISREG(opened.st_mode) || opened.st_dev != before.st_dev ||
        opened.st_ino != before.st_ino) {
        fail(S_ISREG(opened.st_mode) ? "changed while it was opened (another file is there now)"
                                     : kindOf(opened.st_mode));
        return;
    }
    m_size = std::int64_t(opened.st_size);
    if (m_size == 0) {
        // A /proc or /sys file says 0 bytes and has content (or fails to read): say which.
        char probe = 0;
        const ssize_t got = ::pread(m_fd, &probe, 1, 0);
        if (got < 0)
            fail("reading failed: " + reasonOf(errno));
        else if (got > 0)
            fail(
                "its size is not known before it is read (a /proc or /sys file?); tpviz reads "
                "regular files of a known size");
        else
            fail("is empty (0 bytes)");
    }
}

InputFile::~InputFile() {
    if (m_fd >= 0)
        ::close(m_fd);
}

void InputFile::fail(const std::string& reason) {
    m_error = m_path + ": " + reason;
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_size = 0;
}

bool InputFile::readAt(std::int64_t offset, void* out, std::int64_t count) {
    if (offset < 0 || count < 0 || offset > m_size || count > m_size - offset) {
        m_error = m_path + ": ends before the " + std::to_string(count) + " bytes at offset " +
                  std::to_string(offset) + " (the file has " + std::to_string(m_size) + " bytes)";
        return false;
    }
    auto* bytes = static_cast<char*>(out);
    std::int64_t done = 0;
    while (done < count) {
        const ssize_t got = ::pread(m_fd, bytes + done, std::size_t(count - done), offset + done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            m_error = m_path + ": reading failed: " + reasonOf(errno);
            return false;
        }
        if (got == 0) {
            m_error = m_path + ": ended after " + std::to_string(offset + done) + " of its " +
                      std::to_string(m_size) + " bytes (it was cut short while being read)";
            return false;
        }
        done += got;
    }
    return true;
}

std::string writeWholeFile(const std::string& path, std::initializer_list<std::string_view> parts) {
    StagedFile file(path);
    const std::string error = file.write(parts);
    return error.empty() ? file.commit() : error;
}

}  // namespace tp
