#pragma once

#include "inspect/workspaceinspector.h"
#include "inspectorsupport.h"

#include <QCoroFwd>

#include <QDialog>
#include <QList>
#include <QWidget>

#include <optional>

class ElidedLabel;
class InspectorNote;
class QTextBrowser;
class QToolButton;

// A text file of the workspace (a tool-result file, a file's preview, one long transcript line),
// page by page (PageBytes at a time, through Inspect::readTextPage), with the data placeholders
// of tool-result files linked to their data/ files. A binary file gets a note instead of text;
// likely secrets are masked while redacting. Read only; nothing is written.
class TextPageView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TextPageView)

public:
    static constexpr qint64 PageBytes = 64 * 1024;

    explicit TextPageView(QWidget *parent = nullptr);
    ~TextPageView() override;

    // Shows `path` from byte `start`; `length` bytes of it at most (-1: to its end).
    void open(const Paddock::Inspect::WorkspaceRef &ref, const QString &path, qint64 start = 0, qint64 length = -1);
    void clear();
    void setRedact(bool redact);
    QString path() const { return m_path; }
    // The text shown (masked while redacting), for tests.
    QString text() const;
    InspectorNote *note() const { return m_note; }
    bool isReading() const { return m_reading; }
    void nextPage();
    void previousPage();

Q_SIGNALS:
    void dataRequested(const QString &path);
    // A page was shown (or could not be read).
    void pageShown();

protected:
    void changeEvent(QEvent *event) override;

private:
    QCoro::Task<void> read(qint64 offset);
    void show(const Paddock::Inspect::TextPage &page);
    void showPage();
    void updateHeader();
    void retranslate();

    ElidedLabel *m_where;
    QToolButton *m_previous;
    QToolButton *m_next;
    InspectorNote *m_note;
    QTextBrowser *m_browser;
    ReadSlot m_slot;
    Paddock::Inspect::WorkspaceRef m_ref;
    QString m_path;
    qint64 m_start = 0;
    qint64 m_length = -1;
    QList<qint64> m_previousOffsets;
    std::optional<Paddock::Inspect::TextPage> m_page;
    std::optional<Paddock::Error> m_error;
    bool m_redact = true;
    bool m_reading = false;
};

// A window of its own for a TextPageView (a tool-result file, a raw transcript line): not modal,
// shown again for the next file.
class TextPageDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TextPageDialog)

public:
    explicit TextPageDialog(QWidget *parent = nullptr);
    ~TextPageDialog() override;
    TextPageView *view() const { return m_view; }
    void showFile(const Paddock::Inspect::WorkspaceRef &ref, const QString &path, qint64 start = 0, qint64 length = -1,
                  const QString &title = {});

private:
    TextPageView *m_view;
};
