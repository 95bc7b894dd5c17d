#!/usr/bin/env bash
# tst_fakee2b_sdk: the official E2B JS SDK (npm `e2b`, pinned to 2.51.0 with its whole dependency
# tree by package-lock.json) against paddock-fake-e2b, on 127.0.0.1 only.
#
#   run-sdk-test.sh FAKE_E2B PREFIX SOURCE_DIR
#
# The SDK is installed with `npm ci --prefix PREFIX` (PREFIX is in the build folder) when PREFIX
# does not already hold exactly this lock file's packages; only that step uses the network (the
# npm registry). Exit status 77 (ctest's skip) where Node.js or npm is missing, or the install
# cannot reach the registry, except under CI=true, where that is a failure.
set -euo pipefail

fake=$1
prefix=$2
source_dir=$3

skip() {
    echo "tst_fakee2b_sdk: $*" >&2
    if [ "${CI:-}" = true ]; then
        echo "tst_fakee2b_sdk: CI=true requires this test: failing instead of skipping" >&2
        exit 1
    fi
    exit 77
}

command -v node >/dev/null || skip "node (Node.js >= 20.18.1) is not installed"
command -v npm >/dev/null || skip "npm is not installed"
echo "node $(node --version), npm $(npm --version)"

mkdir -p "$prefix"
if ! cmp -s "$source_dir/package-lock.json" "$prefix/package-lock.json" \
    || [ ! -f "$prefix/node_modules/e2b/package.json" ]; then
    cp "$source_dir/package.json" "$source_dir/package-lock.json" "$prefix/"
    echo "+ npm ci --prefix $prefix --no-audit --no-fund --ignore-scripts"
    started=$(date +%s%N)
    if ! npm ci --prefix "$prefix" --no-audit --no-fund --ignore-scripts; then
        rm -f "$prefix/package-lock.json" # try again next time
        skip "npm ci could not install the E2B SDK"
    fi
    echo "npm ci took $(( ($(date +%s%N) - started) / 1000000 )) ms"
else
    echo "the E2B SDK is installed already in $prefix (package-lock.json unchanged)"
fi
version=$(node -p "require('$prefix/node_modules/e2b/package.json').version")
[ "$version" = 2.51.0 ] || { echo "tst_fakee2b_sdk: e2b $version installed, 2.51.0 expected" >&2; exit 1; }

# The fake, confined by bubblewrap where this machine can (else unconfined, but not under CI).
workdir=$(mktemp -d)
fake_pid=
cleanup() {
    if [ -n "$fake_pid" ]; then
        kill -TERM "$fake_pid" 2>/dev/null || true
        wait "$fake_pid" 2>/dev/null || true
    fi
    rm -rf "$workdir"
}
trap cleanup EXIT

start_fake() {
    "$fake" --api-key e2b_0123456789abcdef0123456789abcdef --max-timeout-hours 24 "$@" \
        >"$workdir/urls" 2>"$workdir/fake.log" &
    fake_pid=$!
    for _ in $(seq 600); do
        [ "$(wc -l <"$workdir/urls")" -ge 2 ] && return 0
        kill -0 "$fake_pid" 2>/dev/null || { wait "$fake_pid" 2>/dev/null || true; fake_pid=; return 1; }
        sleep 0.1
    done
    return 1
}
if ! start_fake; then
    cat "$workdir/fake.log" >&2
    [ "${CI:-}" = true ] && { echo "tst_fakee2b_sdk: the fake did not start (bubblewrap?)" >&2; exit 1; }
    echo "tst_fakee2b_sdk: the fake cannot confine commands here: running it with --no-bwrap" >&2
    start_fake --no-bwrap || { cat "$workdir/fake.log" >&2; exit 1; }
    export FAKE_E2B_UNCONFINED=1
fi
api_url=$(sed -n 1p "$workdir/urls")
envd_url=$(sed -n 2p "$workdir/urls")
echo "paddock-fake-e2b: API $api_url, envd $envd_url"

# Everything the SDK reaches is on 127.0.0.1: both URLs are given; the domain is one that never
# resolves (RFC 2606), so a request built from it fails instead of leaving the machine; no proxy;
# not debug mode (which would skip create, connect and kill).
set +e
env -u E2B_DEBUG -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy -u ALL_PROXY -u all_proxy \
    E2B_API_URL="$api_url" E2B_SANDBOX_URL="$envd_url" E2B_DOMAIN=paddock-fake.invalid \
    E2B_API_KEY=e2b_0123456789abcdef0123456789abcdef NO_PROXY='*' E2B_SDK_PREFIX="$prefix" \
    node "$source_dir/sdk-test.mjs"
status=$?
set -e
if [ $status -ne 0 ]; then
    echo "--- paddock-fake-e2b's log" >&2
    tail -50 "$workdir/fake.log" >&2
fi
exit $status
