# Run by CPack (CPACK_PRE_BUILD_SCRIPTS) on the Debian packages' staging trees, after the install
# rules (one tree per component: CPACK_TEMPORARY_INSTALL_DIRECTORY/<component>): refuses to build
# without a Maintainer (TP_DEB_MAINTAINER); gives every package its copyright file and a Debian
# changelog in usr/share/doc/<package>; adds what only the tplan package has -- the systemd units
# and /etc/default/tplan{,-node} (conffiles) -- and compresses its manual pages; gives tplan-mpi
# its manual page, a link to tplan(1) (the same program, with --mpi).
if("${CPACK_PACKAGE_CONTACT}" STREQUAL "")
  message(FATAL_ERROR "make package: no Maintainer for the Debian packages: configure with "
                      "-DTP_DEB_MAINTAINER=\"Name <address>\" (or cpack -D CPACK_PACKAGE_CONTACT=\"Name <address>\")")
endif()
if(NOT CPACK_TP_WHOLE)
  message(FATAL_ERROR "make package: the tplan package is the whole program, and this build lacks its viewer or "
                      "service: configure with -DTP_VIEWER=ON -DTP_SERVICE=ON (docs/install.md#build-options)")
endif()
set(P "${CPACK_TP_PACKAGING_DIR}")
# The changelog's date: SOURCE_DATE_EPOCH when set (reproducible builds), else the source's last
# commit, else now. A fixed date makes libtplan0's and libtplan-dev's changelog.gz the same bytes on
# every architecture, as Multi-Arch: same needs for files outside usr/lib/<triplet> (gzip -n: no
# name or time in the header). string(TIMESTAMP) reads SOURCE_DATE_EPOCH itself.
if("$ENV{SOURCE_DATE_EPOCH}" STREQUAL "")
  execute_process(COMMAND git -C "${P}" log -1 --format=%ct OUTPUT_VARIABLE TP_EPOCH OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0 AND TP_EPOCH MATCHES "^[0-9]+$")
    set(ENV{SOURCE_DATE_EPOCH} "${TP_EPOCH}")
  endif()
endif()
string(TIMESTAMP TP_NOW "%a, %d %b %Y %H:%M:%S +0000" UTC)
# (file(COPY_FILE), not file(INSTALL): CPack sets DESTDIR, which file(INSTALL) would prepend)
function(tp_put root from to)
  get_filename_component(dir "${root}/${to}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  file(COPY_FILE "${from}" "${root}/${to}")
  file(CHMOD "${root}/${to}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endfunction()
foreach(pair ${CPACK_TP_COMPONENTS})
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 comp)
  list(GET pair 1 pkg)
  set(root "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/${comp}")
  if(NOT IS_DIRECTORY "${root}/usr")
    message(FATAL_ERROR "deb_extra.cmake: no ${root}/usr: the ${comp} component installed nothing")
  endif()
  set(doc "usr/share/doc/${pkg}")
  tp_put("${root}" "${P}/debian/copyright" "${doc}/copyright")
  # a native package's changelog: the project's own is CHANGELOG.md in the tplan package
  file(WRITE "${root}/${doc}/changelog"
       "tplan (${CPACK_PACKAGE_VERSION}) unstable; urgency=medium\n\n"
       "  * Release ${CPACK_PACKAGE_VERSION}: see /usr/share/doc/tplan/CHANGELOG.md.\n\n"
       " -- ${CPACK_PACKAGE_CONTACT}  ${TP_NOW}\n")
  execute_process(COMMAND gzip -9nf "${root}/${doc}/changelog" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "deb_extra.cmake: gzip ${doc}/changelog failed")
  endif()
endforeach()

set(TP_BIN "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/bin")
if(NOT EXISTS "${TP_BIN}/usr/bin/tplan")
  message(FATAL_ERROR "deb_extra.cmake: no usr/bin/tplan under ${TP_BIN}")
endif()
foreach(pair "tplan.service;lib/systemd/system/tplan.service" "tplan.default;etc/default/tplan"
             "tplan-node.service;lib/systemd/system/tplan-node.service" "tplan-node.default;etc/default/tplan-node")
  list(GET pair 0 from)
  list(GET pair 1 to)
  tp_put("${TP_BIN}" "${P}/${from}" "${to}")
endforeach()
# LICENSE says what usr/share/doc/tplan/copyright says: Debian keeps only the latter (lintian's
# extra-license-file); a prefix install keeps it
file(REMOVE "${TP_BIN}/usr/share/doc/tplan/LICENSE")
file(GLOB TP_MAN "${TP_BIN}/usr/share/man/man1/*.1")
foreach(m ${TP_MAN})
  execute_process(COMMAND gzip -9n "${m}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "deb_extra.cmake: gzip ${m} failed")
  endif()
endforeach()
# tplan-mpi(1) is tplan(1): tplan-mpi Depends tplan, which has the page
set(TP_MPI_ROOT "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/mpi")
if(IS_DIRECTORY "${TP_MPI_ROOT}/usr")
  file(MAKE_DIRECTORY "${TP_MPI_ROOT}/usr/share/man/man1")
  file(CREATE_LINK tplan.1.gz "${TP_MPI_ROOT}/usr/share/man/man1/tplan-mpi.1.gz" SYMBOLIC)
endif()
