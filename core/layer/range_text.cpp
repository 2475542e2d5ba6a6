#include "layer/range_text.h"

namespace tp {

std::string sliceText(IndexRange range) {
    return std::to_string(range.start) + ":" + std::to_string(range.stop);
}

std::string rangeLabel(IndexRange range) {
    return "[" + sliceText(range) + ")";
}

std::string shapeText(Index rows, Index cols) {
    return std::to_string(rows) + "x" + std::to_string(cols);
}

std::string shapeTuple(Index rows, Index cols) {
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

std::string shapeTuple(Index n) {
    return "(" + std::to_string(n) + ",)";
}

std::string columnSlice(std::string_view name, IndexRange range) {
    return std::string(name) + "[:, " + sliceText(range) + "]";
}

std::string rowSlice(std::string_view name, IndexRange range) {
    return std::string(name) + "[" + sliceText(range) + ", :]";
}

std::string vectorSlice(std::string_view name, IndexRange range) {
    return std::string(name) + "[" + sliceText(range) + "]";
}

std::string countText(std::int64_t n, std::string_view noun) {
    return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace tp
