#pragma once

#include <QCoroTask>

#include <QCoreApplication>
#include <QDialog>
#include <QMetaObject>
#include <QPointer>

#include <coroutine>
#include <memory>

// Waits for a dialog's answer: its result once it is finished, or QDialog::Rejected when it is
// destroyed first (its window closed and took it along). `co_await qCoro(dialog,
// &QDialog::finished)` would never resume then, leaving the coroutine suspended for good with
// everything its frame holds. The caller resumes from the event loop, never from inside the
// dialog's done() or its destructor.
class DialogFinished
{
    // Shared by the copies the compiler may make of the awaiter (GCC 12 copies an lvalue one).
    struct State
    {
        std::coroutine_handle<> awaiting;
        QMetaObject::Connection finished;
        QMetaObject::Connection destroyed;
        int result = QDialog::Rejected;
        bool ended = false;
    };

public:
    explicit DialogFinished(QDialog *dialog)
        : m_dialog(dialog)
        , m_state(std::make_shared<State>())
    {
    }

    bool await_ready() const noexcept { return m_dialog.isNull(); }
    void await_suspend(std::coroutine_handle<> awaiting)
    {
        m_state->awaiting = awaiting;
        const std::shared_ptr<State> state = m_state;
        m_state->finished =
            QObject::connect(m_dialog.data(), &QDialog::finished, [state](int result) { end(*state, result); });
        m_state->destroyed =
            QObject::connect(m_dialog.data(), &QObject::destroyed, [state] { end(*state, QDialog::Rejected); });
    }
    int await_resume() const noexcept { return m_state->result; }

private:
    static void end(State &state, int result)
    {
        if (state.ended)
            return;
        state.ended = true;
        state.result = result;
        QObject::disconnect(state.finished);
        QObject::disconnect(state.destroyed);
        QMetaObject::invokeMethod(
            QCoreApplication::instance(), [awaiting = state.awaiting] { awaiting.resume(); }, Qt::QueuedConnection);
    }

    QPointer<QDialog> m_dialog;
    std::shared_ptr<State> m_state;
};

// The dialog's result, or QDialog::Rejected when it is gone (or was already) before it finished.
inline QCoro::Task<int> untilFinished(QDialog *dialog)
{
    DialogFinished finished(dialog);
    const int result = co_await finished;
    co_return result;
}
