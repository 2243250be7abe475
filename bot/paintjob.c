/*
 * paintjob: a picture as a self-contained job (bot/paintjob.h).  It must
 * touch nothing but its job: no session, no store, no log.
 */
#include "bot/paintjob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct paint_job *paint_job_new(uint64_t id, struct scene *scene)
{
	struct paint_job *job = xcalloc(1, sizeof(*job));

	job->id = id;
	job->scene = *scene;
	scene_init(scene);
	return job;
}

void paint_job_free(struct paint_job *job)
{
	if (!job)
		return;
	scene_release(&job->scene);
	paint_image_release(&job->im);
	free(job);
}

void paint_job_run(struct paint_job *job)
{
	struct buf err = BUF_INIT;

	if (paint_scene(&job->scene, 0, &job->im, &err)) {
		job->failed = 1;
		snprintf(job->why, sizeof(job->why), "%s", buf_str(&err));
	}
	buf_release(&err);
	/* the display list is not needed any more: its memory goes back
	 * on the worker, not on the loop */
	scene_release(&job->scene);
}
