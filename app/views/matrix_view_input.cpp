// MatrixView's answers to the pointer, the keys, the wheel and gestures: the hovered cell and its
// tooltip, zoom about a point (the slots, Ctrl+wheel, +/-/0, pinch) and panning by dragging.

#include "matrix_view.h"

#include <QGestureEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QNativeGestureEvent>
#include <QPinchGesture>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

namespace tp {

namespace {

constexpr double kZoomStep = 1.25;

}  // namespace

void MatrixView::zoomIn() {
    setZoom(m_zoom * kZoomStep);
}

void MatrixView::zoomOut() {
    setZoom(m_zoom / kZoomStep);
}

void MatrixView::resetZoom() {
    setZoom(1.0);
}

void MatrixView::setZoom(double zoom, QPointF anchor) {
    const MatrixLayout before = layout();
    zoom = before.clampZoom(zoom);
    if (std::abs(zoom - m_zoom) < 1e-9)
        return;
    if (anchor.x() < 0 || anchor.y() < 0)
        anchor = before.area.center();
    QPointF matrixPoint(0, 0);  // in cells
    if (!before.cell.isEmpty())
        matrixPoint = QPointF((anchor.x() - before.origin.x()) / before.cell.width(),
                              (anchor.y() - before.origin.y()) / before.cell.height());
    m_zoom = zoom;
    updateScrollBars();
    const MatrixLayout after = layout();
    // Scroll so that the same matrix point stays under the anchor.
    const QPointF wantedOrigin(anchor.x() - matrixPoint.x() * after.cell.width(),
                               anchor.y() - matrixPoint.y() * after.cell.height());
    horizontalScrollBar()->setValue(int(std::lround(after.area.left() - wantedOrigin.x())));
    verticalScrollBar()->setValue(int(std::lround(after.area.top() - wantedOrigin.y())));
    viewport()->update();
    emit zoomChanged(m_zoom);
}

void MatrixView::updateHover(QPointF pos, QPoint globalPos) {
    const MatrixLayout l = layout();
    const CellIndex cell = l.cellAt(pos);
    if (!cell.isValid()) {
        clearHover();
        return;
    }
    if (cell == m_marks.hovered)
        return;
    m_marks.hovered = cell;
    const int row = int(cell.row);
    const int col = int(cell.col);
    QToolTip::showText(globalPos, cellDescription(row, col), viewport(),
                       l.cellRect(row, col).toAlignedRect());
    viewport()->update();
    emit cellHovered(row, col, m_matrix(row, col), groupAt(m_style, row, col));
}

void MatrixView::clearHover() {
    if (!m_marks.hovered.isValid())
        return;
    m_marks.hovered = {};
    QToolTip::hideText();
    viewport()->update();
    emit hoverLeft();
}

bool MatrixView::viewportEvent(QEvent* event) {
    switch (event->type()) {
        case QEvent::Leave:
            clearHover();
            break;
        case QEvent::ToolTip:
            return true;  // tooltips follow the hovered cell (updateHover)
        case QEvent::NativeGesture: {
            auto* gesture = static_cast<QNativeGestureEvent*>(event);
            if (gesture->gestureType() == Qt::ZoomNativeGesture) {
                setZoom(m_zoom * (1.0 + gesture->value()), gesture->position());
                return true;
            }
            break;
        }
        case QEvent::Gesture: {
            auto* gestureEvent = static_cast<QGestureEvent*>(event);
            if (auto* pinch =
                    static_cast<QPinchGesture*>(gestureEvent->gesture(Qt::PinchGesture))) {
                const QPointF centre = viewport()->mapFromGlobal(pinch->centerPoint());
                setZoom(m_zoom * pinch->scaleFactor(), centre);
                gestureEvent->accept(pinch);
                return true;
            }
            break;
        }
        default:
            break;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void MatrixView::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ControlModifier) {
        const double notches = event->angleDelta().y() / 120.0;
        if (notches != 0)
            setZoom(m_zoom * std::pow(kZoomStep, notches), event->position());
        event->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

void MatrixView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            zoomIn();
            return;
        case Qt::Key_Minus:
            zoomOut();
            return;
        case Qt::Key_0:
            resetZoom();
            return;
        default:
            QAbstractScrollArea::keyPressEvent(event);
    }
}

void MatrixView::mousePressEvent(QMouseEvent* event) {
    const bool scrollable =
        horizontalScrollBar()->maximum() > 0 || verticalScrollBar()->maximum() > 0;
    if (event->button() == Qt::LeftButton && scrollable) {
        m_dragging = true;
        m_dragStart = event->position();
        m_dragScrollStart = QPoint(horizontalScrollBar()->value(), verticalScrollBar()->value());
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    QAbstractScrollArea::mousePressEvent(event);
}

void MatrixView::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragging) {
        const QPointF delta = event->position() - m_dragStart;
        horizontalScrollBar()->setValue(m_dragScrollStart.x() - int(std::lround(delta.x())));
        verticalScrollBar()->setValue(m_dragScrollStart.y() - int(std::lround(delta.y())));
    }
    updateHover(event->position(), event->globalPosition().toPoint());
}

void MatrixView::mouseReleaseEvent(QMouseEvent* event) {
    if (m_dragging && event->button() == Qt::LeftButton) {
        m_dragging = false;
        viewport()->unsetCursor();
        event->accept();
        return;
    }
    QAbstractScrollArea::mouseReleaseEvent(event);
}

void MatrixView::leaveEvent(QEvent* event) {
    clearHover();
    QAbstractScrollArea::leaveEvent(event);
}

}  // namespace tp
