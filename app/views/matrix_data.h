#pragma once

// A read-only, non-owning view of a float32 row-major matrix, kept alive by a shared owner.

#include "layer/eigen_types.h"

#include <algorithm>
#include <cassert>
#include <memory>

namespace tp {

/// A view of `rows x cols` floats at `data`, row r starting at `data + r * stride`, kept alive by
/// `owner` (typically the `std::shared_ptr<const Scene>` that holds the arrays). Copying a
/// MatrixData copies a pointer and a reference count, never the elements: a 4096 x 16384 kernel is
/// shown without a copy. An empty MatrixData (the default) shows nothing.
class MatrixData {
public:
    using Map = Eigen::Map<const Matrix, Eigen::Unaligned, Eigen::OuterStride<>>;

    MatrixData() = default;

    /// The `rows x cols` matrix at `data` with `stride` floats between row starts (stride >= cols).
    static MatrixData view(std::shared_ptr<const void> owner, const float* data, Index rows,
                           Index cols, Index stride) {
        assert(rows >= 0 && cols >= 0 && (rows <= 1 || stride >= cols));
        MatrixData result;
        result.m_owner = std::move(owner);
        result.m_data = (rows > 0 && cols > 0) ? data : nullptr;
        result.m_rows = result.m_data ? rows : 0;
        result.m_cols = result.m_data ? cols : 0;
        result.m_stride = result.m_data ? std::max(stride, cols) : 0;
        return result;
    }

    /// A view of any row-major expression with direct access and unit inner stride: a Matrix, a
    /// block of one (`m.middleCols(...)`, `result.runningConcatenation(k)`), a Map or a RowVector.
    /// `m` must live inside `owner`.
    template <typename Derived>
    static MatrixData of(std::shared_ptr<const void> owner, const Eigen::DenseBase<Derived>& m) {
        static_assert(bool(Derived::Flags & Eigen::DirectAccessBit),
                      "MatrixData views memory: pass a matrix or a block, not an expression");
        static_assert(bool(Derived::IsRowMajor) || Derived::RowsAtCompileTime == 1,
                      "MatrixData views row-major memory");
        const auto& d = m.derived();
        assert(d.innerStride() == 1);
        return view(std::move(owner), d.data(), d.rows(), d.cols(),
                    d.rows() > 1 ? d.outerStride() : d.cols());
    }
    /// A temporary Matrix would die before the view: refuse it at compile time.
    static MatrixData of(std::shared_ptr<const void> owner, Matrix&& m) = delete;

    /// A (1, n) view of a row vector such as the bias (features,).
    static MatrixData ofRow(std::shared_ptr<const void> owner, const RowVector& v) {
        return view(std::move(owner), v.data(), 1, v.size(), v.size());
    }
    static MatrixData ofRow(std::shared_ptr<const void> owner, RowVector&& v) = delete;

    Index rows() const { return m_rows; }
    Index cols() const { return m_cols; }
    /// Floats between the starts of two consecutive rows.
    Index stride() const { return m_stride; }
    bool isEmpty() const { return m_data == nullptr; }
    const float* data() const { return m_data; }
    const float* rowData(Index row) const { return m_data + row * m_stride; }
    const std::shared_ptr<const void>& owner() const { return m_owner; }

    /// Element (row, col); both in range.
    float operator()(Index row, Index col) const {
        assert(row >= 0 && row < m_rows && col >= 0 && col < m_cols);
        return m_data[row * m_stride + col];
    }

    /// The elements as an Eigen map (no copy).
    Map map() const { return Map(m_data, m_rows, m_cols, Eigen::OuterStride<>(m_stride)); }

    /// The sub-view [rows.start, rows.stop) x [cols.start, cols.stop), sharing the owner.
    MatrixData block(IndexRange rowRange, IndexRange colRange) const {
        assert(rowRange.start >= 0 && rowRange.stop <= m_rows && rowRange.start <= rowRange.stop);
        assert(colRange.start >= 0 && colRange.stop <= m_cols && colRange.start <= colRange.stop);
        if (isEmpty())
            return {};
        return view(m_owner, rowData(rowRange.start) + colRange.start, rowRange.size(),
                    colRange.size(), m_stride);
    }

private:
    std::shared_ptr<const void> m_owner;
    const float* m_data = nullptr;
    Index m_rows = 0;
    Index m_cols = 0;
    Index m_stride = 0;
};

}  // namespace tp
