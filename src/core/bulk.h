#pragma once

#include "broadcast.h"
#include "canceltoken.h"
#include "result.h"
#include "tr.h"

#include <QCoroTask>

#include <QList>

#include <algorithm>
#include <functional>
#include <memory>

namespace Paddock {

// Runs one action over many items with at most `concurrency` of them in flight at once. Every
// item gets its own result, in the order of the items; one failure does not stop the rest.
// `onDone(index, result)` is called as each item finishes (for progress).
template<typename Item>
QCoro::Task<QList<Result<>>>
runBounded(QList<Item> items, int concurrency, std::function<QCoro::Task<Result<>>(const Item &)> action,
           std::shared_ptr<CancelToken> cancel = {}, std::function<void(qsizetype, const Result<> &)> onDone = {})
{
    struct State
    {
        QList<Item> items;
        QList<Result<>> results;
        std::function<QCoro::Task<Result<>>(const Item &)> action;
        std::shared_ptr<CancelToken> cancel;
        std::function<void(qsizetype, const Result<> &)> onDone;
        qsizetype next = 0;
        int running = 0;
        Broadcast<bool> finished;
    };
    auto state = std::make_shared<State>();
    state->items = std::move(items);
    state->results.resize(state->items.size());
    state->action = std::move(action);
    state->cancel = std::move(cancel);
    state->onDone = std::move(onDone);
    if (state->items.isEmpty())
        co_return state->results;

    // Each worker takes the next item until none is left; the last one to stop wakes us.
    const auto worker = [](std::shared_ptr<State> s) -> QCoro::Task<> {
        while (s->next < s->items.size()) {
            const qsizetype index = s->next++;
            if (s->cancel && s->cancel->isCancelled()) {
                s->results[index] = fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled")});
            } else {
                const Item &item = s->items.at(index);
                s->results[index] = co_await s->action(item);
            }
            if (s->onDone)
                s->onDone(index, s->results.at(index));
        }
        if (--s->running == 0)
            s->finished.set(true);
    };
    const int workers = int(std::min<qsizetype>(std::max(concurrency, 1), state->items.size()));
    state->running = workers;
    for (int i = 0; i < workers; ++i)
        worker(state); // QCoro tasks start at once and run until their first suspension
    co_await state->finished.wait();
    co_return state->results;
}

} // namespace Paddock
