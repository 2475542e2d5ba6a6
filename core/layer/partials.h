#pragma once

// The groups' partials of a split pass, one matrix per group: kept as they were made, or made on
// first read and then kept (the splits' own: a row split's are tp arrays of the whole output, a
// column split's the output's columns again, neither of which its pass stores).

#include "layer/eigen_types.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <vector>

namespace tp {

class Partials {
public:
    /// Makes group g's partial, the same bits on every call.
    using Make = std::function<Matrix(Index group)>;

    Partials() = default;
    /// The partials as made, in group order.
    Partials(std::vector<Matrix> made);  // NOLINT: implicit, a vector of partials is partials
    /// `count` partials, each made by make(g) the first time it is read. Reads from several
    /// threads at once are safe: each partial is made once.
    Partials(Index count, Make make);

    std::size_t size() const { return m_slots ? m_slots->size() : 0; }
    bool empty() const { return size() == 0; }
    /// Group g's partial, made now if it was made on demand and never read.
    const Matrix& operator[](std::size_t g) const;
    /// Whether group g's partial is in memory already (made, or kept as made).
    bool made(std::size_t g) const { return (*m_slots)[g].made.load(std::memory_order_acquire); }
    const Matrix& front() const { return (*this)[0]; }
    const Matrix& back() const { return (*this)[size() - 1]; }

    /// The partials as a vector the caller can change (a mistake's pass): makes any not yet
    /// made; moved out, or copied where a copy of these partials shares them. Leaves this empty.
    std::vector<Matrix> take() &&;

    class const_iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = Matrix;
        using difference_type = std::ptrdiff_t;
        using pointer = const Matrix*;
        using reference = const Matrix&;
        const_iterator() = default;
        const_iterator(const Partials* p, std::size_t g) : m_partials(p), m_g(g) {}
        reference operator*() const { return (*m_partials)[m_g]; }
        pointer operator->() const { return &**this; }
        const_iterator& operator++() {
            ++m_g;
            return *this;
        }
        const_iterator operator++(int) {
            const_iterator before = *this;
            ++m_g;
            return before;
        }
        bool operator==(const const_iterator& o) const { return m_g == o.m_g; }

    private:
        const Partials* m_partials = nullptr;
        std::size_t m_g = 0;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

private:
    struct Slot {
        std::once_flag once;
        std::atomic<bool> made{false};
        Matrix partial;
    };
    // Shared between copies: a partial is the same whoever reads it first.
    std::shared_ptr<std::vector<Slot>> m_slots;
    Make m_make;
};

}  // namespace tp
