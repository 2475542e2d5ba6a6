#pragma once

// The sum behind one output value, term by term (core/layer/trace.h), in words and numbers.

#include "layer/layer_config.h"
#include "layer/trace.h"

#include <QFrame>

class QLabel;

namespace tp {

/// The text of a trace (rich text): "y[i, j] = sum_k x[i, k] * kernel[k, j] + bias[j]", one line
/// per listed term "x[i, k] * kernel[k, j] = a × b = p" (cellText numbers), the omitted terms'
/// count and sum, the bias added once, the sum in double and the float32 result (shortest
/// round-trip form); in row mode each group's partial, with its kernel rows.
QString traceHtml(const OutputTrace& trace, ParallelMode mode);

/// Shows the trace of the output cell under the pointer; empty (a hint) until the first one.
class TracePanel : public QFrame {
    Q_OBJECT

public:
    explicit TracePanel(QWidget* parent = nullptr);

    void showTrace(const OutputTrace& trace, ParallelMode mode);
    /// Back to the hint (a new scene).
    void clear();
    /// At the backward's steps the hint points at the gradients' cells; a trace on screen stays.
    void setBackwardStep(bool backward);
    QString text() const;
    /// Whether it shows a trace (false: the hint).
    bool showsTrace() const { return m_tracing; }

private:
    QLabel* m_text;
    bool m_tracing = false;
    bool m_backward = false;
};

}  // namespace tp
