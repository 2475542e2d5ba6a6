// Fuzzes the .npy reader (core/io/npy.h) with any bytes as a file.
//
// Contracts checked: readNpy never crashes and returns either an array or one sentence; an array
// it returns has the shape its header states ((n,) as one row, or (rows, cols)), and writing that
// array with writeNpy and reading it back gives the same float32 bits.

#include "fuzz_input_file.h"
#include "io/npy.h"

#include <cstring>

namespace {

constexpr std::int64_t kMaxBytes = std::int64_t(64) << 20;

bool sameBits(const tp::Matrix& a, const tp::Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           (a.size() == 0 || std::memcmp(a.data(), b.data(), std::size_t(a.size()) * 4) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = tp::fuzz::inputFile("npy", data, size);
    const tp::FloatArrayRead read = tp::readNpy(path, kMaxBytes);
    if (!read.array) {
        if (read.error.empty())
            __builtin_trap();  // a refusal always says why
        return 0;
    }
    const tp::FloatArray& array = *read.array;
    const bool vector = array.shape.size() == 1;
    if (vector ? (array.values.rows() != 1 || array.values.cols() != array.shape[0])
               : (array.shape.size() != 2 || array.values.rows() != array.shape[0] ||
                  array.values.cols() != array.shape[1]))
        __builtin_trap();
    if (array.values.rows() == 0)
        return 0;  // a (0, n) array has nothing to compare
    const std::string again = path + ".again.npy";
    if (!tp::writeNpy(again, array.values, vector).empty())
        __builtin_trap();
    const tp::FloatArrayRead back = tp::readNpy(again, kMaxBytes);
    std::remove(again.c_str());
    if (!back.array || !sameBits(back.array->values, array.values))
        __builtin_trap();
    return 0;
}
