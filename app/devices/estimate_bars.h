#pragma once

// The time estimate's terms as one small stacked bar per phase (forward, and backward when the
// scene has it): the product's bound (math or memory) and launch, the collective's latency and
// bandwidth, each in its colour with its duration in the legend.

#include "devices/hardware.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

namespace tp {

/// One segment of a bar.
struct EstimateTerm {
    QString name;  ///< "math", "memory", "launch", "latency", "bandwidth"
    double seconds = 0;
    QColor colour;
};

/// The terms of `estimate` in the order they are drawn: the product's larger term (math or
/// memory), its launch, the collective's latency and bandwidth. They sum to totalSeconds.
std::vector<EstimateTerm> estimateTerms(const TimeEstimate& estimate);

class EstimateBars : public QWidget {
    Q_OBJECT

public:
    explicit EstimateBars(QWidget* parent = nullptr);

    /// The phases to draw, each as (its name, its estimate); all bars share one time scale.
    void setPhases(std::vector<std::pair<QString, TimeEstimate>> phases);

    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<std::pair<QString, TimeEstimate>> m_phases;
};

}  // namespace tp
