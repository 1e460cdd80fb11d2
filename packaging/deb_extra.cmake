# Run by CPack (CPACK_PRE_BUILD_SCRIPTS) on the Debian package's staging tree, after the install
# rules: adds what only the package has -- the systemd unit, /etc/default/tplan (a conffile) and
# the copyright file -- and compresses the manual pages as Debian policy wants.
set(TP_ROOT "${CPACK_TEMPORARY_INSTALL_DIRECTORY}") # the package's root: usr/, then lib/ and etc/ added here
if(NOT EXISTS "${TP_ROOT}/usr/bin/tplan")
  message(FATAL_ERROR "deb_extra.cmake: no usr/bin/tplan under ${CPACK_TEMPORARY_INSTALL_DIRECTORY}")
endif()
set(P "${CPACK_TP_PACKAGING_DIR}")
# (file(COPY_FILE), not file(INSTALL): CPack sets DESTDIR, which file(INSTALL) would prepend)
foreach(pair "tplan.service;lib/systemd/system/tplan.service" "tplan.default;etc/default/tplan"
             "tplan-node.service;lib/systemd/system/tplan-node.service" "tplan-node.default;etc/default/tplan-node"
             "debian/copyright;usr/share/doc/tplan/copyright")
  list(GET pair 0 from)
  list(GET pair 1 to)
  get_filename_component(dir "${TP_ROOT}/${to}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  file(COPY_FILE "${P}/${from}" "${TP_ROOT}/${to}")
  file(CHMOD "${TP_ROOT}/${to}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endforeach()
# a Debian changelog (a native package's): the project's own is CHANGELOG.md beside it
string(TIMESTAMP TP_NOW "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE "${TP_ROOT}/usr/share/doc/tplan/changelog"
     "tplan (${CPACK_PACKAGE_VERSION}) unstable; urgency=medium\n\n"
     "  * Release ${CPACK_PACKAGE_VERSION}: see /usr/share/doc/tplan/CHANGELOG.md.\n\n"
     " -- ${CPACK_PACKAGE_CONTACT}  ${TP_NOW}\n")
execute_process(COMMAND gzip -9nf "${TP_ROOT}/usr/share/doc/tplan/changelog" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "deb_extra.cmake: gzip changelog failed")
endif()
file(GLOB TP_MAN "${TP_ROOT}/usr/share/man/man1/*.1")
foreach(m ${TP_MAN})
  execute_process(COMMAND gzip -9n "${m}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "deb_extra.cmake: gzip ${m} failed")
  endif()
endforeach()
