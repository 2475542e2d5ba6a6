#include "io/safetensors.h"

#include "io/binary_file.h"
#include "io/file_text.h"
#include "io/json_document.h"
#include "layer/fresh_matrix.h"
#include "layer/layer_config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

namespace tp {
namespace {

using nlohmann::json;

// The reference implementation refuses headers over 100 MB; so does this reader.
constexpr std::int64_t kMaxHeaderBytes = 100'000'000;

// Bytes per element of the dtypes the specification lists.
std::optional<int> dtypeSize(const std::string& dtype) {
    static const std::map<std::string, int> sizes = {
        {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
        {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
        {"U32", 4},  {"F32", 4}, {"I64", 8}, {"U64", 8},     {"F64", 8}};
    const auto found = sizes.find(dtype);
    if (found == sizes.end())
        return std::nullopt;
    return found->second;
}

std::optional<StoredFloat> storedFloat(const std::string& dtype) {
    if (dtype == "F16")
        return StoredFloat::Float16;
    if (dtype == "BF16")
        return StoredFloat::BFloat16;
    if (dtype == "F32")
        return StoredFloat::Float32;
    if (dtype == "F64")
        return StoredFloat::Float64;
    return std::nullopt;
}

std::optional<std::int64_t> nonNegative(const json& value) {
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        return std::int64_t(value.get<std::uint64_t>());
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
        return value.get<std::int64_t>();
    return std::nullopt;
}

// Checks one entry {"dtype", "shape", "data_offsets"}; returns the reason on failure.
std::optional<SafetensorsTensor> parseEntry(const std::string& name, const json& entry,
                                            std::string& reason) {
    const std::string where = "tensor " + quotedText(name);
    if (!entry.is_object()) {
        reason = where + " is not a JSON object";
        return std::nullopt;
    }
    for (const auto& [key, value] : entry.items())
        if (key != "dtype" && key != "shape" && key != "data_offsets") {
            reason = where + " has the unknown key " + quotedText(key);
            return std::nullopt;
        }
    SafetensorsTensor tensor;
    tensor.name = name;
    if (!entry.contains("dtype") || !entry["dtype"].is_string()) {
        reason = where + ": 'dtype' is missing or not a string";
        return std::nullopt;
    }
    tensor.dtype = entry["dtype"].get<std::string>();
    const auto size = dtypeSize(tensor.dtype);
    if (!size) {
        reason = where + ": dtype " + quotedText(tensor.dtype) + " is not one the format defines";
        return std::nullopt;
    }
    if (!entry.contains("shape") || !entry["shape"].is_array()) {
        reason = where + ": 'shape' is missing or not a list";
        return std::nullopt;
    }
    for (const json& dim : entry["shape"]) {
        const auto value = nonNegative(dim);
        if (!value) {
            reason = where + ": 'shape' holds " + printableText(dim.dump()) +
                     ", not a whole number >= 0";
            return std::nullopt;
        }
        tensor.shape.push_back(*value);
    }
    const json* offsets = entry.contains("data_offsets") ? &entry["data_offsets"] : nullptr;
    const auto begin = offsets && offsets->is_array() && offsets->size() == 2
                           ? nonNegative((*offsets)[0])
                           : std::nullopt;
    const auto end = begin ? nonNegative((*offsets)[1]) : std::nullopt;
    if (!begin || !end || *end < *begin) {
        reason = where + ": 'data_offsets' is not [begin, end] with 0 <= begin <= end";
        return std::nullopt;
    }
    tensor.begin = *begin;
    tensor.end = *end;
    const auto count = elementCount(tensor.shape);
    if (!count || *count > std::numeric_limits<std::int64_t>::max() / *size ||
        *count * *size != tensor.end - tensor.begin) {
        reason = where + ": data_offsets [" + std::to_string(tensor.begin) + ", " +
                 std::to_string(tensor.end) + "] hold " +
                 std::to_string(tensor.end - tensor.begin) + " bytes, but " + tensor.dtype +
                 " of shape " + shapeText(tensor.shape) +
                 (count ? " needs " + std::to_string(*count) + " x " + std::to_string(*size)
                        : std::string(" is too large to exist"));
        return std::nullopt;
    }
    return tensor;
}

// (rows, cols) -> (cols, rows), copied in 64 x 64 tiles so that reads and writes stay in cache.
Matrix transposed(const Matrix& m) {
    Matrix t = uninitializedMatrix(m.cols(), m.rows());
    constexpr Index kTile = 64;
    for (Index i = 0; i < m.rows(); i += kTile)
        for (Index j = 0; j < m.cols(); j += kTile) {
            const Index h = std::min(kTile, m.rows() - i);
            const Index w = std::min(kTile, m.cols() - j);
            t.block(j, i, w, h) = m.block(i, j, h, w).transpose();
        }
    return t;
}

}  // namespace

const SafetensorsTensor* SafetensorsIndex::find(const std::string& name) const {
    for (const SafetensorsTensor& tensor : tensors)
        if (tensor.name == name)
            return &tensor;
    return nullptr;
}

std::vector<std::string> SafetensorsIndex::twoDimensionalNames() const {
    std::vector<std::string> names;
    for (const SafetensorsTensor& tensor : tensors)
        if (tensor.shape.size() == 2)
            names.push_back(tensor.name);
    return names;
}

namespace {

// The header of an open file, checked against its length.
SafetensorsIndexRead readIndex(InputFile& file, const std::string& path) {
    auto failure = [&](const std::string& reason) {
        return SafetensorsIndexRead{std::nullopt, printablePath(path) + ": " + reason};
    };
    if (!file.isOpen())
        return {std::nullopt, file.error()};
    unsigned char lengthBytes[8];
    if (file.size() < 8 || !file.readAt(0, lengthBytes, 8))
        return failure("too short for a safetensors file (" + std::to_string(file.size()) +
                       " bytes; the header length alone takes 8)");
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i)
        length = length * 256 + lengthBytes[i];
    if (length > std::uint64_t(file.size() - 8))
        return failure("the header length (" + std::to_string(length) +
                       " bytes) runs past the end of the file (" + std::to_string(file.size()) +
                       " bytes)");
    if (std::int64_t(length) > kMaxHeaderBytes)
        return failure("the header length (" + std::to_string(length) +
                       " bytes) is over the 100 MB a safetensors header may have");
    std::string text(std::size_t(length), '\0');
    if (!file.readAt(8, text.data(), std::int64_t(length)))
        return {std::nullopt, file.error()};
    if (text.empty() || text.front() != '{')
        return failure("the header does not start with '{'");
    if (const std::string nesting = jsonNestingProblem(text); !nesting.empty())
        return failure("the header is " + nesting + "; a safetensors header is 3 levels deep");
    if (const std::string memory = jsonMemoryProblem(text); !memory.empty())
        return failure("the header " + memory);
    JsonDocumentRead parsed = parseJsonDocument(text);
    if (!parsed.invalid.empty())
        return failure("the header is not valid JSON: " + parsed.invalid);
    if (!parsed.repeatedKey.empty())
        return failure("the header names " + parsed.repeatedKey + " twice in one object");
    const json header = std::move(parsed.document);
    if (!header.is_object())
        return failure("the header is not a JSON object");

    SafetensorsIndex index;
    index.bufferStart = 8 + std::int64_t(length);
    const std::int64_t bufferSize = file.size() - index.bufferStart;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object())
                return failure("'__metadata__' is not a JSON object");
            for (const auto& [key, value] : entry.items()) {
                if (!value.is_string())
                    return failure("'__metadata__' entry " + quotedText(key) + " is not a string");
                index.metadata[key] = value.get<std::string>();
            }
            continue;
        }
        std::string reason;
        auto tensor = parseEntry(name, entry, reason);
        if (!tensor)
            return failure(reason);
        index.tensors.push_back(std::move(*tensor));
    }
    // The tensors must tile the byte buffer: sorted by offset, each starts where the last ended.
    std::sort(index.tensors.begin(), index.tensors.end(), [](const auto& a, const auto& b) {
        return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
    });
    std::int64_t expected = 0;
    for (const SafetensorsTensor& tensor : index.tensors) {
        if (tensor.end > bufferSize)
            return failure("tensor " + quotedText(tensor.name) + " ends at byte " +
                           std::to_string(tensor.end) + " of a data buffer of " +
                           std::to_string(bufferSize) + " bytes (truncated data)");
        if (tensor.begin < expected)
            return failure("tensor " + quotedText(tensor.name) +
                           " overlaps the tensor before it (its data "
                           "starts at " +
                           std::to_string(tensor.begin) +
                           ", the previous one "
                           "ends at " +
                           std::to_string(expected) + ")");
        if (tensor.begin > expected)
            return failure("the data buffer has a hole: bytes " + std::to_string(expected) +
                           " to " + std::to_string(tensor.begin) + " belong to no tensor");
        expected = tensor.end;
    }
    if (expected != bufferSize)
        return failure("the data buffer has " + std::to_string(bufferSize - expected) +
                       " bytes after the last tensor that belong to no tensor");
    return {std::move(index), ""};
}

}  // namespace

SafetensorsIndexRead readSafetensorsIndex(const std::string& path) {
    InputFile file(path);
    try {
        return readIndex(file, path);
    } catch (const std::bad_alloc&) {  // a 100 MB header can take ten times that as a document
        return {std::nullopt, printablePath(path) +
                                  ": not enough memory to read its header: an allocation failed"};
    }
}

FloatArrayRead readSafetensor(const std::string& path, const std::string& name, bool transpose,
                              std::int64_t maxBytes) {
    InputFile file(path);
    const SafetensorsIndexRead read = readIndex(file, path);
    if (!read.index)
        return {std::nullopt, read.error};
    auto failure = [&](const std::string& reason) {
        return FloatArrayRead{std::nullopt, printablePath(path) + ": " + reason};
    };
    const SafetensorsTensor* tensor = read.index->find(name);
    if (!tensor)
        return failure("no tensor named " + quotedText(name) + " (its 2-D tensors: " +
                       listedNames(read.index->twoDimensionalNames()) + ")");
    const auto type = storedFloat(tensor->dtype);
    if (!type)
        return failure("tensor " + quotedText(name) + " has dtype " + tensor->dtype +
                       "; tpviz reads F32, F64, F16 and BF16");
    if (tensor->shape.size() != 1 && tensor->shape.size() != 2)
        return failure("tensor " + quotedText(name) + " has shape " + shapeText(tensor->shape) +
                       "; tpviz reads 1-D and 2-D tensors");
    if (transpose && tensor->shape.size() != 2)
        return failure("tensor " + quotedText(name) + " has shape " + shapeText(tensor->shape) +
                       "; only a 2-D tensor can be transposed");
    const std::int64_t count = *elementCount(tensor->shape);  // checked by readSafetensorsIndex
    const bool converts = *type != StoredFloat::Float32;
    const std::int64_t memory =
        count * 4 * (transpose ? 2 : 1) + (converts ? count * byteSize(*type) : 0);
    if (memory > maxBytes)
        return failure("tensor " + quotedText(name) + " (" + tensor->dtype + ", shape " +
                       shapeText(tensor->shape) + ") needs " + formatBytes(memory) +
                       " in memory, over the memory budget of " + formatBytes(maxBytes));

    FloatArray array;
    array.shape = tensor->shape;
    const Index rows = tensor->shape.size() == 2 ? Index(tensor->shape[0]) : 1;
    array.values = uninitializedMatrix(rows, Index(tensor->shape.back()));
    const std::int64_t at = read.index->bufferStart + tensor->begin;
    std::int64_t overflowed = 0;
    if (converts) {
        std::vector<unsigned char> raw(std::size_t(tensor->end - tensor->begin));
        if (!file.readAt(at, raw.data(), std::int64_t(raw.size())))
            return {std::nullopt, file.error()};
        overflowed = decodeFloats(raw.data(), count, *type, false, array.values.data());
    } else if (!file.readAt(at, array.values.data(), count * 4)) {
        return {std::nullopt, file.error()};
    }
    array.notice = conversionNotice(*type, overflowed);
    if (transpose) {
        array.values = transposed(array.values);
        std::swap(array.shape[0], array.shape[1]);
        array.notice += std::string(array.notice.empty() ? "" : "; ") + "transposed from " +
                        shapeText(tensor->shape) + " (out, in) to " + shapeText(array.shape) +
                        " (in, out)";
    }
    return {std::move(array), ""};
}

std::string writeSafetensors(const std::string& path, const std::vector<NamedArray>& arrays,
                             const std::map<std::string, std::string>& metadata) {
    json header = json::object();
    if (!metadata.empty())
        header["__metadata__"] = metadata;
    std::string data;
    for (const NamedArray& array : arrays) {
        const std::int64_t begin = std::int64_t(data.size());
        data.append(reinterpret_cast<const char*>(array.values.data()),
                    std::size_t(array.values.size()) * sizeof(float));
        header[array.name] = {{"dtype", "F32"},
                              {"shape", array.shape},
                              {"data_offsets", {begin, std::int64_t(data.size())}}};
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string length(8, '\0');
    for (int i = 0; i < 8; ++i)
        length[std::size_t(i)] = char((std::uint64_t(text.size()) >> (8 * i)) & 0xff);
    return writeWholeFile(path, {length, text, data});
}

}  // namespace tp
