#include "storagebanner.h"

#include <QBoxLayout>
#include <QEvent>
#include <QMainWindow>

StorageBanner::StorageBanner(QList<StorageProblem> problems, QWidget *parent)
    : QLabel(parent)
    , m_problems(std::move(problems))
{
    setObjectName(QStringLiteral("storageBanner"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setStyleSheet(QStringLiteral("QLabel#storageBanner { background: #fef3c7; color: #78350f; "
                                 "border: 1px solid #d97706; border-radius: 3px; padding: 6px; }"));
    retranslate();
}

StorageBanner *StorageBanner::addTo(QMainWindow *window, const QList<StorageProblem> &problems)
{
    auto *layout = qobject_cast<QBoxLayout *>(window->centralWidget()->layout());
    if (problems.isEmpty() || !layout)
        return nullptr;
    auto *banner = new StorageBanner(problems, window->centralWidget());
    layout->insertWidget(0, banner);
    return banner;
}

void StorageBanner::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QLabel::changeEvent(event);
}

void StorageBanner::retranslate()
{
    QStringList lines;
    for (const StorageProblem &problem : std::as_const(m_problems))
        lines.append(QStringLiteral("⚠ ") + problem.text());
    setText(lines.join(u'\n'));
    setAccessibleDescription(text());
}
