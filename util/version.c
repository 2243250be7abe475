/*
 * version: the strings of version.h, from the build's generated header
 * ($(O)/version.h, which the Makefile forces in with -include).
 */
#include "util/version.h"

#if !defined(TABULA_VERSION) || !defined(TABULA_URL)
#error "TABULA_VERSION and TABULA_URL come from the Makefile ($(O)/version.h)"
#endif

const char tabula_version[] = TABULA_VERSION;
const char tabula_url[] = TABULA_URL;
