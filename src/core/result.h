#pragma once

#include <QString>

#include <tl/expected.hpp>

namespace Paddock {

// What went wrong, as a value. The core never throws across its API.
struct Error
{
    enum class Kind {
        InvalidArgument, // bad input from the caller: a usage error in paddockctl
        NotFound,
        Conflict, // the object is in the wrong state for the request
        Io,
        Backend,
        Timeout,
        Bootstrap,
        Unsupported,
        Unreachable, // no answer (connection error or timeout): the request may or may not have run
        Cancelled, // the user stopped it before it ran
    };

    Kind kind = Kind::Backend;
    QString message;
    int httpStatus = 0; // the HTTP status of a remote backend's answer; 0: none
    // Unreachable, and the request never left: no connection could be made (refused, no such
    // host), so it did not run and may be sent again, to the same address or a new one.
    bool notConnected = false;
    // A request with a body sent again: an earlier attempt's outcome is unknown (its connection
    // dropped after it was sent, or a 500, 502 or 504), so it may have run. A DELETE's 404 then
    // most likely means that attempt deleted it. (Requests without a body may still be resent
    // by Qt itself, unseen, and never set it.)
    bool earlierAttemptMayHaveRun = false;

    static Error invalidArgument(const QString &message) { return {Kind::InvalidArgument, message}; }
    static Error notFound(const QString &message) { return {Kind::NotFound, message}; }
    static Error conflict(const QString &message) { return {Kind::Conflict, message}; }
    static Error io(const QString &message) { return {Kind::Io, message}; }
    static Error backend(const QString &message) { return {Kind::Backend, message}; }
    static Error timeout(const QString &message) { return {Kind::Timeout, message}; }
    static Error bootstrap(const QString &message) { return {Kind::Bootstrap, message}; }
    static Error unsupported(const QString &message) { return {Kind::Unsupported, message}; }
    static Error unreachable(const QString &message) { return {Kind::Unreachable, message}; }

    bool operator==(const Error &) const = default;
};

template<typename T = void> using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> fail(Error error)
{
    return tl::unexpected<Error>(std::move(error));
}

} // namespace Paddock
