#include "cells_overlay.h"

#include "matrix_view.h"

#include <QEvent>
#include <QScrollBar>

namespace tp {

CellsOverlay::CellsOverlay(MatrixView* view, const QString& name)
    : QWidget(view->viewport()), m_view(view) {
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setObjectName(name);
    view->viewport()->installEventFilter(this);
    connect(view, &MatrixView::zoomChanged, this, [this] { follow(); });
    connect(view->horizontalScrollBar(), &QScrollBar::valueChanged, this, [this] { follow(); });
    connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this, [this] { follow(); });
    hide();
}

bool CellsOverlay::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view->viewport() &&
        (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest))
        follow();
    return QWidget::eventFilter(watched, event);
}

}  // namespace tp
