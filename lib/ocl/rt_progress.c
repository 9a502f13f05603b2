/* rt_progress.c: a word on standard error while ir-run waits on a step
 * that can take seconds with nothing else to show: building a program
 * from source (a binary cache miss), and the first run, in which an
 * OpenCL driver may compile each kernel for its work-group size at its
 * first launch (POCL: most of a new model's first run).  The line
 * appears once the step has taken a second, from a thread that waits for
 * the step's end that long, and the end says how long the step took.
 * Only where standard error is a terminal, so logs and pipes stay as
 * they were; --progress says every step at once, wherever stderr goes.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ocl/rt_impl.h"

struct RtProgress {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done, said, thread;
	double t0;
	char line[512];
};

static void *
wait_a_second(void *arg)
{
	RtProgress *p = arg;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	pthread_mutex_lock(&p->mu);
	while (!p->done)
		if (pthread_cond_timedwait(&p->cv, &p->mu, &until) != 0)
			break;
	if (!p->done) {
		fputs(p->line, stderr);
		fflush(stderr);
		p->said = true;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void
rt_progress_begin(OclRt *rt, const char *fmt, ...)
{
	if (rt->progress || !(rt->o.progress || isatty(STDERR_FILENO)))
		return;
	RtProgress *p = xcalloc(1, sizeof *p);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->line, sizeof p->line - 5, fmt, ap);
	va_end(ap);
	strcat(p->line, " ...\n");
	p->t0 = rt_now_ms();
	rt->progress = p;
	if (rt->o.progress) {
		fputs(p->line, stderr);
		p->said = true;
		return;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	/* no thread, no word: the step still runs */
	p->thread = pthread_create(&p->th, NULL, wait_a_second, p) == 0;
}

void
rt_progress_end(OclRt *rt)
{
	RtProgress *p = rt->progress;
	if (!p)
		return;
	rt->progress = NULL;
	if (p->thread) {
		pthread_mutex_lock(&p->mu);
		p->done = true;
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->th, NULL);
	}
	if (!rt->o.progress) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
	}
	if (p->said)
		fprintf(stderr, "ir-run: ... took %.1f s\n", (rt_now_ms() - p->t0) / 1e3);
	free(p);
}
