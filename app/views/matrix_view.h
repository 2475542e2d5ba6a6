#pragma once

// A zoomable, hoverable heatmap of one matrix, with its tensor-parallel groups.

#include "cell_marks.h"
#include "heatmap_image.h"
#include "matrix_data.h"
#include "matrix_layout.h"

#include <QAbstractScrollArea>
#include <QImage>
#include <QPointer>

#include <optional>
#include <vector>

namespace tp {

class CellImageCache;
struct CellImageKey;
struct NumbersLayout;

/// When a MatrixView prints values inside cells.
enum class CellNumbers {
    Auto,    ///< when the matrix's widest cellText() fits every cell (numberPixelSize() > 0)
    Shown,   ///< the same rule (kept for callers that ask for numbers explicitly)
    Hidden,  ///< never
};

/// Shows one matrix as a heatmap with a title, group boundaries and group labels in the brief's
/// notation ("[0:4)"). Fits the view at zoom 1 (MatrixLayout); zoom with Ctrl+wheel, +/- keys,
/// pinch or the slots, pan by dragging or with the scrollbars. Hovering a cell shows a tooltip and
/// emits cellHovered(). Only the visible cells are rendered (renderBlock), into a CellImageCache
/// that renders again when an input, the viewport size, the visible range or the device pixel
/// ratio changes, never on a plain repaint; large renders run on a worker thread while the last
/// image stays on screen. The group band is painted by paintGroupBand, the frame, traced lines and
/// hovered cell by paintCellMarks; the layout and scroll bars live in matrix_view_layout.cpp, the
/// painting in matrix_view_paint.cpp, the answers to pointer, keys, wheel and gestures in
/// matrix_view_input.cpp.
class MatrixView : public QAbstractScrollArea {
    Q_OBJECT

public:
    explicit MatrixView(QWidget* parent = nullptr);
    ~MatrixView() override;

    /// The matrix to show (a view; its owner keeps the memory alive). An empty MatrixData clears.
    /// `knownMaxAbs`, when given, says the matrix is all finite with this largest |element|,
    /// already found elsewhere (e.g. Scene::kernelMaxAbs), so that a big matrix is not scanned
    /// again.
    void setMatrix(MatrixData matrix, std::optional<float> knownMaxAbs = std::nullopt);
    const MatrixData& matrix() const { return m_matrix; }

    /// Group g owns column range groups[g] (Qt::Horizontal) or row range groups[g] (Qt::Vertical).
    /// `groupIds` gives each range's group number (palette index); empty means 0, 1, 2, ...
    void setGroups(std::vector<IndexRange> groups, Qt::Orientation axis,
                   std::vector<int> groupIds = {});
    const std::vector<IndexRange>& groups() const { return m_style.groups; }
    Qt::Orientation groupAxis() const { return m_style.groupAxis; }

    /// A render of a big matrix is running on a worker thread; the view shows the previous image
    /// (or nothing) until it finishes.
    bool isRendering() const;

    /// The tooltip of cell (row, col) (hoverText): "name[row, col] = value", its group and the
    /// range the group's label names (groupSpanText), e.g. "kernel[1, 6] = 0.5  ·  group 1 ·
    /// columns [4:8)". The name is name(), or "value" without one.
    QString cellDescription(int row, int col) const;

    /// What the matrix is called in its cells' descriptions, e.g. "kernel" (the title describes it
    /// for the eye and may change with each step; the name does not).
    void setName(const QString& name) { m_name = name; }
    const QString& name() const { return m_name; }

    /// Lines this view's columns up with `leader`'s (the bias strip under the kernel): the same
    /// cell width and the same horizontal position of every column, following the leader's zoom
    /// and scrolling; the title spans the shown columns. The leader must show as many columns;
    /// nullptr ends following.
    void setColumnLeader(MatrixView* leader);
    /// How much taller this follower's viewport must grow for its cells to be as tall as the
    /// leader's are tall (at most MatrixLayout::kMaxFitCell); 0 without a leader.
    qreal heightForSquareCells() const;

    /// The ranges that group labels and tooltips name, when they differ from the positions in this
    /// matrix: a partial output (N, chunk) shows its group's output columns, e.g. [4:8), not [0:4).
    /// Empty (the default) names the positional ranges. `what` names what the ranges count in
    /// tooltips ("kernel rows" for a row-mode partial sum); empty says "columns" or "rows" by the
    /// group axis.
    void setGroupLabelRanges(std::vector<IndexRange> ranges, QString what = {});

    /// Shows group number `group` at full colour and dims the others; -1 dims nothing.
    void setHighlightedGroup(int group);
    int highlightedGroup() const { return m_style.highlightedGroup; }

    /// The largest fitted cell side (MatrixLayoutInput::maxFitCell), e.g. the kernel's cell width
    /// for x, so that both draw alike.
    void setMaxFitCell(qreal side);

    /// Where the cells sit when narrower than the view (MatrixLayoutInput::horizontalAlign).
    void setHorizontalAlignment(Qt::Alignment align);

    /// Outlines row `row` and column `col` (-1: none) in `colour`: the cells an output value
    /// traced elsewhere is made of (row i of x, column j of the kernel).
    void setTraceLines(int row, int col, const QColor& colour);
    int tracedRow() const { return m_marks.traceRow; }
    int tracedColumn() const { return m_marks.traceCol; }

    /// The caption above the matrix, e.g. "kernel (8, 12)".
    void setTitle(const QString& title);
    QString title() const { return m_title; }

    /// |value| drawn at full intensity; 0 (the default) uses the largest |element| of the matrix.
    /// Give several views one scale to compare them.
    void setScale(float scale);
    float scale() const { return m_style.scale; }
    /// The scale in use: scale() if > 0, else the matrix's largest finite |element| (1 if that
    /// is 0).
    float effectiveScale() const;
    /// The non-finite values the matrix holds (drawn in their own colours; see nonFiniteColor).
    NonFiniteKinds nonFinite() const { return m_nonFinite; }

    /// true: print values in cells whenever legible (CellNumbers::Shown); false: never. The
    /// default is CellNumbers::Auto.
    void setCellNumbersVisible(bool visible);
    void setCellNumbers(CellNumbers mode);
    CellNumbers cellNumbers() const { return m_cellNumbers; }
    /// Whether numbers are printed at the current zoom and size: all of them or none, so that
    /// matrices of the same shape at the same size follow the same rule.
    bool cellNumbersShown() const;
    /// The numbers' pixel size at the current cell size (cell_text.h numberPixelSize for the
    /// matrix's widest cell text), 0 when they are not printed.
    int numberPixelSize() const;

    /// Current zoom: 1 fits the whole matrix in the view; zoomIn() multiplies by 1.25.
    double zoom() const { return m_zoom; }
    /// The geometry of title, band and cells at the current size, zoom, scroll and leader.
    MatrixLayout layout() const;
    /// What layout() is computed from now (change the viewport to ask about another size).
    MatrixLayoutInput layoutInput() const;
    /// What decides at which sizes this view prints its numbers (readable_height.h).
    NumbersLayout numbersLayout() const;
    /// Size of one cell in logical pixels at the current zoom.
    QSizeF cellSize() const { return layout().cell; }
    /// The cell under `viewportPos` (viewport coordinates), or no cell.
    CellIndex cellAt(QPointF viewportPos) const { return layout().cellAt(viewportPos); }
    /// Where cell (row, col) is drawn, in viewport coordinates (may lie outside the viewport).
    QRectF cellRect(Index row, Index col) const { return layout().cellRect(row, col); }
    /// The matrix's widest cellText(), which sets the one font size of its numbers.
    const QString& widestText() const { return m_widestText; }

    /// Where the title row draws this view's colour map (a ramp from -scale to +scale in the
    /// colours of scaleGroup()), followed by scaleText(); empty when the title is too narrow.
    QRectF scaleRampRect(const MatrixLayout& l) const;
    /// "±" and the effective scale in cellText(), e.g. "±0.62".
    QString scaleText() const;
    /// The group whose colours the title's ramp shows: the highlighted one, else the first, else
    /// -1 (the neutral map).
    int scaleGroup() const;

    /// How many images have been rendered (for tests and profiling).
    int renderCount() const;
    /// The image currently drawn for the visible cells (may be null before the first paint).
    QImage cachedImage() const;
    /// The cache of the visible cells' image and its renders.
    const CellImageCache& imageCache() const { return *m_cache; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public slots:
    void zoomIn();
    void zoomOut();
    void resetZoom();
    /// Sets the zoom, keeping the matrix point under `anchor` (viewport coordinates) in place; a
    /// null anchor keeps the centre.
    void setZoom(double zoom, QPointF anchor = QPointF(-1, -1));

signals:
    /// The pointer is over cell (row, col) whose value is `value`, in group number `group` (-1:
    /// none). Emitted when the hovered cell changes.
    void cellHovered(int row, int col, float value, int group);
    /// The pointer left the matrix.
    void hoverLeft();
    void zoomChanged(double zoom);
    /// effectiveScale() changed (new matrix or scale).
    void effectiveScaleChanged(float scale);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    bool viewportEvent(QEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void invalidate();
    void invalidateLayout();  ///< geometry changed, pixels did not
    void updateScrollBars();
    void requestImage(const MatrixLayout& l);
    /// The style of the block of cells `key` names (its rows and columns, the scale, the dpr).
    HeatmapStyle blockStyle(const CellImageKey& key) const;
    void paintTitle(QPainter& painter, const MatrixLayout& l);
    void paintCells(QPainter& painter, const MatrixLayout& l);
    void updateHover(QPointF pos, QPoint globalPos);
    void clearHover();
    IndexRange shownRange(std::size_t k) const;

    MatrixData m_matrix;
    HeatmapStyle m_style;
    std::vector<IndexRange> m_labelRanges;
    QString m_labelWhat;
    /// groupBandExtent of the group labels, measured once per set of groups, labels and font
    /// (every layout asks for it; measuring a label per group made tp 20,000 slow); -1: not yet.
    mutable qreal m_bandExtent = -1;
    QPointer<MatrixView> m_columnLeader;
    QString m_title;
    QString m_name;
    QString m_widestText;  ///< the longest cellText() of the matrix
    static constexpr long long kScannedCells = 1 << 16;
    float m_autoScale = 1.0f;
    NonFiniteKinds m_nonFinite;
    CellNumbers m_cellNumbers = CellNumbers::Auto;
    Qt::Alignment m_horizontalAlign = Qt::AlignHCenter;
    qreal m_maxFitCell = MatrixLayout::kMaxFitCell;
    double m_zoom = 1.0;
    quint64 m_generation = 1;  ///< bumped by every change of the pixels' inputs
    CellImageCache* m_cache;

    CellMarks m_marks;
    bool m_dragging = false;
    QPointF m_dragStart;
    QPoint m_dragScrollStart;
};

}  // namespace tp
