#pragma once

#include "storagecheck.h"

#include <QLabel>

class QMainWindow;

// The places the console cannot write to, as a warning across the top of its window: it stays
// (it is not a passing status message), asks nothing, and follows language switches.
class StorageBanner final : public QLabel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StorageBanner)

public:
    explicit StorageBanner(QList<StorageProblem> problems, QWidget *parent = nullptr);

    // A banner above everything else in `window`'s central widget; none (null) when `problems`
    // is empty.
    static StorageBanner *addTo(QMainWindow *window, const QList<StorageProblem> &problems);

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();

    QList<StorageProblem> m_problems;
};
