#pragma once

// A profile session over a test's own backend (a LocalBackend in a temporary folder, a scripted
// or fake Backend subclass), the way the console makes one over a backend the registry made.
// The test keeps a reference to its backend; the session owns it. The session is shut down
// (awaited) when the helper goes, unless the test did so itself, so that no coroutine of it is
// left running into what its destructor frees, whatever QVERIFY returned early.

#include "backend.h"
#include "bootstraplog.h"
#include "profile.h"
#include "profilesession.h"
#include "provisioner.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <memory>
#include <utility>

namespace PaddockTest {

template<typename B> class TestSession
{
public:
    // logs may be null when nothing is opened (the window then offers no bootstrap log).
    explicit TestSession(std::unique_ptr<B> ownBackend, Paddock::Profile profile = Paddock::Profile::local(),
                         Paddock::BootstrapLogStore *logs = nullptr, Paddock::ProvisionOptions provision = {})
        : backend(*ownBackend)
        , session(std::move(profile), std::move(ownBackend), std::move(provision), logs)
    {
    }
    TestSession(const TestSession &) = delete;
    TestSession &operator=(const TestSession &) = delete;
    ~TestSession() { shutdown(); }

    // Ends the session (its manager stops, closing what it opened) and waits for it.
    void shutdown()
    {
        if (!session.isShutDown())
            QCoro::waitFor(session.shutdown());
    }

    Paddock::ProfileSession *get() { return &session; }
    Paddock::ProfileSession *operator->() { return &session; }

    B &backend; // owned by the session; valid until shutdown() completed
    Paddock::ProfileSession session;
};

// A Profile with another id (as a test's "flaky" profile), of the Local kind unless told.
inline Paddock::Profile testProfile(const QString &id, Paddock::Profile::Kind kind = Paddock::Profile::Kind::Local)
{
    Paddock::Profile profile = Paddock::Profile::local();
    profile.id = id;
    profile.kind = kind;
    return profile;
}

} // namespace PaddockTest
