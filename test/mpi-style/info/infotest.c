/*
 * infotest - info objects (MPI-4.1 section 10):
 *   set/get/get_valuelen/delete, nkeys and nthkey in insertion order (overwriting keeps the
 *   place, deleting closes the gap), Info_get truncation to valuelen characters,
 *   Info_get_string's buflen protocol (0 asks for the length; the length returned counts the
 *   terminator), dup giving an independent copy, free setting DFC_INFO_NULL, the limits
 *   DFC_MAX_INFO_KEY/VAL exactly, DFC_INFO_ENV's keys, and every error class:
 *   DFC_ERR_INFO, _INFO_KEY, _INFO_VALUE, _INFO_NOKEY, DFC_ERR_ARG.
 */
#include <unistd.h>

#include "../dfctest.h"

static void check_get(DFC_Info info, const char *key, const char *expected)
{
    char value[DFC_MAX_INFO_VAL + 1] = "untouched";
    int flag = -1, len = -1;
    DFCT_OK(DFC_Info_get(info, key, DFC_MAX_INFO_VAL, value, &flag));
    if (!expected) {
        DFCT_CHECK(flag == 0, "key \"%s\" should be absent", key);
        DFCT_CHECK(!strcmp(value, "untouched"), "absent key \"%s\" changed value", key);
        return;
    }
    DFCT_CHECK(flag == 1 && !strcmp(value, expected),
               "key \"%s\": flag %d value \"%s\", "
               "expected \"%s\"",
               key, flag, value, expected);
    DFCT_OK(DFC_Info_get_valuelen(info, key, &len, &flag));
    DFCT_CHECK(flag == 1 && len == (int)strlen(expected), "valuelen of \"%s\": %d", key, len);
}

static void check_keys(DFC_Info info, const char **keys, int n)
{
    int nkeys = -1;
    char key[DFC_MAX_INFO_KEY + 1];
    DFCT_OK(DFC_Info_get_nkeys(info, &nkeys));
    DFCT_CHECK(nkeys == n, "nkeys %d, expected %d", nkeys, n);
    for (int i = 0; i < n && i < nkeys; i++) {
        DFCT_OK(DFC_Info_get_nthkey(info, i, key));
        DFCT_CHECK(!strcmp(key, keys[i]), "key %d is \"%s\", expected \"%s\"", i, key, keys[i]);
    }
}

static void basics(void)
{
    DFC_Info info, dup;
    DFCT_OK(DFC_Info_create(&info));
    check_keys(info, NULL, 0);
    DFCT_OK(DFC_Info_set(info, "zeta", "1"));
    DFCT_OK(DFC_Info_set(info, "alpha", "two"));
    DFCT_OK(DFC_Info_set(info, "mid", "three three"));
    check_keys(info, (const char *[]){"zeta", "alpha", "mid"}, 3);
    check_get(info, "alpha", "two");
    check_get(info, "nope", NULL);
    check_get(info, "ALPHA", NULL); /* keys are case-sensitive */

    /* Overwriting keeps the key's place and the count. */
    DFCT_OK(DFC_Info_set(info, "zeta", "replaced"));
    check_keys(info, (const char *[]){"zeta", "alpha", "mid"}, 3);
    check_get(info, "zeta", "replaced");
    DFCT_OK(DFC_Info_set(info, "empty", ""));
    check_get(info, "empty", "");

    /* Info_get truncates to valuelen characters and still reports the key. */
    char small[8];
    int flag = 0;
    memset(small, 'x', sizeof small);
    DFCT_OK(DFC_Info_get(info, "mid", 5, small, &flag));
    DFCT_CHECK(flag == 1 && !strcmp(small, "three"), "truncated get gave \"%s\"", small);
    DFCT_OK(DFC_Info_get(info, "mid", 0, small, &flag));
    DFCT_CHECK(flag == 1 && small[0] == '\0', "valuelen 0 gave \"%s\"", small);

    /* Info_get_string: buflen 0 asks for the length including the terminator. */
    int buflen = 0;
    char buf[32] = "keep";
    DFCT_OK(DFC_Info_get_string(info, "mid", &buflen, buf, &flag));
    DFCT_CHECK(flag == 1 && buflen == 12 && !strcmp(buf, "keep"),
               "get_string(buflen 0): flag %d buflen %d buf \"%s\"", flag, buflen, buf);
    buflen = 6;
    DFCT_OK(DFC_Info_get_string(info, "mid", &buflen, buf, &flag));
    DFCT_CHECK(flag == 1 && buflen == 12 && !strcmp(buf, "three"),
               "get_string(buflen 6): buflen %d buf \"%s\"", buflen, buf);
    buflen = sizeof buf;
    DFCT_OK(DFC_Info_get_string(info, "mid", &buflen, buf, &flag));
    DFCT_CHECK(flag == 1 && buflen == 12 && !strcmp(buf, "three three"),
               "get_string(full): buflen %d buf \"%s\"", buflen, buf);
    buflen = 5;
    DFCT_OK(DFC_Info_get_string(info, "absent", &buflen, buf, &flag));
    DFCT_CHECK(flag == 0 && buflen == 5, "get_string(absent): flag %d buflen %d", flag, buflen);

    /* dup is a deep, independent copy. */
    DFCT_OK(DFC_Info_dup(info, &dup));
    check_keys(dup, (const char *[]){"zeta", "alpha", "mid", "empty"}, 4);
    DFCT_OK(DFC_Info_set(dup, "alpha", "changed"));
    DFCT_OK(DFC_Info_delete(dup, "zeta"));
    check_get(info, "alpha", "two");
    check_get(info, "zeta", "replaced");

    /* delete closes the gap and keeps the order of the rest. */
    DFCT_OK(DFC_Info_delete(info, "alpha"));
    check_keys(info, (const char *[]){"zeta", "mid", "empty"}, 3);
    check_get(info, "alpha", NULL);
    DFCT_OK(DFC_Info_set(info, "alpha", "back"));
    check_keys(info, (const char *[]){"zeta", "mid", "empty", "alpha"}, 4);
    check_keys(dup, (const char *[]){"alpha", "mid", "empty"}, 3);
    check_get(dup, "alpha", "changed");

    DFCT_OK(DFC_Info_free(&dup));
    DFCT_CHECK(dup == DFC_INFO_NULL, "Info_free did not set DFC_INFO_NULL");
    DFCT_OK(DFC_Info_free(&info));
    DFCT_CHECK(info == DFC_INFO_NULL, "Info_free did not set DFC_INFO_NULL");
}

static void limits_and_errors(void)
{
    DFC_Info info, stale;
    char key[DFC_MAX_INFO_KEY + 2], value[DFC_MAX_INFO_VAL + 2], out[DFC_MAX_INFO_VAL + 1];
    int flag = 0, n = 0;
    DFCT_OK(DFC_Info_create(&info));

    /* Exactly at the limits works; one more character fails. */
    memset(key, 'k', DFC_MAX_INFO_KEY);
    key[DFC_MAX_INFO_KEY] = '\0';
    memset(value, 'v', DFC_MAX_INFO_VAL);
    value[DFC_MAX_INFO_VAL] = '\0';
    DFCT_OK(DFC_Info_set(info, key, value));
    check_get(info, key, value);
    DFCT_OK(DFC_Info_get_nthkey(info, 0, out));
    DFCT_CHECK(!strcmp(out, key), "the longest key did not come back whole");
    key[DFC_MAX_INFO_KEY] = 'k';
    key[DFC_MAX_INFO_KEY + 1] = '\0';
    DFCT_FAILS(DFC_Info_set(info, key, "v"), DFC_ERR_INFO_KEY,
               "DFC_Info_set: invalid argument key");
    DFCT_FAILS(DFC_Info_get(info, key, 10, out, &flag), DFC_ERR_INFO_KEY, "invalid argument key");
    DFCT_FAILS(DFC_Info_delete(info, key), DFC_ERR_INFO_KEY, "invalid argument key");
    value[DFC_MAX_INFO_VAL] = 'v';
    value[DFC_MAX_INFO_VAL + 1] = '\0';
    DFCT_FAILS(DFC_Info_set(info, "k", value), DFC_ERR_INFO_VALUE,
               "DFC_Info_set: invalid argument value");
    DFCT_FAILS(DFC_Info_set(info, "", "v"), DFC_ERR_INFO_KEY, "invalid argument key");
    DFCT_FAILS(DFC_Info_set(info, NULL, "v"), DFC_ERR_INFO_KEY, "invalid argument key");
    DFCT_FAILS(DFC_Info_set(info, "k", NULL), DFC_ERR_INFO_VALUE, "invalid argument value");
    DFCT_OK(DFC_Info_get_nkeys(info, &n));
    DFCT_CHECK(n == 1, "failed sets changed nkeys to %d", n);

    /* Missing keys, bad indices, bad lengths. */
    DFCT_FAILS(DFC_Info_delete(info, "absent"), DFC_ERR_INFO_NOKEY,
               "DFC_Info_delete: invalid argument key");
    DFCT_FAILS(DFC_Info_get_nthkey(info, 1, out), DFC_ERR_ARG,
               "DFC_Info_get_nthkey: invalid argument n");
    DFCT_FAILS(DFC_Info_get_nthkey(info, -1, out), DFC_ERR_ARG, "invalid argument n");
    DFCT_FAILS(DFC_Info_get(info, "k", -1, out, &flag), DFC_ERR_ARG, "invalid argument valuelen");
    DFCT_FAILS(DFC_Info_get(info, "k", 10, out, NULL), DFC_ERR_ARG, "invalid argument flag");
    int negative = -1;
    DFCT_FAILS(DFC_Info_get_string(info, "k", &negative, out, &flag), DFC_ERR_ARG,
               "invalid argument buflen");
    DFCT_FAILS(DFC_Info_get_nkeys(info, NULL), DFC_ERR_ARG, "invalid argument nkeys");
    DFCT_FAILS(DFC_Info_create(NULL), DFC_ERR_ARG, "invalid argument info");

    /* Bad handles: null, freed, another kind's; the predefined ones cannot be freed. */
    DFCT_FAILS(DFC_Info_get_nkeys(DFC_INFO_NULL, &n), DFC_ERR_INFO,
               "DFC_Info_get_nkeys: invalid argument info");
    DFCT_FAILS(DFC_Info_set((DFC_Info)DFC_COMM_WORLD, "k", "v"), DFC_ERR_INFO,
               "invalid argument info");
    DFCT_OK(DFC_Info_dup(info, &stale));
    DFC_Info stale_copy = stale;
    DFCT_OK(DFC_Info_free(&stale));
    DFCT_FAILS(DFC_Info_get_nkeys(stale_copy, &n), DFC_ERR_INFO, "invalid argument info");
    DFCT_FAILS(DFC_Info_dup(stale_copy, &stale), DFC_ERR_INFO,
               "DFC_Info_dup: invalid argument info");
    DFC_Info predefined = DFC_INFO_ENV;
    DFCT_FAILS(DFC_Info_free(&predefined), DFC_ERR_INFO, "DFC_Info_free: invalid argument info");
    DFCT_CHECK(predefined == DFC_INFO_ENV, "a failed free changed the handle");
    predefined = DFC_INFO_NULL;
    DFCT_FAILS(DFC_Info_free(&predefined), DFC_ERR_INFO, "invalid argument info");
    DFCT_FAILS(DFC_Info_free(NULL), DFC_ERR_ARG, "invalid argument info");

    /* Still working after all that. */
    DFCT_OK(DFC_Info_set(info, "after", "errors"));
    check_get(info, "after", "errors");
    DFCT_OK(DFC_Info_free(&info));
}

static void info_env(void)
{
    char host[256] = "", value[DFC_MAX_INFO_VAL + 1], envhost[DFC_MAX_INFO_VAL + 1];
    int flag = 0, n = 0;
    gethostname(host, sizeof host - 1);
    DFCT_OK(DFC_Info_get(DFC_INFO_ENV, "host", DFC_MAX_INFO_VAL, value, &flag));
    /* The launcher may name the node by its full or its short name. */
    size_t short_len = strcspn(host, ".");
    DFCT_CHECK(flag && value[0] && !strncmp(value, host, short_len),
               "DFC_INFO_ENV host \"%s\", gethostname \"%s\"", value, host);
    strcpy(envhost, value);
    DFCT_OK(DFC_Info_get(DFC_INFO_ENV, "thread_level", DFC_MAX_INFO_VAL, value, &flag));
    DFCT_CHECK(flag && !strcmp(value, "DFC_THREAD_SINGLE"), "thread_level \"%s\"", value);
    DFCT_OK(DFC_Info_get_nkeys(DFC_INFO_ENV, &n));
    DFCT_CHECK(n >= 2, "DFC_INFO_ENV has %d keys", n);
    DFC_Info copy;
    DFCT_OK(DFC_Info_dup(DFC_INFO_ENV, &copy));
    char copied[DFC_MAX_INFO_VAL + 1];
    DFCT_OK(DFC_Info_get(copy, "host", DFC_MAX_INFO_VAL, copied, &flag));
    DFCT_CHECK(flag && !strcmp(copied, envhost), "dup of DFC_INFO_ENV: host \"%s\"", copied);
    DFCT_OK(DFC_Info_free(&copy));
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_set_errhandler(DFC_COMM_WORLD, DFC_ERRORS_RETURN));
    basics();
    limits_and_errors();
    info_env();
    return dfct_finalize();
}
