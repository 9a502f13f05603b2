/* rt_bridge.c: a command of one context ordered after an event of
 * another.  OpenCL's wait lists take only events of the command's own
 * context, so such a command waits for a user event of its context that
 * is completed once the other event is.  A thread of ours does that: it
 * waits for each event in turn and completes its user event.  An event
 * callback (clSetEventCallback) would need no thread, but NVIDIA's
 * OpenCL delivers callbacks late: two GPUs never ran at the same time,
 * and a copy through pinned host memory took 20 ms for 0.4 MB
 * (bench/h100.md). */
#include <pthread.h>
#include <stdlib.h>

#include "ocl/rt_impl.h"

typedef struct {
	cl_event ready, user;
} Pair;

struct RtBridge {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t more;
	Pair *q;                  /* pairs head..n-1 wait */
	size_t head, n, cap;
	bool stop;
};

static void *
serve(void *arg)
{
	RtBridge *b = arg;
	pthread_mutex_lock(&b->mu);
	for (;;) {
		while (b->head == b->n && !b->stop)
			pthread_cond_wait(&b->more, &b->mu);
		if (b->head == b->n)
			break;
		Pair p = b->q[b->head++];
		pthread_mutex_unlock(&b->mu);
		cl_int st = CL_COMPLETE;
		if (clWaitForEvents(1, &p.ready) != CL_SUCCESS)
			st = -1;
		else
			clGetEventInfo(p.ready, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
		clSetUserEventStatus(p.user, st < 0 ? st : CL_COMPLETE);
		clReleaseEvent(p.ready);
		clReleaseEvent(p.user);
		pthread_mutex_lock(&b->mu);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

bool
rt_bridge_after(OclRt *rt, cl_event ready, cl_event user)
{
	RtBridge *b = rt->bridge;
	if (!b) {
		b = xcalloc(1, sizeof *b);
		pthread_mutex_init(&b->mu, NULL);
		pthread_cond_init(&b->more, NULL);
		if (pthread_create(&b->thread, NULL, serve, b) != 0) {
			pthread_cond_destroy(&b->more);
			pthread_mutex_destroy(&b->mu);
			free(b);
			return false;
		}
		rt->bridge = b;
	}
	clRetainEvent(ready);
	clRetainEvent(user);
	pthread_mutex_lock(&b->mu);
	if (b->head == b->n)
		b->head = b->n = 0;
	VEC_PUSH(b->q, b->n, b->cap) = (Pair){ready, user};
	pthread_cond_signal(&b->more);
	pthread_mutex_unlock(&b->mu);
	return true;
}

void
rt_bridge_free(OclRt *rt)
{
	RtBridge *b = rt->bridge;
	if (!b)
		return;
	pthread_mutex_lock(&b->mu);
	b->stop = true;
	pthread_cond_signal(&b->more);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->thread, NULL);
	pthread_cond_destroy(&b->more);
	pthread_mutex_destroy(&b->mu);
	free(b->q);
	free(b);
	rt->bridge = NULL;
}
