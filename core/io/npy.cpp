#include "io/npy.h"

#include "io/binary_file.h"
#include "io/file_text.h"
#include "io/staged_file.h"
#include "layer/fresh_matrix.h"
#include "layer/layer_config.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <charconv>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

namespace tp {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// numpy.lib.format refuses longer headers unless told otherwise (max_header_size=10000): a float
// array's header is under 128 bytes.
constexpr std::int64_t kMaxHeaderBytes = 10'000;

// The header dict: "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }". A reader for
// exactly the Python literals that dict holds (strings, True/False, tuples of ints); anything
// else is refused with the reason.
class HeaderReader {
public:
    explicit HeaderReader(std::string_view text) : m_text(text) {}

    void skipSpace() {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' ||
                                         m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
            ++m_pos;
    }
    bool consume(char c) {
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    bool atEnd() {
        skipSpace();
        return m_pos == m_text.size();
    }
    std::optional<std::string> string() {
        skipSpace();
        if (m_pos >= m_text.size() || (m_text[m_pos] != '\'' && m_text[m_pos] != '"'))
            return std::nullopt;
        const char quote = m_text[m_pos];
        const auto end = m_text.find(quote, m_pos + 1);
        if (end == std::string_view::npos)
            return std::nullopt;
        std::string value(m_text.substr(m_pos + 1, end - m_pos - 1));
        m_pos = end + 1;
        return value;
    }
    std::optional<bool> boolean() {
        skipSpace();
        for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
            const std::string_view w = word;
            if (m_text.substr(m_pos, w.size()) == w) {
                m_pos += w.size();
                return value;
            }
        }
        return std::nullopt;
    }
    // A tuple of non-negative ints: "()", "(5,)", "(3, 4)"; Python 2's "3L" is accepted.
    std::optional<std::vector<std::int64_t>> tuple() {
        if (!consume('('))
            return std::nullopt;
        std::vector<std::int64_t> values;
        while (!consume(')')) {
            skipSpace();
            std::int64_t value = 0;
            const char* begin = m_text.data() + m_pos;
            const auto [end, ec] = std::from_chars(begin, m_text.data() + m_text.size(), value);
            if (ec != std::errc() || value < 0)
                return std::nullopt;
            m_pos += std::size_t(end - begin);
            if (m_pos < m_text.size() && m_text[m_pos] == 'L')
                ++m_pos;
            values.push_back(value);
            if (!consume(',')) {
                if (!consume(')'))
                    return std::nullopt;
                break;
            }
        }
        return values;
    }

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
};

struct NpyHeader {
    std::string descr;
    bool fortranOrder = false;
    std::vector<std::int64_t> shape;
};

// Parses the header dict; returns the reason on failure.
std::optional<NpyHeader> parseHeader(std::string_view text, std::string& reason) {
    HeaderReader reader(text);
    NpyHeader header;
    bool seenDescr = false, seenOrder = false, seenShape = false;
    if (!reader.consume('{')) {
        reason = "the header is not a Python dict (it does not start with '{')";
        return std::nullopt;
    }
    while (!reader.consume('}')) {
        const auto key = reader.string();
        if (!key || !reader.consume(':')) {
            reason = "the header dict has an entry that is not 'key': value";
            return std::nullopt;
        }
        if (*key == "descr") {
            const auto descr = reader.string();
            if (!descr) {
                reason =
                    "the header's 'descr' is not a simple dtype string (structured arrays "
                    "are not read)";
                return std::nullopt;
            }
            header.descr = *descr;
            seenDescr = true;
        } else if (*key == "fortran_order") {
            const auto order = reader.boolean();
            if (!order) {
                reason = "the header's 'fortran_order' is not True or False";
                return std::nullopt;
            }
            header.fortranOrder = *order;
            seenOrder = true;
        } else if (*key == "shape") {
            const auto shape = reader.tuple();
            if (!shape) {
                reason = "the header's 'shape' is not a tuple of whole numbers >= 0";
                return std::nullopt;
            }
            header.shape = *shape;
            seenShape = true;
        } else {
            reason = "the header has the key " + quotedText(*key) +
                     "; an .npy header holds only 'descr', 'fortran_order' and 'shape'";
            return std::nullopt;
        }
        if (!reader.consume(',')) {
            if (!reader.consume('}')) {
                reason = "the header dict is not closed by '}'";
                return std::nullopt;
            }
            break;
        }
    }
    if (!reader.atEnd()) {
        reason = "the header has text after its dict";
        return std::nullopt;
    }
    if (!seenDescr || !seenOrder || !seenShape) {
        reason = std::string("the header lacks the key '") +
                 (!seenDescr   ? "descr"
                  : !seenOrder ? "fortran_order"
                               : "shape") +
                 "'";
        return std::nullopt;
    }
    return header;
}

// '<f4', '>f8', '<f2' ... ('=' and '|' are not written by numpy for multi-byte floats).
std::optional<StoredFloat> parseDescr(std::string_view descr, bool& bigEndian) {
    if (descr.size() != 3 || (descr[0] != '<' && descr[0] != '>') || descr[1] != 'f')
        return std::nullopt;
    bigEndian = descr[0] == '>';
    switch (descr[2]) {
        case '2':
            return StoredFloat::Float16;
        case '4':
            return StoredFloat::Float32;
        case '8':
            return StoredFloat::Float64;
        default:
            return std::nullopt;
    }
}

FloatArrayRead failure(const std::string& path, const std::string& reason) {
    return {std::nullopt, printablePath(path) + ": " + reason};
}

// The 1.0 header for a '<f4' C-order array of `shape`, padded so the data starts at a multiple
// of 64 bytes.
std::string headerBytes(const std::vector<std::int64_t>& shape) {
    std::string dict =
        "{'descr': '<f4', 'fortran_order': False, 'shape': " + shapeText(shape) + ", }";
    const std::size_t preamble = kMagic.size() + 2 + 2;
    const std::size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - preamble - dict.size() - 1, ' ');
    dict += '\n';
    assert(dict.size() <= 0xffff);
    std::string bytes(kMagic);
    bytes += char(1);
    bytes += char(0);
    bytes += char(dict.size() & 0xff);
    bytes += char(dict.size() >> 8);
    return bytes + dict;
}

std::vector<std::int64_t> shapeOf(const MatrixCRef& values, bool asVector) {
    assert(!asVector || values.rows() == 1);
    if (asVector)
        return {std::int64_t(values.cols())};
    return {std::int64_t(values.rows()), std::int64_t(values.cols())};
}

}  // namespace

FloatArrayRead readNpy(const std::string& path, std::int64_t maxBytes) {
    InputFile file(path);
    if (!file.isOpen())
        return {std::nullopt, file.error()};

    unsigned char preamble[12];
    if (file.size() < 10 || !file.readAt(0, preamble, 8) ||
        std::string_view(reinterpret_cast<const char*>(preamble), 6) != kMagic)
        return failure(path, "not an .npy file (it does not start with \\x93NUMPY)");
    const int major = preamble[6], minor = preamble[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0)
        return failure(path, "npy format version " + std::to_string(major) + "." +
                                 std::to_string(minor) + " is not 1.0, 2.0 or 3.0");
    // 1.0 stores the header length in 2 bytes, 2.0 and 3.0 in 4 (both little-endian).
    const int lengthBytes = major == 1 ? 2 : 4;
    if (!file.readAt(8, preamble + 8, lengthBytes))
        return failure(path, "the file ends inside the header length");
    std::int64_t headerLength = 0;
    for (int i = lengthBytes - 1; i >= 0; --i)
        headerLength = headerLength * 256 + preamble[8 + i];
    const std::int64_t headerStart = 8 + lengthBytes;
    if (headerLength > file.size() - headerStart)
        return failure(path, "the header length (" + std::to_string(headerLength) +
                                 " bytes) runs past the end of the file (" +
                                 std::to_string(file.size()) + " bytes)");
    if (headerLength > kMaxHeaderBytes)
        return failure(path, "the header length (" + std::to_string(headerLength) +
                                 " bytes) is over the " + std::to_string(kMaxHeaderBytes) +
                                 " bytes numpy reads (numpy.load's max_header_size)");
    std::string headerText(std::size_t(headerLength), '\0');
    if (!file.readAt(headerStart, headerText.data(), headerLength))
        return {std::nullopt, file.error()};

    std::string reason;
    const auto header = parseHeader(headerText, reason);
    if (!header)
        return failure(path, "bad header: " + reason);
    bool bigEndian = false;
    const auto type = parseDescr(header->descr, bigEndian);
    if (!type)
        return failure(path, "dtype " + quotedText(header->descr) +
                                 " is not a float type tpviz reads (float32 '<f4', float64 "
                                 "'<f8' or float16 '<f2', either byte order)");
    const std::vector<std::int64_t>& shape = header->shape;
    if (shape.size() != 1 && shape.size() != 2)
        return failure(path, "the array has shape " + shapeText(shape) + ", " +
                                 std::to_string(shape.size()) +
                                 " dimensions; tpviz reads 1-D and 2-D arrays");

    // Never trust the header's sizes: the data must be exactly what the shape says. (The
    // padding that aligns the data to 64 bytes, 16 in old files, is not required for reading.)
    const std::int64_t dataStart = headerStart + headerLength;
    const std::int64_t available = file.size() - dataStart;
    const auto count = elementCount(shape);
    const int itemSize = byteSize(*type);
    if (!count || *count > INT64_MAX / 8)
        return failure(path, "the header's shape " + shapeText(shape) + " is too large to exist");
    const std::int64_t needed = *count * itemSize;
    const std::string what = "shape " + shapeText(shape) + " of " + std::string(toString(*type));
    if (needed > available)
        return failure(path, "truncated data: " + what + " needs " + std::to_string(needed) +
                                 " bytes after the header, the file has " +
                                 std::to_string(available));
    if (needed < available)
        return failure(path, "the file has " + std::to_string(available - needed) +
                                 " bytes after the data its header describes (" + what + ")");
    const bool converts = *type != StoredFloat::Float32 || bigEndian;
    const Index rows = shape.size() == 2 ? Index(shape[0]) : 1;
    const Index cols = Index(shape.back());
    // Fortran order stores a 2-D array column by column (the same as by rows when it has one row
    // or one column). Such data, and data to convert, is read a chunk at a time into a buffer and
    // placed from there, so that reading never holds a second copy of the array.
    const bool columnMajor = header->fortranOrder && rows > 1 && cols > 1;
    const bool chunked = converts || columnMajor;
    const std::int64_t chunk = std::min<std::int64_t>(*count, kNpyReadChunkElements);
    const std::int64_t memory = *count * 4 + (chunked ? chunk * (itemSize + 4) : 0);
    if (memory > maxBytes)
        return failure(path, what + " needs " + formatBytes(memory) +
                                 " in memory, over the memory budget of " + formatBytes(maxBytes));

    FloatArray array;
    array.shape = shape;
    array.values = uninitializedMatrix(rows, cols);
    float* out = array.values.data();
    std::int64_t overflowed = 0;
    if (!chunked) {
        if (!file.readAt(dataStart, out, needed))
            return {std::nullopt, file.error()};
    } else {
        std::vector<unsigned char> raw(static_cast<std::size_t>(chunk * itemSize));
        std::vector<float> decoded(columnMajor ? static_cast<std::size_t>(chunk) : 0);
        Index row = 0;  // where the next element of a column-major file goes
        Index col = 0;
        for (std::int64_t start = 0; start < *count; start += chunk) {
            const std::int64_t n = std::min(chunk, *count - start);
            if (!file.readAt(dataStart + start * itemSize, raw.data(), n * itemSize))
                return {std::nullopt, file.error()};
            float* to = columnMajor ? decoded.data() : out + start;
            if (converts)
                overflowed += decodeFloats(raw.data(), n, *type, bigEndian, to);
            else
                std::memcpy(to, raw.data(), static_cast<std::size_t>(n) * sizeof(float));
            if (!columnMajor)
                continue;
            for (std::int64_t i = 0; i < n; ++i) {
                out[row * cols + col] = decoded[static_cast<std::size_t>(i)];
                if (++row == rows) {
                    row = 0;
                    ++col;
                }
            }
        }
    }
    array.notice = conversionNotice(*type, overflowed);
    if (bigEndian)
        array.notice += std::string(array.notice.empty() ? "" : "; ") + "read as big-endian";
    if (header->fortranOrder && shape.size() == 2)
        array.notice +=
            std::string(array.notice.empty() ? "" : "; ") + "stored in Fortran order, read by rows";
    return {std::move(array), ""};
}

std::string npyBytes(const MatrixCRef& values, bool asVector) {
    const Matrix contiguous = values;
    return headerBytes(shapeOf(values, asVector)) +
           std::string(reinterpret_cast<const char*>(contiguous.data()),
                       std::size_t(contiguous.size()) * sizeof(float));
}

std::string writeNpy(StagedFile& file, const MatrixCRef& values, bool asVector) {
    static_assert(std::endian::native == std::endian::little, "npy '<f4' is written as stored");
    const std::string header = headerBytes(shapeOf(values, asVector));
    auto write = [&](const float* data) {
        return file.write({header, std::string_view(reinterpret_cast<const char*>(data),
                                                    std::size_t(values.size()) * 4)});
    };
    if (values.outerStride() == values.cols())
        return write(values.data());
    const Matrix contiguous = values;
    return write(contiguous.data());
}

std::string writeNpy(const std::string& path, const MatrixCRef& values, bool asVector) {
    StagedFile file(path);
    const std::string error = writeNpy(file, values, asVector);
    return error.empty() ? file.commit() : error;
}

}  // namespace tp
