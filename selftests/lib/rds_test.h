/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small TAP harness for the rds selftests.
 *
 *	RDS_TEST(name) { ... RDS_EXPECT_ERRNO(socket(...), ESOCKTNOSUPPORT); }
 *	RDS_TEST_MAIN()
 *
 * Each test runs in a forked child, so a crash or a hang in one test is a
 * failure of that test only; a test fails on its first failed expectation
 * and prints why as a TAP diagnostic.
 */
#ifndef _RDS_TEST_H
#define _RDS_TEST_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define RDS_TEST_SKIP_CODE	4
#define RDS_TEST_TIMEOUT	120

struct rds_test {
	const char *name;
	void (*fn)(void);
	struct rds_test *next;
};

extern struct rds_test *rds_tests;

#define RDS_TEST(tname)							\
	static void rds_test_fn_##tname(void);				\
	static struct rds_test rds_test_##tname = {			\
		.name = #tname, .fn = rds_test_fn_##tname };		\
	static void __attribute__((constructor))			\
	rds_test_reg_##tname(void)					\
	{								\
		struct rds_test **p = &rds_tests;			\
		while (*p)						\
			p = &(*p)->next;				\
		*p = &rds_test_##tname;					\
	}								\
	static void rds_test_fn_##tname(void)

static inline void __attribute__((format(printf, 3, 4), noreturn))
rds_test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(1);
}

#define RDS_FAIL(...) rds_test_fail(__FILE__, __LINE__, __VA_ARGS__)

static inline void __attribute__((format(printf, 1, 2), noreturn))
rds_test_skip(const char *fmt, ...)
{
	va_list ap;

	printf("# SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(RDS_TEST_SKIP_CODE);
}

/* @expr must be true. */
#define RDS_EXPECT(expr)						\
	do {								\
		if (!(expr))						\
			RDS_FAIL("expected %s", #expr);			\
	} while (0)

/* @expr (a syscall) must succeed, i.e. not return -1. */
#define RDS_EXPECT_OK(expr)						\
	({								\
		long __r = (long)(expr);				\
		if (__r == -1)						\
			RDS_FAIL("%s failed: %s", #expr,		\
				 strerror(errno));			\
		__r;							\
	})

/* @expr (a syscall) must fail with errno @err. */
#define RDS_EXPECT_ERRNO(expr, err)					\
	do {								\
		long __r;						\
		errno = 0;						\
		__r = (long)(expr);					\
		if (__r != -1)						\
			RDS_FAIL("%s returned %ld, expected errno %s",	\
				 #expr, __r, #err);			\
		if (errno != (err))					\
			RDS_FAIL("%s: errno %d (%s), expected %s",	\
				 #expr, errno, strerror(errno), #err);	\
	} while (0)

#define RDS_TEST_MAIN()							\
	struct rds_test *rds_tests;					\
	int main(void) { return rds_test_run_all(); }

static inline int rds_test_run_one(struct rds_test *t)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		/* A process group per test: see the kill below. */
		setpgid(0, 0);
		alarm(RDS_TEST_TIMEOUT);
		t->fn();
		fflush(stdout);
		_exit(0);
	}
	setpgid(pid, pid);
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	/*
	 * A test that failed (or was killed) between fork() and waitpid()
	 * leaves its helpers behind, holding RDS sockets (and so a module
	 * reference) into the next test: none outlives its test.
	 */
	kill(-pid, SIGKILL);
	if (WIFSIGNALED(status)) {
		printf("# killed by signal %d%s\n", WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
		return 1;
	}
	return WEXITSTATUS(status);
}

static inline int rds_test_run_all(void)
{
	const char *only = getenv("RDS_TEST_ONLY");
	int n = 0, i = 0, failed = 0;
	struct rds_test *t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (t = rds_tests; t; t = t->next)
		n++;
	printf("TAP version 13\n1..%d\n", n);
	for (t = rds_tests; t; t = t->next) {
		int rc;

		i++;
		/* RDS_TEST_ONLY=NAME: the others skip (a short run by hand). */
		if (only && !strstr(t->name, only)) {
			printf("ok %d - %s # SKIP not %s\n", i, t->name, only);
			continue;
		}
		rc = rds_test_run_one(t);
		if (rc == RDS_TEST_SKIP_CODE) {
			printf("ok %d - %s # SKIP\n", i, t->name);
		} else if (rc) {
			printf("not ok %d - %s\n", i, t->name);
			failed++;
		} else {
			printf("ok %d - %s\n", i, t->name);
		}
	}
	return failed ? 1 : 0;
}

#endif /* _RDS_TEST_H */
