#pragma once

// Covers the not-yet-computed part of a MatrixView, so a result visibly fills step by step.

#include "layer/eigen_types.h"

#include <QWidget>

namespace tp {

class MatrixView;

/// A see-through sheet over the columns [fromColumn, end) of a MatrixView, with a caption. It
/// follows the view's zoom, scroll and size. fromColumn -1 hides it; 0 covers the whole matrix.
class PendingOverlay : public QWidget {
    Q_OBJECT

public:
    explicit PendingOverlay(MatrixView* view);

    void setPending(Index fromColumn, const QString& caption);
    Index fromColumn() const { return m_fromColumn; }
    QString caption() const { return m_caption; }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void follow();

    MatrixView* m_view;
    Index m_fromColumn = -1;
    QString m_caption;
};

}  // namespace tp
