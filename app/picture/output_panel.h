#pragma once

// The layer's outputs step by step: the current group's partial, the result filling up, the
// reference x @ kernel + bias and the check.

#include "compute/scene_computer.h"
#include "matrix_data.h"
#include "scene/timeline.h"

#include <QWidget>

class QGridLayout;
class QLabel;

namespace tp {

class MatrixView;
class PendingOverlay;
class VerificationView;

/// Column mode: the block x @ kernel[:, cols] + bias[cols] (N, chunk) of the current group in its
/// colour, the concatenation filling block by block, the brief's warning not to sum the groups
/// where the two meet, the reference and the verification.
/// Row mode: the current group's full-width partial sum, the running sum, y = sum + bias (the bias
/// added once, at the last step), the reference and the verification.
/// A scene that makes a mistake shows the wrong computation as it runs: sum-groups the blocks
/// summed into one (N, chunk) block, concat-partials the partial sums side by side (N, tp *
/// features), the others their own partials; the warning says what is wrong, and the error map
/// |y - reference| (its own scale, the worst cell marked) sits beside the check, or the check says
/// that the shapes differ.
class OutputPanel : public QWidget {
    Q_OBJECT

public:
    explicit OutputPanel(QWidget* parent = nullptr);

    void setScene(ScenePtr scene);
    /// Shows the outputs at a step of the loop (the Layer tab's timeline) of the scene shown.
    void setStep(const TimelineStep& step);
    /// Shows or folds away the check's sentence saying what it will compare and the warning of
    /// a correct scene (a short window gives the outputs the room); the verdict, the figures and
    /// a mistake's warning stay.
    void setExplanationsShown(bool shown);

    MatrixView* partialView() const { return m_partial; }
    /// Column: the concatenation. Row: the running sum.
    MatrixView* resultView() const { return m_result; }
    /// Row: y = sum + bias. Hidden in column mode, where the concatenation is y.
    MatrixView* finalView() const { return m_final; }
    MatrixView* referenceView() const { return m_reference; }
    PendingOverlay* resultOverlay() const { return m_resultOverlay; }
    PendingOverlay* finalOverlay() const { return m_finalOverlay; }
    QLabel* warningLabel() const { return m_warning; }
    VerificationView* verificationView() const { return m_verification; }
    /// |y - reference| per element (error_map.h); shown for a scene with a mistake whose output
    /// has the reference's shape.
    MatrixView* errorView() const { return m_error; }

signals:
    void hoverText(const QString& text);
    /// The pointer is over y[row, col] (in the full output's coordinates) in any output view: the
    /// partial, the concatenation or running sum, y = sum + bias, or the reference.
    void outputCellHovered(int row, int col);
    /// The pointer left the output view it was over: no output cell is traced.
    void outputCellLeft();

protected:
    /// A new palette (View > Theme): the warning's colours follow the window's lightness.
    void changeEvent(QEvent* event) override;
    /// Folds the warning away when the panel is shorter than the warning and the check need.
    void resizeEvent(QResizeEvent* event) override;

private:
    void connectHover(MatrixView* view, const QString& name);
    /// The warning beside the outputs, and the short one (a mistake's headline) that takes its
    /// place where the whole does not fit.
    void setWarning(const QString& html, const QString& shortHtml = {});
    /// Hides the warning when it and the check do not both fit the middle column's height, so
    /// that the check's verdict and figures show whole (a mistake's headline stands in for its
    /// whole warning first); shows it again when they fit.
    void foldWarning();
    /// Shows `html` in the warning, its colours made legible on the window's (legibleOn).
    void showWarningText(const QString& html);
    void showColumnStep(const TimelineStep& state);
    void showRowStep(const TimelineStep& state);
    void showErrorMap();
    /// The error map waits under its overlay, its title without the largest error's place, until
    /// the output is complete.
    void markErrorMap(bool complete);
    /// Shares the width between the columns of arrays (by their titles in row mode with the
    /// error map).
    void shareWidth();
    void showConcatenatedPartials(int summed);
    /// The running sum after groups 0..k (layer/forward.h runningSum) of the scene shown.
    MatrixData runningSumAfter(Index k);

    ScenePtr m_scene;
    std::shared_ptr<const Matrix> m_errors;      ///< the error map's elements (null: none shown)
    std::shared_ptr<const Matrix> m_runningSum;  ///< the running sum shown (null: none yet)
    Index m_runningSumAfter = -1;                ///< its last group
    QString m_errorTitle;  ///< the error map's title once the output is complete
    QGridLayout* m_grid;
    QWidget* m_middle;           ///< the warning over the check
    QString m_warningHtml;       ///< the warning as written, for a light window
    QString m_shortWarningHtml;  ///< the headline that stands in for it when short of room
    QString m_shownWarningHtml;  ///< which of the two the label shows
    MatrixView* m_partial;
    MatrixView* m_result;
    MatrixView* m_final;
    MatrixView* m_reference;
    MatrixView* m_error;
    PendingOverlay* m_partialOverlay;
    PendingOverlay* m_resultOverlay;
    PendingOverlay* m_finalOverlay;
    PendingOverlay* m_errorOverlay;
    QLabel* m_warning;
    VerificationView* m_verification;
    bool m_explanations = true;
    Index m_partialFirstColumn = 0;  ///< column mode: the partial's column 0 is y[:, this]
};

}  // namespace tp
