#pragma once

// Reading and writing whole binary files with every failure stated in words (the reason from the
// operating system, e.g. "No such file or directory").

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

namespace tp {

/// A file opened for reading, with its length known before anything is read.
class InputFile {
public:
    /// Opens `path`; on failure error() says why, naming the file.
    explicit InputFile(const std::string& path);

    bool isOpen() const { return m_file != nullptr; }
    const std::string& error() const { return m_error; }
    std::int64_t size() const { return m_size; }

    /// Reads exactly `count` bytes at `offset` into `out`; false (and error() set) when not.
    bool readAt(std::int64_t offset, void* out, std::int64_t count);

private:
    struct Closer {
        void operator()(std::FILE* file) const { std::fclose(file); }
    };
    std::string m_path;
    std::unique_ptr<std::FILE, Closer> m_file;
    std::int64_t m_size = 0;
    std::string m_error;
};

/// Writes the parts one after another to `path` through a StagedFile: a new temporary beside it,
/// renamed over it once whole, so a failure leaves `path` as it was and a link at `path` is
/// replaced, not written through. Returns "" on success, or a sentence naming the file and the
/// reason.
std::string writeWholeFile(const std::string& path, std::initializer_list<std::string_view> parts);

}  // namespace tp
