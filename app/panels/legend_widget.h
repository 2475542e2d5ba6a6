#pragma once

// The value scale of a heatmap: ramps in the groups' colours from -scale to +scale.

#include <QWidget>

#include <vector>

namespace tp {

/// Draws tp::renderLegend at its own size and device pixel ratio.
class LegendWidget : public QWidget {
    Q_OBJECT

public:
    explicit LegendWidget(QWidget* parent = nullptr);

    /// |value| at the ends of the ramps, and the group numbers to show (empty: neutral ramp).
    void setLegend(float scale, std::vector<int> groups);
    float scale() const { return m_scale; }

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    float m_scale = 1.0f;
    std::vector<int> m_groups;
};

}  // namespace tp
