'use strict';
// Jobs for the job status tests (client CloudService.JobStatus and JobsData). simpleJob (main.js) succeeds; this
// one fails with a known text, which parse-server keeps as the _JobStatus row's message.
Parse.Cloud.job('failingJob', async req => {
  await req.message('failingJob started');
  throw new Error('failingJob failed on purpose');
});
