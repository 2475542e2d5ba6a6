#pragma once

// A sheet laid over the cells of a MatrixView, which keeps itself over them as the view zooms,
// scrolls and resizes: the base of the overlays that cover or veil cells.

#include <QWidget>

namespace tp {

class MatrixView;

/// A see-through child of `view`'s viewport, invisible to the mouse, named `name`. Each zoom,
/// scroll, resize or layout of the view calls follow(), which places (or hides) the sheet.
class CellsOverlay : public QWidget {
    Q_OBJECT

public:
    CellsOverlay(MatrixView* view, const QString& name);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    /// Puts the sheet where it belongs now (or hides it), after the view changed.
    virtual void follow() = 0;

    MatrixView* m_view;
};

}  // namespace tp
