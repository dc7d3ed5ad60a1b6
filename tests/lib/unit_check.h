/* The C tests' check: CHECK(cond, format, ...) prints the file, the line and
 * the message of a failed condition and counts it in `failures`, which the
 * test's main() turns into its exit status. */
#ifndef IPSO_UNIT_CHECK_H
#define IPSO_UNIT_CHECK_H

#include <stdio.h>

static int failures = 0;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

#endif
