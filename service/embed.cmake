# Writes OUT, a C file defining svcOpenApiText (the bytes of IN, NUL-terminated) and svcOpenApiLength.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "/* generated from service/openapi.json by service/embed.cmake */\n#include <stddef.h>\n"
     "const unsigned char svcOpenApiText[] = {${bytes} 0};\nconst size_t svcOpenApiLength = ${len};\n")
