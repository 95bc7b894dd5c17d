#pragma once

#include <QObject>

class QSocketNotifier;

// SIGTERM (a session ending, `kill`) and SIGINT (Ctrl+C in the terminal it was started from) as
// a signal on the event loop, so the console quits as when its window is closed (closing the
// workspaces it opened) instead of dying on the spot. One at a time: the handlers are
// process-wide.
class QuitSignals final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QuitSignals)

public:
    explicit QuitSignals(QObject *parent = nullptr);
    ~QuitSignals() override; // the handlers from before again

Q_SIGNALS:
    // `number` arrived (SIGTERM or SIGINT); emitted again for each further one.
    void received(int number);

private:
    QSocketNotifier *m_notifier = nullptr;
};
