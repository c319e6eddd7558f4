/*
 * unit_check.h - how the unit tests count and report failures, and their random numbers.
 *
 * FAIL(fmt, ...) counts a failure and prints "FAIL file:line: [context] message" for the
 * first 30 (one defect often fails thousands of cases; the first lines name it). CHECK(cond,
 * fmt, ...) fails when cond is false. A test prints its summary and exits with failures != 0.
 * Define UNIT_CHECK_CONTEXT (a string expression: the phase or case being run) before the
 * include to put it in every line, and UNIT_RNG_SEED to start rnd64() elsewhere.
 * Static definitions in a header: each unit test is one translation unit.
 */
#ifndef DFC_TEST_UNIT_CHECK_H
#define DFC_TEST_UNIT_CHECK_H

#include <stdint.h>
#include <stdio.h>

#ifndef UNIT_CHECK_CONTEXT
#define UNIT_CHECK_CONTEXT ""
#endif
#ifndef UNIT_RNG_SEED
#define UNIT_RNG_SEED 0x9e3779b97f4a7c15ull
#endif

static int failures, reported;

#define FAIL(...)                                                \
    do {                                                         \
        failures++;                                              \
        if (reported++ < 30) {                                   \
            const char *unit_ctx_ = UNIT_CHECK_CONTEXT;          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            if (*unit_ctx_) fprintf(stderr, "[%s] ", unit_ctx_); \
            fprintf(stderr, __VA_ARGS__);                        \
            fputc('\n', stderr);                                 \
        }                                                        \
    } while (0)

#define CHECK(c, ...)                \
    do {                             \
        if (!(c)) FAIL(__VA_ARGS__); \
    } while (0)

/* xorshift64*: fixed seed, so a failing case is the same case on every run. */
static uint64_t unit_rng_state = UNIT_RNG_SEED;
__attribute__((unused)) static uint64_t rnd64(void)
{
    unit_rng_state ^= unit_rng_state >> 12;
    unit_rng_state ^= unit_rng_state << 25;
    unit_rng_state ^= unit_rng_state >> 27;
    return unit_rng_state * 0x2545f4914f6cdd1dull;
}

#endif
