/*
 * test_env - the environment parameter registry (src/util/env_registry.c) and its checks
 * (src/util/env.c): every kind of value accepted and refused at its edges, the error class
 * and message of a refused one, the warning for an unknown DFC_ variable (one line, with the
 * nearest parameter) and none for the source tree's script variables, the readers' parsing,
 * the algorithm lists against the algorithms of src/coll/select.c, and every parameter the
 * library registers (dfc_env_register_all) known to the registry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/dfc_params.h"
#include "coll/dfc_coll.h"
#include "util/dfc_util.h"

static int failures;

#define CHECK(cond, ...)                                \
    do {                                                \
        if (!(cond)) {                                  \
            fprintf(stderr, "test_env:%d: ", __LINE__); \
            fprintf(stderr, __VA_ARGS__);               \
            fprintf(stderr, "\n");                      \
            failures++;                                 \
        }                                               \
    } while (0)

/* name, value, 1 if the registry must accept it; refused values must also be named in the
 * message together with what the parameter accepts. */
static const struct {
    const char *name, *value;
    int ok;
    const char *accepts; /* a piece of the "accepts ..." text of a refused value */
} cases[] = {
    {"DFC_EAGER_LIMIT", "0", 1, NULL},
    {"DFC_EAGER_LIMIT", "16384", 1, NULL},
    {"DFC_EAGER_LIMIT", "64k", 1, NULL},
    {"DFC_EAGER_LIMIT", "64K", 1, NULL},
    {"DFC_EAGER_LIMIT", "0x4000", 1, NULL},
    {"DFC_EAGER_LIMIT", "1g", 1, NULL},
    {"DFC_EAGER_LIMIT", "1073741825", 0, "an integer from 0 to 1073741824"},
    {"DFC_EAGER_LIMIT", "-5", 0, "an integer from 0 to 1073741824"},
    {"DFC_EAGER_LIMIT", "2g", 0, "a k, m or g suffix"},
    {"DFC_EAGER_LIMIT", "64kb", 0, "an integer"},
    {"DFC_EAGER_LIMIT", "12 ", 0, "an integer"},
    {"DFC_EAGER_LIMIT", "lots", 0, "an integer"},
    {"DFC_EAGER_LIMIT", "99999999999999999999", 0, "an integer"},
    {"DFC_UNEXPECTED_LIMIT", "9000000000000000000g", 0, "an integer"}, /* overflows */
    {"DFC_GPU_CHANNELS", "1", 1, NULL},
    {"DFC_GPU_CHANNELS", "32", 1, NULL},
    {"DFC_GPU_CHANNELS", "0", 0, "an integer from 1 to 32"},
    {"DFC_GPU_CHANNELS", "33", 0, "an integer from 1 to 32"},
    {"DFC_GPU_CHANNELS", "banana", 0, "an integer from 1 to 32"},
    {"DFC_GPU_DEVICE", "-1", 1, NULL},
    {"DFC_GPU_DEVICE", "-2", 0, "from -1 to"},
    {"DFC_RGET", "0", 1, NULL},
    {"DFC_RGET", "1", 1, NULL},
    {"DFC_RGET", "2", 0, "0 or 1"},
    {"DFC_RGET", "yes", 0, "0 or 1"},
    {"DFC_GPU_RELAUNCH_US", "50", 1, NULL},
    {"DFC_GPU_RELAUNCH_US", "0.5", 1, NULL},
    {"DFC_GPU_RELAUNCH_US", "-1", 0, "a number from 0"},
    {"DFC_GPU_RELAUNCH_US", "nan", 0, "a number from 0"},
    {"DFC_GPU_RELAUNCH_US", "5us", 0, "a number from 0"},
    {"DFC_TRANSPORT", "auto", 1, NULL},
    {"DFC_TRANSPORT", "tcp", 1, NULL},
    {"DFC_TRANSPORT", "bogus", 0, "one of auto, tcp"},
    {"DFC_TRANSPORT", "tc", 0, "one of auto, tcp"},
    {"DFC_TRANSPORT", "tcpx", 0, "one of auto, tcp"},
    {"DFC_TRANSPORT", "TCP", 0, "one of auto, tcp"},
    {"DFC_ALLREDUCE_ALGORITHM", "ring", 1, NULL},
    {"DFC_ALLREDUCE_ALGORITHM", "auto", 1, NULL},
    {"DFC_ALLREDUCE_ALGORITHM", "rign", 0, "one of auto, recursive_doubling"},
    {"DFC_BARRIER_ALGORITHM", "ring", 0, "one of auto, dissemination"},
    {"DFC_DEBUG", "0", 1, NULL},
    {"DFC_DEBUG", "3", 1, NULL},
    {"DFC_DEBUG", "2:tl", 1, NULL},
    {"DFC_DEBUG", "1:error,p2p,shm", 1, NULL},
    {"DFC_DEBUG", "4", 0, "a level from 0 to 3"},
    {"DFC_DEBUG", "2:", 0, "a level from 0 to 3"},
    {"DFC_DEBUG", "2:tl,", 0, "comma-separated list of init"},
    {"DFC_DEBUG", "2:tl,bogus", 0, "comma-separated list of init"},
    {"DFC_DEBUG", ":tl", 0, "a level"},
    {"DFC_DEBUG", "verbose", 0, "a level"},
    {"DFC_TCP_IF_ADDR", "127.0.0.1", 1, NULL},
    {"DFC_TCP_IF_ADDR", "10.1.2.3", 1, NULL},
    {"DFC_TCP_IF_ADDR", "10.1.2", 0, "an IPv4 address"},
    {"DFC_TCP_IF_ADDR", "eth0", 0, "an IPv4 address"},
    {"DFC_TCP_IF_ADDR", "256.1.1.1", 0, "an IPv4 address"},
    {"DFC_TCP_MAX_PAYLOAD", "1k", 1, NULL},
    {"DFC_TCP_MAX_PAYLOAD", "1023", 0, "from 1024 to 1073741824"},
    {"DFC_CUDA_LIBRARY", "libcudart.so.12", 1, NULL},
    {"DFC_SHM_LIVENESS_MS", "0", 0, "from 1 to 60000"},
};

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const dfc_env_spec_t *spec = dfc_env_spec(cases[i].name);
        CHECK(spec, "%s is not in the registry", cases[i].name);
        if (!spec) continue;
        int rc = dfc_env_validate(spec, cases[i].value, "test_cases");
        if (cases[i].ok) {
            CHECK(rc == DFC_SUCCESS, "%s=%s refused", cases[i].name, cases[i].value);
            continue;
        }
        CHECK(DFC_ERR_CLASS(rc) == DFC_ERR_ARG, "%s=%s: class %d, not DFC_ERR_ARG", cases[i].name,
              cases[i].value, DFC_ERR_CLASS(rc));
        char msg[DFC_MAX_ERROR_STRING], want[160];
        dfc_err_message(rc, msg, sizeof msg);
        snprintf(want, sizeof want, "test_cases: invalid environment parameter %s=%s: %s accepts ",
                 cases[i].name, cases[i].value, cases[i].name);
        CHECK(!strncmp(msg, want, strlen(want)), "%s=%s: message \"%s\" lacks \"%s\"",
              cases[i].name, cases[i].value, msg, want);
        CHECK(strstr(msg, cases[i].accepts), "%s=%s: message \"%s\" lacks \"%s\"", cases[i].name,
              cases[i].value, msg, cases[i].accepts);
    }
    /* Unset and empty mean the default: never an error. */
    const dfc_env_spec_t *spec = dfc_env_spec("DFC_EAGER_LIMIT");
    CHECK(dfc_env_validate(spec, "", "t") == DFC_SUCCESS, "empty value refused");
    CHECK(dfc_env_validate(spec, NULL, "t") == DFC_SUCCESS, "unset value refused");
    CHECK(!dfc_env_spec("DFC_EAGER_LIMT"), "a misspelt name is in the registry");
}

/* Runs dfc_env_check over envp; returns its code and puts what it warned into out. */
static int check_env(char *const *envp, char *out, size_t len)
{
    FILE *f = tmpfile();
    if (!f) {
        perror("tmpfile");
        exit(99);
    }
    int rc = dfc_env_check(envp, "DFC_Init", 0, f);
    rewind(f);
    size_t n = fread(out, 1, len - 1, f);
    out[n] = 0;
    fclose(f);
    return rc;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static void test_check(void)
{
    char out[4096], msg[DFC_MAX_ERROR_STRING];
    char *good[] = {"PATH=/bin",
                    "DFC_EAGER_LIMIT=64k",
                    "DFC_TRANSPORT=tcp",
                    "DFC_DEBUG=",
                    "DFC_LAUNCHERS=mpirun",
                    "DFC_TEST_NODES=1",
                    "DFC_RUNTESTS_TOKEN=abc",
                    "DFC_ALLGATHER_ALGORITHM=bruck",
                    "NOT_DFC_X=1",
                    "XDFC_Y=2",
                    NULL};
    CHECK(check_env(good, out, sizeof out) == DFC_SUCCESS, "a good environment was refused");
    CHECK(!out[0], "a good environment drew output: %s", out);

    char *typo[] = {"DFC_EAGER_LIMT=5", "DFC_EAGER_LIMIT=5", "DFC_ZZZZZZZZZZZZ=1", NULL};
    CHECK(check_env(typo, out, sizeof out) == DFC_SUCCESS, "an unknown variable was an error");
    CHECK(count_lines(out) == 2, "not one warning per unknown variable: \"%s\"", out);
    CHECK(strstr(out, "[dfc rank 0] warning: DFC_EAGER_LIMT is set, but DFC has no such "
                      "parameter; did you mean DFC_EAGER_LIMIT?"),
          "no warning with a suggestion for DFC_EAGER_LIMT: \"%s\"", out);
    CHECK(strstr(out, "warning: DFC_ZZZZZZZZZZZZ is set, but DFC has no such parameter (see"),
          "no plain warning for DFC_ZZZZZZZZZZZZ: \"%s\"", out);
    CHECK(dfc_env_check(typo, "DFC_Init", 0, NULL) == DFC_SUCCESS, "warn=NULL changed the result");

    /* The first bad value is the error; a typo beside it still warns. */
    char *bad[] = {"DFC_TRASNPORT=tcp", "DFC_EAGER_LIMIT=-5", "DFC_GPU_CHANNELS=banana", NULL};
    int rc = check_env(bad, out, sizeof out);
    CHECK(DFC_ERR_CLASS(rc) == DFC_ERR_ARG, "bad environment: class %d", DFC_ERR_CLASS(rc));
    dfc_err_message(rc, msg, sizeof msg);
    CHECK(strstr(msg, "DFC_Init: invalid environment parameter DFC_EAGER_LIMIT=-5: "
                      "DFC_EAGER_LIMIT accepts an integer from 0 to 1073741824"),
          "bad environment: message \"%s\"", msg);
    CHECK(count_lines(out) == 1 && strstr(out, "did you mean DFC_TRANSPORT?"),
          "bad environment: warnings \"%s\"", out);

    /* A long value is cut in the message, which stays within DFC_MAX_ERROR_STRING. */
    char big[600] = "DFC_TRANSPORT=";
    memset(big + strlen(big), 'x', 500);
    char *longv[] = {big, NULL};
    rc = check_env(longv, out, sizeof out);
    dfc_err_message(rc, msg, sizeof msg);
    CHECK(DFC_ERR_CLASS(rc) == DFC_ERR_ARG && strstr(msg, "xxx...: DFC_TRANSPORT accepts one of"),
          "long value: message \"%s\"", msg);
}

static void test_readers(void)
{
    setenv("DFC_EAGER_LIMIT", "64k", 1);
    CHECK(dfc_env_long("DFC_EAGER_LIMIT", 7, "d") == 65536, "64k is not 65536");
    setenv("DFC_EAGER_LIMIT", "0x10", 1);
    CHECK(dfc_env_long("DFC_EAGER_LIMIT", 7, "d") == 16, "0x10 is not 16");
    setenv("DFC_EAGER_LIMIT", "-5", 1); /* refused: the default */
    CHECK(dfc_env_long("DFC_EAGER_LIMIT", 7, "d") == 7, "a refused value was used");
    setenv("DFC_EAGER_LIMIT", "", 1);
    CHECK(dfc_env_long("DFC_EAGER_LIMIT", 7, "d") == 7, "empty is not the default");
    setenv("DFC_GPU_RELAUNCH_US", "2.5", 1);
    CHECK(dfc_env_double("DFC_GPU_RELAUNCH_US", 9, "d") == 2.5, "2.5 misread");
    setenv("DFC_GPU_RELAUNCH_US", "2.5x", 1);
    CHECK(dfc_env_double("DFC_GPU_RELAUNCH_US", 9, "d") == 9, "a refused real was used");
    setenv("DFC_TRANSPORT", "bogus", 1);
    CHECK(!strcmp(dfc_env_str("DFC_TRANSPORT", "auto", "d"), "auto"), "a refused word was used");
    setenv("DFC_TRANSPORT", "tcp", 1);
    CHECK(!strcmp(dfc_env_str("DFC_TRANSPORT", "auto", "d"), "tcp"), "tcp misread");
    unsetenv("DFC_EAGER_LIMIT");
    unsetenv("DFC_GPU_RELAUNCH_US");
    unsetenv("DFC_TRANSPORT");
}

/* Each DFC_<KIND>_ALGORITHM accepts "auto" and exactly the algorithms of its kind. */
static void test_algorithms(void)
{
    for (int k = 0; k < DFC_COLL_KIND_COUNT; k++) {
        char name[64];
        int n = snprintf(name, sizeof name, "DFC_");
        for (const char *p = dfc_coll_kind_name((dfc_coll_kind_t)k); *p; p++)
            name[n++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
        snprintf(name + n, sizeof name - n, "_ALGORITHM");
        const dfc_env_spec_t *spec = dfc_env_spec(name);
        CHECK(spec && spec->kind == DFC_ENV_CHOICE, "%s is not a choice in the registry", name);
        if (!spec) continue;
        int listed = 0;
        for (const char *p = spec->choices; *p; listed++) {
            size_t len = strcspn(p, "|");
            p += len + (p[len] == '|');
        }
        int algos = 1; /* auto */
        for (int i = 0; i < dfc_coll_nalgos; i++) {
            if ((int)dfc_coll_algos[i].kind != k) continue;
            algos++;
            CHECK(dfc_env_validate(spec, dfc_coll_algos[i].name, "t") == DFC_SUCCESS,
                  "%s does not accept the algorithm %s", name, dfc_coll_algos[i].name);
        }
        CHECK(listed == algos, "%s lists %d words, but its kind has %d algorithms and auto", name,
              listed, algos - 1);
    }
}

/* Every parameter the library reads lazily (as dfc_info lists them) is in the registry, and
 * every registry entry is unique. Parameters read only inside DFC_Init are checked from the
 * sources by check_env_registry.sh. */
static void test_registered(void)
{
    dfc_env_register_all();
    int n, ns;
    const dfc_env_param_t *p = dfc_env_params(&n);
    const dfc_env_spec_t *s = dfc_env_specs(&ns);
    CHECK(n > 20, "only %d parameters registered", n);
    for (int i = 0; i < n; i++)
        CHECK(dfc_env_spec(p[i].name), "%s is read but not in the registry", p[i].name);
    for (int i = 0; i < ns; i++)
        for (int j = i + 1; j < ns; j++) CHECK(strcmp(s[i].name, s[j].name), "%s twice", s[i].name);
    int nv;
    const char *const *v = dfc_env_script_vars(&nv);
    for (int i = 0; i < nv; i++)
        CHECK(!dfc_env_spec(v[i]), "%s is both a parameter and a script variable", v[i]);
}

int main(void)
{
    test_cases();
    test_check();
    test_readers();
    test_algorithms();
    test_registered();
    if (failures) {
        fprintf(stderr, "test_env: %d failures\n", failures);
        return 1;
    }
    printf("test_env: %zu values, the check, the readers and the registry: ok\n",
           sizeof cases / sizeof cases[0]);
    return 0;
}
