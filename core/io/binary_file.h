#pragma once

// Reading and writing whole binary files with every failure stated in words (the reason from the
// operating system, e.g. "No such file or directory").

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace tp {

/// A regular file opened for reading, with its length known before anything is read. Anything
/// else is refused before it is opened for reading, so that nothing waits on it or reads without
/// end: an empty path, a path holding a NUL, a folder, a named pipe (FIFO), a device such as
/// /dev/zero, a socket; and, once opened, a file that is not the regular file looked at, an empty
/// file, or one whose size is not known in advance (a /proc or /sys file).
class InputFile {
public:
    /// Opens `path`; on failure error() says why, naming the file.
    explicit InputFile(const std::string& path);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    bool isOpen() const { return m_fd >= 0; }
    const std::string& error() const { return m_error; }
    std::int64_t size() const { return m_size; }

    /// Reads exactly `count` bytes at `offset` into `out`; false (and error() set) when not.
    bool readAt(std::int64_t offset, void* out, std::int64_t count);

private:
    void fail(const std::string& reason);

    std::string m_path;  ///< as messages show it (printableText)
    int m_fd = -1;
    std::int64_t m_size = 0;
    std::string m_error;
};

/// Writes the parts one after another to `path` through a StagedFile: a new temporary beside it,
/// renamed over it once whole, so a failure leaves `path` as it was and a link at `path` is
/// replaced, not written through. Returns "" on success, or a sentence naming the file and the
/// reason.
std::string writeWholeFile(const std::string& path, std::initializer_list<std::string_view> parts);

}  // namespace tp
