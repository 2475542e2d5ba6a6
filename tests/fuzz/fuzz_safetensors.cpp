// Fuzzes the .safetensors reader (core/io/safetensors.h) with any bytes as a file.
//
// Contracts checked: readSafetensorsIndex never crashes and returns an index or one sentence; for
// every tensor of an index it accepts, readSafetensor returns an array or a sentence, and for a
// 2-D tensor the transposed read is the transpose of the plain read, bit for bit.

#include "fuzz_input_file.h"
#include "io/safetensors.h"

#include <cstring>

namespace {

constexpr std::int64_t kMaxBytes = std::int64_t(64) << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = tp::fuzz::inputFile("safetensors", data, size);
    const tp::SafetensorsIndexRead index = tp::readSafetensorsIndex(path);
    if (!index.index) {
        if (index.error.empty())
            __builtin_trap();
        return 0;
    }
    int tried = 0;
    for (const tp::SafetensorsTensor& tensor : index.index->tensors) {
        if (++tried > 4)
            break;
        const tp::FloatArrayRead plain = tp::readSafetensor(path, tensor.name, false, kMaxBytes);
        if (!plain.array) {
            if (plain.error.empty())
                __builtin_trap();
            continue;
        }
        if (tensor.shape.size() != 2)
            continue;
        const tp::FloatArrayRead turned = tp::readSafetensor(path, tensor.name, true, kMaxBytes);
        if (!turned.array)
            __builtin_trap();  // the same bytes, only laid out the other way
        const tp::Matrix expected = plain.array->values.transpose();
        const tp::Matrix& got = turned.array->values;
        if (got.rows() != expected.rows() || got.cols() != expected.cols() ||
            (got.size() > 0 &&
             std::memcmp(got.data(), expected.data(), std::size_t(got.size()) * 4) != 0))
            __builtin_trap();
    }
    return 0;
}
