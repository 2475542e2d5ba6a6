#pragma once

// The readers of core/io read files by path: a fuzzer writes its input to a file of its own
// (one per process, in the system's temporary folder) and hands the reader that path.

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace tp::fuzz {

/// Writes the input to this process's scratch file `<tmp>/tpviz-fuzz-<tag>-<pid>` and returns
/// its path; aborts when the file cannot be written (the fuzzer cannot test anything then).
inline std::string inputFile(const char* tag, const std::uint8_t* data, std::size_t size) {
    static const std::string path =
        std::string("/tmp/tpviz-fuzz-") + tag + "-" + std::to_string(::getpid());
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file || std::fwrite(data, 1, size, file) != size)
        __builtin_trap();
    std::fclose(file);
    return path;
}

}  // namespace tp::fuzz
