# The Debian package: `cmake --build <dir> --target package` (CPack's DEB generator) makes
# paddock_<version>_<arch>.deb. Library dependencies come from dpkg-shlibdeps; what the
# binaries load at run time without linking it is listed here: the Qt platform plugins, the
# Qt translations (the standard dialogs' buttons in Chinese) and a CJK font, so Chinese never
# renders as boxes. A Secret Service is recommended: without one, API keys serve one run only.

# What desktops and software centres read, under one reverse-DNS id (GitHub's io.github.<owner>,
# the dash of paddock-console written as an underscore, as AppStream asks): the desktop entry,
# the AppStream metainfo and the hicolor icons (PNGs rendered from the SVG and committed, see
# icons/render.sh). The translations are installed by translations/CMakeLists.txt.
set(PADDOCK_APP_ID io.github.paddock_console.Paddock)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/${PADDOCK_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/${PADDOCK_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(DIRECTORY ${CMAKE_CURRENT_LIST_DIR}/icons/hicolor DESTINATION ${CMAKE_INSTALL_DATADIR}/icons)
# paddockctl's shell completion (completion/), where Debian's bash-completion and zsh look for it.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/completion/paddockctl.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME paddockctl)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/completion/_paddockctl DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME paddock)
set(CPACK_PACKAGE_VENDOR "Paddock")
set(CPACK_PACKAGE_CONTACT "Paddock developers <paddock@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${PROJECT_HOMEPAGE_URL}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, qt6-translations-l10n, fonts-noto-cjk")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnome-keyring | kwalletmanager")
set(CPACK_PACKAGE_DESCRIPTION "Paddock shows the workspaces of AI agents (local folders, OpenSandbox
sandboxes and Docker containers) grouped by user and agent, with their TTL and expiry counting
down, pause, resume and close, and each workspace's bootstrap log.
paddockctl does the same from the command line.")
set(CPACK_STRIP_FILES ON)
include(CPack)
