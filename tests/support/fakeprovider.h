#pragma once

// A WorkspaceProvider for the manager contract tests, in the role of upstream's mocked
// workspace class: it counts what the manager asks of it and lets a test hold a provisioning
// or a close open until it says so.

#include "broadcast.h"
#include "provisioner.h"
#include "workspace.h"

#include <QCoroTask>

#include <QHash>
#include <QStringList>

#include <memory>

namespace PaddockTest {

using namespace Paddock;

struct Gate
{
    std::shared_ptr<Broadcast<bool>> open = std::make_shared<Broadcast<bool>>();
    void release()
    {
        if (!open->isSet())
            open->set(true);
    }
};

class FakeWorkspace final : public Workspace
{
public:
    FakeWorkspace(const ProvisionRequest &request, int serial)
        : Workspace(request.workspaceId, request.userId, request.agentId)
        , serial(serial)
    {
    }

    QCoro::Task<Result<>> close() override
    {
        ++closeStarted;
        if (closeGate)
            co_await closeGate->open->wait();
        ++closed;
        if (failClose)
            co_return fail(Error::backend(QStringLiteral("close failed on purpose")));
        co_return Result<>{};
    }

    int serial;
    int closeStarted = 0;
    int closed = 0;
    bool failClose = false;
    std::shared_ptr<Gate> closeGate;
};

class FakeProvider final : public WorkspaceProvider
{
public:
    QCoro::Task<Result<WorkspacePtr>> provision(ProvisionRequest request) override
    {
        requests.append(request.workspaceId);
        if (const auto gate = gates.value(request.workspaceId))
            co_await gate->open->wait();
        if (failures.contains(request.workspaceId))
            co_return fail(Error::bootstrap(failures.value(request.workspaceId)));
        auto workspace = std::make_shared<FakeWorkspace>(request, ++serial);
        workspace->failClose = failClose.contains(request.workspaceId);
        workspace->closeGate = closeGate;
        built.append(workspace);
        co_return workspace;
    }

    std::shared_ptr<Gate> gate(const QString &id)
    {
        auto &gate = gates[id];
        if (!gate)
            gate = std::make_shared<Gate>();
        return gate;
    }

    QStringList requests;
    QHash<QString, QString> failures;
    QStringList failClose;
    QHash<QString, std::shared_ptr<Gate>> gates;
    std::shared_ptr<Gate> closeGate;
    QList<std::shared_ptr<FakeWorkspace>> built;
    int serial = 0;
};

} // namespace PaddockTest
