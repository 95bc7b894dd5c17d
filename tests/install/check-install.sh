#!/bin/sh
# Installs the build into a prefix inside the build folder (cmake --install --prefix) and checks
# the installed tree as a user gets it: both programs answer --version (the console without a
# display), paddockctl speaks Chinese under a zh_CN locale with the translations read from the
# installed folder (not the build tree's), the installed bash completion asks the installed
# paddockctl, and the desktop entry and AppStream metainfo pass desktop-file-validate and
# appstreamcli (and the zsh completion zsh -n). Nothing is written outside the build folder.
# Where a validator is missing the rest still runs and the test is then skipped (exit 77), except
# under CI=true, where it fails.
#
# usage: check-install.sh <cmake> <build dir> <prefix> <version>
set -eu
cmake=$1 build=$2 prefix=$3 version=$4
id=io.github.paddock_console.Paddock

fail() {
    echo "check-install: $*" >&2
    exit 1
}

case $prefix in
"$build"/*) ;;
*) fail "the prefix $prefix is not inside the build folder $build" ;;
esac
rm -rf "$prefix"
mkdir -p "$prefix/home"
# The installed copies are as large as the build's own programs (hundreds of MB under the
# sanitizers): they go once checked, whatever the outcome, the log printed first on failure.
trap 'rm -rf "$prefix"' EXIT
"$cmake" --install "$build" --prefix "$prefix" >"$prefix/install.log" 2>&1 || {
    cat "$prefix/install.log" >&2
    fail "cmake --install failed"
}
prefix=$(cd "$prefix" && pwd -P)

# Whatever the programs (and the validators) might write goes into the prefix.
export HOME="$prefix/home" XDG_CONFIG_HOME="$prefix/home/config" XDG_DATA_HOME="$prefix/home/data" \
    XDG_CACHE_HOME="$prefix/home/cache" XDG_STATE_HOME="$prefix/home/state"
unset QT_LOGGING_RULES LANGUAGE LC_ALL LC_MESSAGES DISPLAY WAYLAND_DISPLAY QT_QPA_PLATFORM

for file in bin/paddock bin/paddockctl share/applications/$id.desktop share/metainfo/$id.metainfo.xml \
    share/icons/hicolor/scalable/apps/$id.svg share/paddock/translations/paddock_zh_CN.qm \
    share/paddock/translations/paddock_en.qm share/bash-completion/completions/paddockctl \
    share/zsh/vendor-completions/_paddockctl; do
    [ -s "$prefix/$file" ] || fail "$file is not installed"
done
for size in 16 22 24 32 48 64 128 256; do
    [ -s "$prefix/share/icons/hicolor/${size}x$size/apps/$id.png" ] || fail "the ${size}x$size icon is not installed"
done
echo "installed into $prefix"

out=$(LANG=C.UTF-8 "$prefix/bin/paddock" --version) || fail "paddock --version failed"
[ "$out" = "paddock $version" ] || fail "paddock --version printed '$out'"
echo "$out"
out=$(LANG=C.UTF-8 "$prefix/bin/paddockctl" --version) || fail "paddockctl --version failed"
case $out in *"$version"*) ;; *) fail "paddockctl --version printed '$out'" ;; esac
echo "$out"

# Chinese, from the installed translations.
LANGUAGE=zh_CN LANG=zh_CN.UTF-8 LC_ALL=zh_CN.UTF-8 QT_LOGGING_RULES="paddock.core.i18n.debug=true" \
    "$prefix/bin/paddockctl" --help >"$prefix/help.out" 2>"$prefix/help.err" || {
    cat "$prefix/help.err" >&2
    fail "paddockctl --help failed"
}
grep -q '用法' "$prefix/help.out" || {
    cat "$prefix/help.out" "$prefix/help.err" >&2
    fail "paddockctl --help under zh_CN is not in Chinese"
}
grep -qF "translations from $prefix/share/paddock/translations" "$prefix/help.err" || {
    cat "$prefix/help.err" >&2
    fail "paddockctl did not read its translations from $prefix/share/paddock/translations"
}
grep -qF "loaded $prefix/share/paddock/translations/paddock_zh_CN.qm" "$prefix/help.err" || {
    cat "$prefix/help.err" >&2
    fail "paddockctl did not load $prefix/share/paddock/translations/paddock_zh_CN.qm"
}
head -n 1 "$prefix/help.out"
grep -E "translations from|loaded" "$prefix/help.err"

# The bash completion as bash-completion loads it: its candidates come from the installed paddockctl.
out=$(PATH="$prefix/bin:$PATH" bash -c 'source "$1" && COMP_WORDS=(paddockctl pa) && COMP_CWORD=1 && _paddockctl &&
    printf "%s\n" "${COMPREPLY[@]}"' bash "$prefix/share/bash-completion/completions/paddockctl") ||
    fail "the bash completion failed"
[ "$out" = pause ] || fail "the bash completion of 'paddockctl pa' offered '$out'"
echo "bash completion: paddockctl pa -> $out"

missing=
if command -v zsh >/dev/null; then
    zsh -n "$prefix/share/zsh/vendor-completions/_paddockctl" || fail "the zsh completion does not parse"
else
    missing="$missing zsh"
fi
if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$prefix/share/applications/$id.desktop" || fail "desktop-file-validate failed"
    echo "desktop-file-validate: $id.desktop is valid"
else
    missing="$missing desktop-file-validate"
fi
if command -v appstreamcli >/dev/null; then
    appstreamcli validate --no-net "$prefix/share/metainfo/$id.metainfo.xml" || fail "appstreamcli validate failed"
else
    missing="$missing appstreamcli"
fi
if [ -n "$missing" ]; then
    echo "check-install: not installed:$missing (packaging/debian/test-depends)" >&2
    if [ "${CI:-}" = true ]; then exit 1; fi
    exit 77
fi
