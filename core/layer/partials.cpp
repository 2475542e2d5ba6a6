#include "layer/partials.h"

#include <cassert>

namespace tp {

Partials::Partials(std::vector<Matrix> made)
    : m_slots(std::make_shared<std::vector<Slot>>(made.size())) {
    for (std::size_t g = 0; g < made.size(); ++g)
        std::call_once((*m_slots)[g].once, [&] {
            (*m_slots)[g].partial = std::move(made[g]);
            (*m_slots)[g].made.store(true, std::memory_order_release);
        });
}

Partials::Partials(Index count, Make make)
    : m_slots(std::make_shared<std::vector<Slot>>(std::size_t(count))), m_make(std::move(make)) {}

const Matrix& Partials::operator[](std::size_t g) const {
    assert(g < size());
    Slot& slot = (*m_slots)[g];
    std::call_once(slot.once, [&] {
        slot.partial = m_make(Index(g));
        slot.made.store(true, std::memory_order_release);
    });
    return slot.partial;
}

std::vector<Matrix> Partials::take() && {
    std::vector<Matrix> made;
    made.reserve(size());
    const bool shared = m_slots.use_count() > 1;
    for (std::size_t g = 0; g < size(); ++g) {
        (void)(*this)[g];
        Matrix& partial = (*m_slots)[g].partial;
        made.push_back(shared ? partial : std::move(partial));
    }
    m_slots.reset();
    return made;
}

}  // namespace tp
