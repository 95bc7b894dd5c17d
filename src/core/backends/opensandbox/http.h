#pragma once

// The core's HTTP layer (src/core/http) under the names this backend's code uses, and how
// OpenSandbox's error bodies become Errors.

#include "../../http/httpclient.h"

namespace Paddock::OpenSandbox {

using Http::HttpClient;
using Http::HttpRequest;
using Http::HttpResponse;
using Http::OneShotBody;
using Http::ReplyDeleter;
using Http::retryAfterDelay;
using Http::RetryPolicy;
using Http::sendOnce;

// Any of the servers' three error bodies (ApiError): "HTTP 404 DOCKER::SANDBOX_NOT_FOUND: Sandbox
// abc not found (request 5f0c…)", 404 NotFound and 409 Conflict. The lifecycle and execd clients
// install it on the HttpClient they are given.
Error decodeHttpError(const Http::HttpResponse &response);

} // namespace Paddock::OpenSandbox
